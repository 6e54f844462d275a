import { mkdirSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createLogger } from '../../server/logger.js';
import { type Daemon, startDaemon } from '../../server/main.js';
import { launchBrowser } from '../helpers/browser.js';
import { createDashboardUser, nextStep, setUpAndLogIn, totpCode } from '../helpers/dashboard.js';
import { createMerchant, type Merchant, servicesFor, testConfig } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { conversion, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.js';

const CACHE_MS = 1000;
/**
 * `UPDATE_SCREENSHOTS=1` writes the pages docs/dashboard.md shows into docs/dashboard/; otherwise
 * the screenshots go to a temporary folder, so a test run changes no file of the repository.
 */
const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? resolve('docs/dashboard')
  : mkdtempSync(join(tmpdir(), 'dashboard-shots-'));
const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe-core's verdict on a page, as the page runs it (the callback runs in the browser). */
interface AxeResults {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}
declare const axe: { run(context: unknown, options: unknown): Promise<AxeResults> };
declare const document: unknown;

/** No serious or critical axe-core violation on the page as it is now. */
async function accessible(page: Page, name: string): Promise<void> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const results = await page.evaluate(() =>
    axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    }),
  );
  const bad = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${name}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(bad).to.deep.equal([]);
}

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
    // The secret is sealed at rest, as webhook secrets: the database never holds it in clear.
    const stored = await database.db('dashboard_users').where({ email: 'owner@shop.example' }).first();
    expect(stored?.totp_secret).to.match(/^v1\./);
    expect(JSON.stringify(await database.db('dashboard_users').select('*'))).not.to.include(secret);
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

  it('overview, affiliates, conversions and payouts work as a merchant uses them, with JavaScript off', async () => {
    const services = servicesFor(database.db);
    const ana = await services.affiliates.create(merchant.campaignId, {
      email: 'ana@example.com',
      password: 'ana-password',
      referralId: 'ANA10',
    });
    await services.affiliates.create(merchant.campaignId, {
      email: 'bia@example.com',
      password: 'bia-password',
      status: 'pending',
    });
    const events = [
      pageView(merchant.publicId, ana.referralId),
      pageView(merchant.publicId, ana.referralId),
      conversion(merchant.publicId, ana.referralId, 'PED-1', 100),
      conversion(merchant.publicId, ana.referralId, 'PED-2', 200),
      conversion(merchant.publicId, ana.referralId, 'PED-3', 300),
    ];
    const sent = await call(daemon.url, 'POST', '/v1/events', { key: merchant.key, body: { events } });
    expect(sent.status).to.equal(200);
    const off = await browser.newContext({
      javaScriptEnabled: false,
      locale: 'pt-BR',
      storageState: await context.storageState(),
    });
    const noJs = await off.newPage();
    try {
      await noJs.goto(dash('/overview'));
      expect(await noJs.textContent('h1')).to.equal('Resumo');
      const figures = await noJs.locator('table.figures tbody tr').allTextContents();
      expect(figures[0]).to.match(/Visitas\s*2/);
      expect(figures[2]).to.match(/Conversões\s*3/);
      // One bar per day of the month so far, drawn on the server.
      expect(await noJs.locator('svg.chart rect').count()).to.equal(new Date().getUTCDate());

      // Affiliates: filter the pending, approve one.
      await noJs.goto(dash('/affiliates?status=pending'));
      expect(await noJs.locator('tbody tr').count()).to.equal(1);
      await noJs.click('button[aria-label="Aprovar bia@example.com"]');
      expect(await noJs.textContent('[role=status]')).to.equal('Afiliado aprovado.');
      const bia = await services.affiliates.list(merchant.campaignId, { search: 'bia@example.com', page: 1, limit: 5 });
      expect(bia.affiliates[0]?.status).to.equal('active');
      await noJs.goto(dash('/affiliates?search=ana'));
      expect(await noJs.locator('tbody tr').count()).to.equal(1);

      // Conversions: two approved at once, one rejected.
      await noJs.goto(dash('/conversions?status=pending'));
      expect(await noJs.locator('tbody tr').count()).to.equal(3);
      await noJs.check('input[aria-label="Selecionar PED-1"]');
      await noJs.check('input[aria-label="Selecionar PED-2"]');
      await noJs.click('button[value=approve]');
      expect(await noJs.textContent('[role=status]')).to.equal('2 alteradas.');
      await noJs.goto(dash('/conversions?status=pending'));
      await noJs.check('input[aria-label="Selecionar PED-3"]');
      await noJs.click('button[value=reject]');
      const statuses = (await services.conversions.list(merchant.campaignId, { page: 1, limit: 10 })).conversions
        .map((c) => `${c.orderId}:${c.status}`)
        .sort();
      expect(statuses).to.deep.equal(['PED-1:approved', 'PED-2:approved', 'PED-3:rejected']);

      // Payouts: created for what is approved, marked paid, exported as the CLI's CSV.
      await noJs.goto(dash('/payouts'));
      await noJs.click('button:has-text("Criar pagamentos")');
      expect(await noJs.textContent('[role=status]')).to.equal('1 pagamento criado.');
      expect(await noJs.locator('tbody tr').count()).to.equal(1);
      await noJs.click('button:has-text("Marcar como pago")');
      expect(await noJs.locator('tbody .status-paid').count()).to.equal(1);
      const csv = await noJs.request.get(dash('/payouts.csv?status=paid'));
      expect(csv.headers()['content-type']).to.equal('text/csv; charset=utf-8');
      const lines = (await csv.text()).trim().split('\r\n');
      expect(lines[0]).to.equal(
        'payout_id,affiliate_id,name,email,payout_method,pix_key_type,payout_account,amount,currency,rail,reference,receipt,failure_reason,commission_rules',
      );
      expect(lines).to.have.length(2);
      expect(lines[1]).to.include('ana@example.com');
    } finally {
      await off.close();
    }
  });

  it('an invited viewer sets a password from the mail, reads but changes nothing; a role change or removal ends its session', async () => {
    await page.goto(dash('/users'));
    await page.fill('#invite-email', 'viewer@shop.example');
    await page.selectOption('#invite-role', 'viewer');
    await page.click('button:has-text("Invite")');
    expect(await page.textContent('[role=status]')).to.equal('Invitation sent.');
    const mail = (await smtp.waitFor(1)).find((m) => m.to[0] === 'viewer@shop.example');
    expect(mail?.subject).to.match(/invited to the .* dashboard/);
    const link = /https?:\/\/\S+\/setup\?token=[A-Za-z0-9_-]{43}/.exec(mail?.text ?? '')?.[0] ?? '';
    expect(link).not.to.equal('');
    const other = await browser.newContext({ locale: 'en-GB' });
    const viewer = await other.newPage();
    try {
      await setUpAndLogIn(viewer, link, 'viewer@shop.example', 'viewer-password');
      // A viewer has no second factor to give and no keys or users in its navigation.
      expect(await viewer.textContent('h1')).to.equal('Overview');
      expect(await viewer.locator('nav a').allTextContents()).to.deep.equal([
        'Overview',
        'Affiliates',
        'Conversions',
        'Payouts',
      ]);
      const keys = await viewer.goto(dash('/settings/keys'));
      expect(keys?.status()).to.equal(403);
      await viewer.goto(dash('/conversions'));
      expect(await viewer.locator('input[type=checkbox]').count()).to.equal(0);
      // A form the page does not show, posted with a good token, is still refused by the role.
      await viewer.goto(dash('/payouts'));
      const token = await viewer.getAttribute('form[action$="/logout"] input[name=csrf]', 'value');
      const forged = await viewer.request.post(dash('/payouts/run'), {
        form: { csrf: token ?? '' },
        headers: { Origin: daemon.url },
      });
      expect(forged.status()).to.equal(403);

      // The owner makes it an admin: its session ends, it logs in again and owes a second factor.
      await page.goto(dash('/users'));
      const row = page.locator('tr', { hasText: 'viewer@shop.example' });
      await row.locator('select').selectOption('admin');
      await row.locator('button:has-text("Change role")').click();
      expect(await page.textContent('[role=status]')).to.include('Role changed');
      await viewer.goto(dash('/overview'));
      expect(await viewer.textContent('h1')).to.equal('Log in');
      await viewer.fill('#email', 'viewer@shop.example');
      await viewer.fill('#password', 'viewer-password');
      await viewer.click('main button[type=submit]');
      expect(await viewer.textContent('h1')).to.equal('Set up your second factor');

      // Removed: the half-open session is gone as well.
      await page.goto(dash('/users'));
      await page.click('button[aria-label="Remove viewer@shop.example"]');
      expect(await page.textContent('[role=status]')).to.equal('User removed.');
      await viewer.goto(dash('/factor'));
      expect(await viewer.textContent('h1')).to.equal('Log in');
    } finally {
      await other.close();
    }
  });

  it('the campaign’s last owner is neither demoted nor removed: the page says why', async () => {
    await page.goto(dash('/users'));
    // The page offers no form for oneself; one posted anyway is refused by the update's condition.
    const token = await page.getAttribute('form[action$="/logout"] input[name=csrf]', 'value');
    const own = await database.db('dashboard_users').where({ email: 'owner@shop.example' }).first();
    for (const [path, form] of [
      ['/users/role', { role: 'viewer' }],
      ['/users/remove', {}],
    ] as const) {
      const answer = await page.request.post(dash(path), {
        form: { csrf: token ?? '', id: String(own?.id), ...form },
        headers: { Origin: daemon.url },
      });
      expect(answer.status()).to.equal(409);
      expect(await answer.text()).to.include('The campaign needs an owner who can log in');
    }
    expect((await database.db('dashboard_users').where({ id: own?.id }).first())?.role).to.equal('owner');
    // The invitation, role change and removal before are in the audit log as the owner.
    const rows = await database.db('audit_log').where('target_type', 'user').orderBy('id');
    expect(rows.map((r) => [r.action, r.actor_type, r.actor_id])).to.deep.equal([
      ['user.create', 'operator', null],
      ['user.invite', 'user', String(own?.id)],
      ['user.change_role', 'user', String(own?.id)],
      ['user.remove', 'user', String(own?.id)],
    ]);
  });

  it('every page has the security headers and cookies; a form without its token or from another site changes nothing', async () => {
    const answer = await page.goto(dash('/overview'));
    const headers = answer?.headers() ?? {};
    const csp = headers['content-security-policy'] ?? '';
    expect(csp).to.include("frame-ancestors 'none'");
    expect(csp).to.include("script-src 'self'");
    expect(csp).not.to.include('unsafe-inline');
    expect(headers['referrer-policy']).to.equal('same-origin');
    const cookies = await context.cookies(dash('/'));
    const session = cookies.find((c) => c.name === 'affiliated_dashboard');
    expect(session).to.include({ httpOnly: true, sameSite: 'Lax', path: '/dashboard/' });

    const keysBefore = await database.db('api_keys').count({ n: '*' }).first();
    const token = await page.getAttribute('form[action$="/logout"] input[name=csrf]', 'value');
    const noToken = await page.request.post(dash('/settings/keys'), {
      form: { name: 'x' },
      headers: { Origin: daemon.url },
    });
    expect(noToken.status()).to.equal(403);
    const foreign = await page.request.post(dash('/settings/keys'), {
      form: { name: 'x', csrf: token ?? '' },
      headers: { Origin: 'https://evil.example' },
    });
    expect(foreign.status()).to.equal(403);
    const keysAfter = await database.db('api_keys').count({ n: '*' }).first();
    expect(Number(keysAfter?.n)).to.equal(Number(keysBefore?.n));
    // Another campaign's dashboard does not know this session.
    const second = await createMerchant(database.db);
    await page.goto(`${daemon.url}/dashboard/${second.publicId}/overview`);
    expect(await page.textContent('h1')).to.equal('Log in');
  });

  it('no page has a serious or critical axe-core violation, in either language', async () => {
    // axe-core is put in the page by the test: the dashboard's own CSP would refuse it, rightly.
    const checking = await browser.newContext({
      bypassCSP: true,
      locale: 'pt-BR',
      storageState: await context.storageState(),
    });
    const fresh = await browser.newContext({ bypassCSP: true, locale: 'en-GB' });
    mkdirSync(SHOTS, { recursive: true });
    try {
      const owner = await checking.newPage();
      for (const path of [
        '/overview',
        '/affiliates',
        '/conversions',
        '/payouts',
        '/settings/keys',
        '/users',
        '/passkeys',
      ]) {
        await owner.goto(dash(path));
        // The page itself, not the log-in page it would redirect to without the owner's session.
        expect(owner.url()).to.equal(dash(path));
        await accessible(owner, path);
        await owner.screenshot({ path: join(SHOTS, `${path.split('/').pop()}.png`), fullPage: true });
      }
      const stranger = await fresh.newPage();
      await stranger.goto(dash('/'));
      await accessible(stranger, 'log-in');
      const invited = await createDashboardUser(database.url, daemon.url, {
        campaign: merchant.publicId,
        email: 'admin@shop.example',
        role: 'admin',
      });
      await stranger.goto(invited.setupLink);
      await accessible(stranger, 'set-up');
      await setUpAndLogIn(stranger, invited.setupLink, 'admin@shop.example', 'admin-password');
      expect(await stranger.textContent('h1')).to.equal('Set up your second factor');
      await accessible(stranger, 'enrolment');
    } finally {
      await checking.close();
      await fresh.close();
    }
  });
});
