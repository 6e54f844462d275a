import type { Browser } from 'playwright-core';
import { expect } from 'chai';
import { launchBrowser } from '../helpers/browser.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';

describe(`GET /docs in Chromium (${ENGINE})`, function () {
  this.timeout(90_000);
  const t = useTestDaemon();
  let browser: Browser;

  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it('renders every operation of the document, and no request leaves this daemon', async () => {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (request) => {
      requests.push(request.url());
    });
    const failures: string[] = [];
    page.on('pageerror', (err) => failures.push(err.message));
    const reply = await page.goto(`${t.url}/docs`);
    expect(reply?.status()).to.equal(200);
    await page.waitForSelector('.opblock-summary-path', { timeout: 60_000 });
    const paths = await page.$$eval('.opblock-summary-path', (nodes) =>
      nodes.map((node) => node.getAttribute('data-path') ?? node.textContent ?? ''),
    );
    expect(paths).to.include.members(['/v1/affiliates', '/v1/affiliates/{id}', '/v1/events', '/v1/sdk/events']);
    const title = await page.textContent('.info .title');
    expect(title).to.contain('affiliated API');
    expect(failures).to.deep.equal([]);
    const elsewhere = requests.filter((url) => !url.startsWith(`${t.url}/`) && !url.startsWith('data:'));
    expect(elsewhere).to.deep.equal([]);
    expect(requests).to.include(`${t.url}/v1/openapi.json`);
  });
});
