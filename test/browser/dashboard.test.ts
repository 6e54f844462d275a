import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createLogger } from '../../server/logger.js';
import { type Daemon, startDaemon } from '../../server/main.js';
import { launchBrowser } from '../helpers/browser.js';
import { createDashboardUser, nextStep, setUpAndLogIn, totpCode } from '../helpers/dashboard.js';
import { createMerchant, type Merchant, testConfig } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.js';

const CACHE_MS = 1000;

/**
 * The merchant dashboard in Debian's Chromium (docs/dashboard.md): the first owner from the CLI's
 * set-up link, TOTP enrolment and log-in, API keys shown once and revoked, an invited viewer and
 * what its role may not do, and the security headers and form checks every page has.
 */
describe(`the merchant dashboard in Chromium (${ENGINE})`, function () {
  this.timeout(180_000);
  let database: TestDatabase;
  let smtp: TestSmtp;
  let daemon: Daemon;
  let merchant: Merchant;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let secret = '';
  let recoveryCodes: string[] = [];

  before(async () => {
    smtp = await startTestSmtp();
    database = await createTestDatabase();
    daemon = await startDaemon(
      testConfig(database.url, {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'partners@acme.example',
        MAIL_POLL_MS: '50',
        API_KEY_CACHE_MS: String(CACHE_MS),
      }),
      { logger: createLogger('silent') },
    );
    merchant = await createMerchant(database.db);
    browser = await launchBrowser();
    context = await browser.newContext({ locale: 'en-GB' });
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await daemon?.close();
    await smtp?.close();
    await database?.drop();
  });

  const dash = (rest = '') => `${daemon.url}/dashboard/${merchant.publicId}${rest}`;

  it('the first owner sets a password through the CLI’s link and enrols TOTP; the codes come once', async () => {
    const owner = await createDashboardUser(database.url, daemon.url, {
      campaign: merchant.publicId,
      email: 'owner@shop.example',
      role: 'owner',
    });
    expect(owner.setupLink).to.match(new RegExp(`^${daemon.url}/dashboard/${merchant.publicId}/setup\\?token=`));
    await setUpAndLogIn(page, owner.setupLink, 'owner@shop.example', 'owner-password');
    expect(await page.textContent('h1')).to.equal('Set up your second factor');
    // The QR code is an SVG in the page itself, and its secret is there as text.
    expect(await page.locator('.qr svg path').count()).to.be.greaterThan(0);
    secret = (await page.textContent('#secret'))?.replace(/\s+/g, '') ?? '';
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    // A wrong code is refused and the same secret is offered again.
    await page.fill('#code', '000000');
    await page.click('main button[type=submit]');
    expect(await page.textContent('[role=alert]')).to.include('not valid');
    expect((await page.textContent('#secret'))?.replace(/\s+/g, '')).to.equal(secret);
    await page.fill('#code', totpCode(secret));
    await page.click('main button[type=submit]');
    expect(await page.textContent('h1')).to.equal('Your recovery codes');
    recoveryCodes = (await page.locator('#recovery-codes li').allTextContents()).map((c) => c.trim());
    expect(recoveryCodes).to.have.length(10);
    await page.click('text=I stored them');
    expect(await page.textContent('h1')).to.equal('Overview');
    // The link was spent.
    await page.goto(owner.setupLink);
    expect(await page.textContent('main')).to.include('already used');
  });

  it('a key made under settings is shown once, works at once against /v1, and stops within API_KEY_CACHE_MS of its revocation', async () => {
    await page.goto(dash('/settings/keys'));
    await page.fill('#key-name', 'shop backend');
    await page.click('main form.card button[type=submit]');
    const key = (await page.textContent('#created-key')) ?? '';
    expect(key).to.match(/^afk_[0-9A-Za-z]{32}$/);
    const campaign = await call(daemon.url, 'GET', '/v1/campaign', { key });
    expect(campaign.status).to.equal(200);
    // Shown once: the list has its prefix and last four only.
    await page.goto(dash('/settings/keys'));
    expect(await page.locator('#created-key').count()).to.equal(0);
    expect(await page.textContent('main')).not.to.include(key);
    expect(await page.textContent('main')).to.include(`${key.slice(0, 8)}…${key.slice(-4)}`);
    await page.click(`button[aria-label="Revoke ${key.slice(0, 8)}…${key.slice(-4)}"]`);
    expect(await page.textContent('[role=status]')).to.include('is revoked');
    const revokedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < CACHE_MS + 1000) {
      status = (await call(daemon.url, 'GET', '/v1/campaign', { key })).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).to.equal(401);
    expect(Date.now() - revokedAt).to.be.at.most(CACHE_MS + 500);
  });

  it('a TOTP code is taken once: the same code again is refused, a recovery code works once', async () => {
    await nextStep();
    const code = totpCode(secret);
    for (const expected of ['Overview', 'Second factor']) {
      await page.click('button:has-text("Log out")');
      await page.fill('#email', 'owner@shop.example');
      await page.fill('#password', 'owner-password');
      await page.click('main button[type=submit]');
      expect(await page.textContent('h1')).to.equal('Second factor');
      await page.fill('#code', code);
      await page.click('main form.card button[type=submit]');
      expect(await page.textContent('h1')).to.equal(expected);
    }
    expect(await page.textContent('[role=alert]')).to.include('already used');
    await page.click('summary');
    await page.fill('#recovery', recoveryCodes[0] ?? '');
    await page.click('button:has-text("Use recovery code")');
    expect(await page.textContent('h1')).to.equal('Overview');
  });
});
