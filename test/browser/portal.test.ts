import { mkdirSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createLogger } from '../../server/logger.js';
import { type Daemon, startDaemon } from '../../server/main.js';
import { launchBrowser } from '../helpers/browser.js';
import { createMerchant, type Merchant, servicesFor, testConfig } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { conversion, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.js';

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe-core's verdict on a page, as the page runs it (the callback runs in the browser). */
interface AxeResults {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}
declare const axe: { run(context: unknown, options: unknown): Promise<AxeResults> };
declare const document: unknown;

/**
 * `UPDATE_SCREENSHOTS=1` writes the pages docs/portal.md shows into docs/portal/; otherwise the
 * screenshots go to a temporary folder, so a test run changes no file of the repository.
 */
const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.resolve('docs/portal')
  : mkdtempSync(path.join(os.tmpdir(), 'portal-shots-'));

/**
 * An affiliate's whole life in the portal, in Debian's Chromium: sign-up, approval, log-in, the
 * dashboard after a tracked visit and a sale, settings, a password reset through the link of
 * the mail a real SMTP server received, and log-out. axe-core checks every page on the way.
 */
describe(`the affiliate portal in Chromium (${ENGINE})`, function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let smtp: TestSmtp;
  let daemon: Daemon;
  let merchant: Merchant;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const checked: string[] = [];

  before(async () => {
    smtp = await startTestSmtp();
    database = await createTestDatabase();
    daemon = await startDaemon(
      testConfig(database.url, { SMTP_URL: smtp.url, MAIL_FROM: 'partners@acme.example', MAIL_POLL_MS: '50' }),
      { logger: createLogger('silent') },
    );
    merchant = await createMerchant(database.db);
    await servicesFor(database.db).campaigns.update(merchant.campaignId, {
      portal: true,
      contactEmail: 'partners@acme.example',
      siteUrl: 'https://shop.example/',
    });
    browser = await launchBrowser();
    // axe-core is put in the page by the test: the portal's own CSP would refuse it, rightly.
    context = await browser.newContext({ bypassCSP: true, locale: 'pt-BR', viewport: { width: 1000, height: 760 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: daemon.url });
    page = await context.newPage();
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await daemon?.close();
    await smtp?.close();
    await database?.drop();
  });

  const portal = (rest = '') => `${daemon.url}/portal/${merchant.publicId}${rest}`;

  /** No serious or critical axe-core violation on the page as it is now. */
  async function accessible(name: string, on: Page = page): Promise<void> {
    await on.addScriptTag({ path: AXE_SCRIPT });
    const results = await on.evaluate(() =>
      axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      }),
    );
    const bad = results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${name}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(bad).to.deep.equal([]);
    checked.push(name);
  }

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  }

  it('walks sign-up, approval, log-in, the dashboard, settings, reset and log-out, each page accessible', async () => {
    // Sign-up through Rafa's referral link: the form names the code, and Rafa becomes Ana's parent.
    const rafa = await servicesFor(database.db).affiliates.create(merchant.campaignId, {
      email: 'rafa@example.com',
      password: 'rafa-password',
      referralId: 'RAFA10',
    });
    await page.goto(portal('/signup?ref=RAFA10'));
    await accessible('sign-up');
    expect(await page.textContent('main')).to.include('Indicado por RAFA10.');
    await page.fill('#name', 'Ana <Lima>');
    await page.fill('#email', 'ana@example.com');
    await page.fill('#password', 'correct-horse');
    await page.click('button[type=submit]');
    await expect(await page.textContent('h1')).to.equal('Candidatura recebida');
    await accessible('sign-up done');
    const applicant = await database.db('affiliates').where('email_key', 'ana@example.com').first();
    expect(Number(applicant?.parent_affiliate_id)).to.equal(rafa.id);

    // A bad form is shown again with each problem next to its field; a code of nobody is not named.
    await page.goto(portal('/signup?ref=NOBODY1'));
    expect(await page.textContent('main')).not.to.include('Indicado por');
    await page.fill('#email', 'not-an-address');
    await page.click('button[type=submit]');
    expect(await page.textContent('#email-error')).to.equal('Informe um e-mail válido.');
    await accessible('sign-up with errors');

    // The pending affiliate logs in and learns it awaits approval.
    await page.goto(portal('/'));
    await accessible('log-in');
    await shot('login');
    await page.fill('#email', 'ana@example.com');
    await page.fill('#password', 'correct-horse');
    await page.click('button[type=submit]');
    expect(await page.textContent('h1')).to.equal('Candidatura aguardando aprovação');
    await accessible('pending');

    // The merchant approves; the mail arrives in Portuguese, the language of the sign-up.
    const ana = await database.db('affiliates').where('email_key', 'ana@example.com').first();
    if (!ana) throw new Error('the sign-up stored no affiliate');
    expect((await call(daemon.url, 'POST', `/v1/affiliates/${ana.id}/approve`, { key: merchant.key })).status).to.equal(
      200,
    );
    const approval = (await smtp.waitFor(2)).find((mail) => mail.to[0] === 'ana@example.com');
    expect(approval?.subject).to.match(/^Sua candidatura a .* foi aprovada$/);

    // A tracked visit and a sale, then the dashboard.
    const events = [
      pageView(merchant.publicId, ana.referral_id),
      conversion(merchant.publicId, ana.referral_id, 'PED-1', 1234.56),
    ];
    expect((await call(daemon.url, 'POST', '/v1/events', { key: merchant.key, body: { events } })).status).to.equal(
      200,
    );
    await page.goto(portal('/dashboard'));
    expect(await page.textContent('h1')).to.equal('Olá, Ana <Lima>');
    expect(await page.inputValue('#referral-link')).to.equal(`https://shop.example/?ref=${ana.referral_id}`);
    const figures = await page.$$eval('.figures tbody tr', (rows) =>
      rows.map((row) =>
        Array.from(row.children, (cell: { textContent: string | null }) => (cell.textContent ?? '').trim()),
      ),
    );
    expect(figures).to.deep.include(['Visitas', '1', '1']);
    expect(figures).to.deep.include(['Vendas', '1', '1']);
    expect(figures).to.deep.include(['Comissão pendente', 'R$ 123,46', 'R$ 123,46']);
    const sale = await page.$$eval('#sales-title ~ .scroll tbody td', (cells) =>
      cells.map((c) => (c.textContent ?? '').trim()),
    );
    expect(sale.slice(1)).to.deep.equal(['PED-1', 'R$ 1.234,56', 'R$ 123,46', 'pendente']);
    // The copy button appears with its script and copies the link.
    await page.click('button.copy');
    // The label changes once the clipboard has taken the text (a promise in the page).
    await page.waitForSelector('button.copy:has-text("Copiado")', { timeout: 5000 });
    const copied = await page.evaluate(() =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText(),
    );
    expect(copied).to.equal(`https://shop.example/?ref=${ana.referral_id}`);
    await accessible('dashboard');
    await shot('dashboard');

    // Settings: a wrong CPF is named, a right one saved.
    await page.click('nav >> text=Configurações');
    await accessible('settings');
    await page.selectOption('#pixKeyType', 'cpf');
    await page.fill('#pixKey', '529.982.247-26');
    await page.click('#payout button[type=submit]');
    expect(await page.textContent('#pixKey-error')).to.equal('CPF inválido: confira os 11 dígitos.');
    await accessible('settings with errors');
    await page.fill('#pixKey', '529.982.247-25');
    await page.click('#payout button[type=submit]');
    expect(await page.textContent('.notice')).to.equal('Salvo.');
    expect(await page.inputValue('#pixKey')).to.equal('52998224725');
    await shot('settings');
    const details = await call(daemon.url, 'GET', `/v1/affiliates/${ana.id}`, { key: merchant.key });
    expect(details.body).to.include({ payoutMethod: 'pix', pixKeyType: 'cpf', payoutAccount: '52998224725' });

    // Log out, forget the password, reset it through the mailed link.
    await page.click('nav >> text=Sair');
    expect(await page.textContent('.notice')).to.equal('Você saiu da sua conta.');
    await page.click('text=Esqueceu a senha?');
    await accessible('reset request');
    await page.fill('#email', 'ana@example.com');
    await page.click('button[type=submit]');
    expect(await page.textContent('h1')).to.equal('Confira seu e-mail');
    await accessible('reset sent');
    const resetMail = (await smtp.waitFor(3)).find((mail) => /Redefina/.test(mail.subject));
    const link = /https?:\/\/\S+\/reset\?token=[A-Za-z0-9_-]{43}/.exec(resetMail?.text ?? '')?.[0];
    expect(link, resetMail?.text).to.be.a('string');
    await page.goto(link ?? '');
    await accessible('new password');
    await page.fill('#password', 'brand-new-secret');
    await page.click('button[type=submit]');
    expect(await page.textContent('.notice')).to.equal('Sua senha foi alterada. Entre com a nova senha.');
    await page.goto(link ?? '');
    expect(await page.textContent('h1')).to.equal('Este link não vale mais');
    await accessible('used link');

    await page.goto(portal('/'));
    await page.fill('#email', 'ana@example.com');
    await page.fill('#password', 'brand-new-secret');
    await page.click('button[type=submit]');
    expect(await page.textContent('h1')).to.equal('Olá, Ana <Lima>');
    await page.click('nav >> text=Sair');
    await page.goto(portal('/dashboard'));
    expect(page.url()).to.equal(portal('/'));

    await page.goto(`${daemon.url}/portal/${merchant.publicId}/nothing-here`);
    await accessible('not found');
    expect(checked).to.have.length(13);
  });

  it('draws the affiliate’s own chart with JavaScript off, with its numbers as a table; axe-core finds nothing serious', async () => {
    const services = servicesFor(database.db);
    const cai = await services.affiliates.create(merchant.campaignId, {
      email: 'cai@example.com',
      password: 'cai-password',
      referralId: 'CAI30',
    });
    await services.affiliates.create(merchant.campaignId, {
      email: 'duda@example.com',
      password: 'duda-password',
      referralId: 'DUDA40',
    });
    for (const code of ['CAI30', 'CAI30', 'CAI30', 'DUDA40']) {
      const click = await call(daemon.url, 'GET', `/r/${merchant.publicId}/${code}`, {
        headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' },
      });
      expect(click.status).to.equal(302);
    }
    const sent = await call(daemon.url, 'POST', '/v1/events', {
      key: merchant.key,
      body: { events: [conversion(merchant.publicId, cai.referralId, 'PED-CAI', 80)] },
    });
    expect(sent.status).to.equal(200);
    const off = await browser.newContext({ javaScriptEnabled: false, locale: 'en-GB' });
    const on = await browser.newContext({ bypassCSP: true, locale: 'en-GB' });
    try {
      const noJs = await off.newPage();
      await noJs.goto(portal('/'));
      await noJs.fill('#email', 'cai@example.com');
      await noJs.fill('#password', 'cai-password');
      await noJs.click('button[type=submit]');
      expect(noJs.url()).to.equal(portal('/dashboard'));
      // Three bars a day for 30 days, drawn by the server; today's clicks (3) are the tallest.
      expect(await noJs.locator('svg.chart rect').count()).to.equal(90);
      const tall = await noJs.$$eval('svg.chart rect', (rects) =>
        rects.filter((r) => r.getAttribute('height') !== '0').map((r) => r.getAttribute('class')),
      );
      expect(tall).to.deep.equal(['series-0', 'series-2']);
      expect(await noJs.getAttribute('svg.chart', 'role')).to.equal('img');
      expect(await noJs.textContent('#chart-title')).to.equal('Clicks, leads and sales per day, last 30 days (UTC)');
      // The table holds the same numbers for a screen reader (and anyone who opens it).
      await noJs.click('.chart-numbers summary');
      const today = await noJs.$$eval('.chart-numbers tbody tr:last-child > *', (cells) =>
        cells.map((c) => (c.textContent ?? '').trim()),
      );
      expect(today.slice(1)).to.deep.equal(['3', '0', '1']);
      await noJs.screenshot({ path: path.join(SHOTS, 'dashboard-chart.png'), fullPage: true });

      const checking = await on.newPage();
      await on.addCookies(await off.cookies());
      await checking.goto(portal('/dashboard'));
      expect(checking.url()).to.equal(portal('/dashboard'));
      await checking.click('.chart-numbers summary');
      await accessible('dashboard with its chart', checking);
    } finally {
      await off.close();
      await on.close();
    }
  });
});
