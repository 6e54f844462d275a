import { mkdirSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { checkPayoutDetails } from '../../shared/payoutDetails.js';
import { createLogger } from '../../server/logger.js';
import { type Daemon, startDaemon } from '../../server/main.js';
import { launchBrowser } from '../helpers/browser.js';
import { setUpAndLogIn, totpCode } from '../helpers/dashboard.js';
import { createMerchant, type Merchant, testConfig } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { conversion } from '../helpers/events.js';
import { call } from '../helpers/http.js';

/** As test/browser/dashboard.test.ts: `UPDATE_SCREENSHOTS=1` writes them into docs/dashboard/. */
const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? resolve('docs/dashboard')
  : mkdtempSync(join(tmpdir(), 'dashboard-shots-'));
const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const SHOWN = ['affiliate', 'groups', 'webhooks', 'audit'];
const STRIPE_SECRET = 'whsec_never_shown_0123456789';

interface AxeResults {
  violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
}
declare const axe: { run(context: unknown, options: unknown): Promise<AxeResults> };
declare const document: unknown;

async function seriousViolations(page: Page, name: string): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const results = await page.evaluate(() =>
    axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    }),
  );
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${name}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * The dashboard's campaign pages in Debian's Chromium, as a merchant uses them with JavaScript
 * off (docs/dashboard.md#pages): one affiliate's page, groups made and changed, a webhook
 * endpoint added (its secret once) and removed, the integrations without their secrets, the
 * rules, the audit log of it all; a viewer reads them without a form; axe-core in both languages.
 */
describe(`the dashboard's campaign pages in Chromium (${ENGINE})`, function () {
  this.timeout(180_000);
  let database: TestDatabase;
  let daemon: Daemon;
  let merchant: Merchant;
  let browser: Browser;
  let owner: BrowserContext;
  let page: Page;
  let ownerId = 0;
  let anaId = 0;

  before(async () => {
    database = await createTestDatabase();
    daemon = await startDaemon(testConfig(database.url, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }), {
      logger: createLogger('silent'),
    });
    merchant = await createMerchant(database.db);
    const services = daemon.services;
    const ana = await services.affiliates.create(merchant.campaignId, {
      email: 'ana@example.com',
      password: 'ana-password',
      name: 'Ana Souza',
      referralId: 'ANA10',
    });
    anaId = ana.id;
    const bia = await services.affiliates.create(merchant.campaignId, {
      email: 'bia@example.com',
      password: 'bia-password',
    });
    // Two affiliates paid to one PayPal account: both are flagged.
    const paypal = checkPayoutDetails({ method: 'paypal', account: 'shared@example.com' });
    if (!paypal.ok) throw new Error('a valid account was refused');
    for (const id of [ana.id, bia.id]) {
      await services.affiliates.setPayoutDetails(merchant.campaignId, id, paypal.details, paypal.identity);
    }
    await services.coupons.create(merchant.campaignId, ana.id, { code: 'ANA-OFF' });
    const events = [
      conversion(merchant.publicId, 'ANA10', 'PED-1', 100),
      conversion(merchant.publicId, 'ANA10', 'PED-2', 300),
    ];
    expect((await call(daemon.url, 'POST', '/v1/events', { key: merchant.key, body: { events } })).status).to.equal(
      200,
    );
    await services.integrations.put({ campaignId: merchant.campaignId, publicId: merchant.publicId }, 'stripe', {
      signingSecret: STRIPE_SECRET,
    });

    browser = await launchBrowser();
    owner = await browser.newContext({ locale: 'en-GB', javaScriptEnabled: false });
    page = await owner.newPage();
    const made = await services.dashboard.operator.create({
      campaign: merchant.publicId,
      email: 'owner@shop.example',
      role: 'owner',
    });
    if (made.state !== 'created' || !made.link) throw new Error('no owner');
    ownerId = made.user.id;
    await setUpAndLogIn(page, made.link, 'owner@shop.example', 'owner-password');
    const secret = (await page.textContent('#secret'))?.replace(/\s+/g, '') ?? '';
    await page.fill('#code', totpCode(secret));
    await page.click('main button[type=submit]');
    await page.click('text=I stored them');
    expect(await page.textContent('h1')).to.equal('Overview');
  });
  after(async () => {
    await browser?.close();
    await daemon?.close();
    await database?.drop();
  });

  const dash = (rest = '') => `${daemon.url}/dashboard/${merchant.publicId}${rest}`;

  it('one affiliate’s page: its figures, payout details, flags, coupons and latest conversions', async () => {
    await page.goto(dash('/affiliates?search=ana'));
    await page.click('a:has-text("Ana Souza")');
    expect(page.url()).to.equal(dash(`/affiliates/${anaId}`));
    expect(await page.textContent('h1')).to.equal('Affiliate Ana Souza');
    const facts = (await page.textContent('#affiliate-facts')) ?? '';
    expect(facts).to.match(/Conversions\s*2/);
    expect(facts).to.include('ANA10');
    expect(await page.textContent('#payout-details + dl')).to.include('shared@example.com');
    expect(await page.locator('#affiliate-flags li').allTextContents()).to.deep.equal([
      'Paid to the same account as another affiliate of the campaign',
    ]);
    expect(await page.locator('#affiliate-coupons code').allTextContents()).to.deep.equal(['ANA-OFF']);
    expect(await page.locator('#affiliate-conversions tbody tr').count()).to.equal(2);
    // Another campaign's affiliate, or none, is the page of a thing that does not exist.
    const other = await createMerchant(database.db);
    const theirs = await daemon.services.affiliates.create(other.campaignId, {
      email: 'cid@example.com',
      password: 'cid-password',
    });
    expect((await page.goto(dash(`/affiliates/${theirs.id}`)))?.status()).to.equal(404);
    expect((await page.goto(dash('/affiliates/abc')))?.status()).to.equal(404);
  });

  it('an owner edits an affiliate: refused in the API’s words keeping what was typed, then saved and audited', async () => {
    await page.goto(dash(`/affiliates/${anaId}`));
    await page.click('summary:has-text("Edit affiliate")');
    await page.fill('#edit-phone', '+55 11 98888-7777');
    await page.selectOption('#edit-override-type', 'percent');
    await page.fill('#edit-override-value', '150');
    await page.fill('#edit-parent', '999999');
    await page.click('button:has-text("Save affiliate")');
    // The API's two refusals in one answer: a percent above 100, and a parent of no affiliate of the campaign.
    const alert = (await page.textContent('details [role=alert]')) ?? '';
    expect(alert).to.include('commissionOverride.commissionValue must not be greater than 100');
    expect(alert).to.include('parentAffiliateId');
    expect(await page.inputValue('#edit-phone')).to.equal('+55 11 98888-7777');
    expect((await daemon.services.affiliates.get(merchant.campaignId, anaId)).phone).to.equal(undefined);

    await page.fill('#edit-override-value', '12');
    await page.fill('#edit-parent', '');
    await page.click('button:has-text("Save affiliate")');
    expect(await page.textContent('[role=status]')).to.equal('Saved.');
    const facts = (await page.textContent('#affiliate-facts')) ?? '';
    expect(facts).to.include('+55 11 98888-7777');
    expect(facts).to.match(/Own commission\s*12 %/);
    const ana = await daemon.services.affiliates.get(merchant.campaignId, anaId);
    expect(ana.commissionOverride).to.deep.equal({ commissionType: 'percent', commissionValue: 12 });
    // Only what changed is sent, so the audit log names just those fields, never the password.
    const [row] = await database.db('audit_log').where({ action: 'affiliate.update' });
    expect(JSON.parse(String(row?.details)).fields.sort()).to.deep.equal(['commissionOverride', 'phone']);
  });

  it('an owner adds a coupon (a taken code refused in the API’s words) and removes one', async () => {
    await page.goto(dash(`/affiliates/${anaId}`));
    await page.fill('#coupon-code', 'ana-off');
    await page.click('button:has-text("Add coupon")');
    expect(await page.textContent('[role=alert]')).to.include('Coupon code is not available');
    expect(await page.inputValue('#coupon-code')).to.equal('ana-off');
    await page.fill('#coupon-code', 'ANA-WINTER');
    await page.click('button:has-text("Add coupon")');
    expect(await page.textContent('[role=status]')).to.equal('Saved.');
    expect((await page.locator('#affiliate-coupons code').allTextContents()).sort()).to.deep.equal([
      'ANA-OFF',
      'ANA-WINTER',
    ]);
    await page.click('button[aria-label="Remove ANA-OFF"]');
    expect(await page.textContent('[role=status]')).to.equal('Deleted.');
    expect(await page.locator('#affiliate-coupons code').allTextContents()).to.deep.equal(['ANA-WINTER']);
    const coupons = await daemon.services.coupons.list(merchant.campaignId, anaId);
    expect(coupons.coupons.map((c) => c.code)).to.deep.equal(['ANA-WINTER']);
  });

  it('groups: made, refused in the API’s words, changed and deleted, and the campaign’s rules read', async () => {
    await page.goto(dash('/groups'));
    await page.fill('#group-name', 'VIP');
    await page.selectOption('#group-type', 'percent');
    await page.fill('#group-value', '150');
    await page.click('button:has-text("Create group")');
    // The API's own refusal: a percentage above 100; the form keeps what was typed.
    expect(await page.textContent('[role=alert]')).to.include('commissionValue');
    expect(await page.inputValue('#group-name')).to.equal('VIP');
    await page.fill('#group-value', '15');
    await page.click('button:has-text("Create group")');
    expect(await page.textContent('[role=status]')).to.equal('Saved.');
    expect(await page.textContent('#groups tbody')).to.match(/VIP\s*15 %/);
    const group = await database.db('affiliate_groups').where({ campaign_id: merchant.campaignId }).first();
    await page.click('summary:has-text("Edit VIP")');
    await page.fill(`#value-${group?.id}`, '20');
    await page.click('#groups button:has-text("Save")');
    expect(await page.textContent('#groups tbody')).to.match(/VIP\s*20 %/);
    expect((await daemon.services.groups.get(merchant.campaignId, Number(group?.id))).commissionValue).to.equal(20);

    await page.goto(dash('/rules'));
    expect(await page.textContent('#rules')).to.match(/Commission\s*10 %/);

    await page.goto(dash('/groups'));
    await page.click('summary:has-text("Edit VIP")');
    await page.click('button[aria-label="Delete VIP"]');
    expect(await page.textContent('[role=status]')).to.equal('Deleted.');
    expect(await page.locator('#groups').count()).to.equal(0);
  });

  it('a webhook endpoint: added with its secret shown once, its deliveries, removed; integrations without secrets', async () => {
    await page.goto(dash('/webhooks'));
    await page.fill('#webhook-url', 'http://127.0.0.1:9/hook');
    await page.click('button:has-text("Add endpoint")');
    // No event ticked: the API's message, nothing made.
    expect(await page.textContent('[role=alert]')).to.include('events');
    await page.check('input[name="ev_affiliate.created"]');
    await page.click('button:has-text("Add endpoint")');
    const secret = (await page.textContent('#created-secret')) ?? '';
    expect(secret).to.match(/^whsec_/);
    await page.goto(dash('/webhooks'));
    expect(await page.content()).not.to.include(secret);
    // A new affiliate is a delivery to the endpoint (it fails: nobody listens there), listed with its attempts.
    await daemon.services.affiliates.create(merchant.campaignId, {
      email: 'dan@example.com',
      password: 'dan-password',
    });
    await page.click('a:has-text("http://127.0.0.1:9/hook")');
    expect(await page.textContent('h1')).to.equal('Endpoint http://127.0.0.1:9/hook');
    let rows = 0;
    for (let tries = 0; tries < 40 && rows === 0; tries++) {
      await page.reload();
      rows = await page.locator('#deliveries tbody tr').count();
      if (rows === 0) await new Promise((done) => setTimeout(done, 100));
    }
    expect(await page.textContent('#deliveries tbody')).to.include('affiliate.created');
    await page.goto(dash('/webhooks'));
    await page.click('button[aria-label="Remove http://127.0.0.1:9/hook"]');
    expect(await page.textContent('[role=status]')).to.equal('Endpoint removed.');
    expect(await page.locator('#webhooks').count()).to.equal(0);

    await page.goto(dash('/integrations'));
    expect(await page.textContent('#integrations')).to.include(`/v1/integrations/stripe/${merchant.publicId}`);
    expect(await page.content()).not.to.include(STRIPE_SECRET);
  });

  it('the audit log lists who changed what, filtered by action, by who and by dates', async () => {
    await page.goto(dash('/audit?action=group.update'));
    const rows = await page.locator('#audit tbody tr').allTextContents();
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include(`Dashboard user #${ownerId}`);
    expect(rows[0]).to.include('127.0.0.1');
    await page.selectOption('#actor', 'system');
    await page.selectOption('#action', '');
    await page.click('button:has-text("Filter")');
    expect(new URL(page.url()).searchParams.get('actor')).to.equal('system');
    const system = await page.locator('#audit tbody tr').allTextContents();
    expect(system.length).to.be.greaterThan(0);
    expect(system.every((r) => r.includes('The daemon'))).to.equal(true);
    // Dates the wrong way round: the API's 400, in its words.
    const answer = await page.goto(dash('/audit?from=2026-12-31&to=2026-01-01'));
    expect(answer?.status()).to.equal(400);
    expect(await page.textContent('[role=alert]')).to.include('2026-12-31');
  });

  it('a viewer reads every page in Portuguese, without an axe-core violation, but is shown no form and a posted one is refused', async () => {
    const made = await daemon.services.dashboard.operator.create({
      campaign: merchant.publicId,
      email: 'viewer@shop.example',
      role: 'viewer',
    });
    if (made.state !== 'created' || !made.link) throw new Error('no viewer');
    // axe-core is put in the page by the test (bypassCSP): the dashboard's own CSP would refuse it, rightly.
    const context = await browser.newContext({ locale: 'pt-BR', bypassCSP: true });
    try {
      const viewer = await context.newPage();
      await setUpAndLogIn(viewer, made.link, 'viewer@shop.example', 'viewer-password');
      const titles: string[] = [];
      const bad: string[] = [];
      for (const path of ['/groups', '/rules', '/webhooks', '/integrations', '/audit', `/affiliates/${anaId}`]) {
        const answer = await viewer.goto(dash(path));
        expect(answer?.status(), path).to.equal(200);
        titles.push((await viewer.textContent('h1')) ?? '');
        expect(await viewer.locator('main form[method=post]').count(), path).to.equal(0);
        bad.push(...(await seriousViolations(viewer, `pt-BR ${path}`)));
      }
      expect(bad).to.deep.equal([]);
      expect(titles).to.deep.equal(['Grupos', 'Regras', 'Webhooks', 'Integrações', 'Auditoria', 'Afiliado Ana Souza']);
      const token = await viewer.getAttribute('form[action$="/logout"] input[name=csrf]', 'value');
      const forged = await viewer.request.post(dash('/groups'), {
        form: { csrf: token ?? '', name: 'Forged', commissionType: 'percent', commissionValue: '5' },
        headers: { Origin: daemon.url },
      });
      expect(forged.status()).to.equal(403);
      expect(await database.db('affiliate_groups').where({ name: 'Forged' }).first()).to.equal(undefined);
    } finally {
      await context.close();
    }
  });

  it('no campaign page has a serious or critical axe-core violation with its forms (the owner’s, in English)', async () => {
    mkdirSync(SHOTS, { recursive: true });
    // A group and an endpoint in the lists, so their rows' forms are checked (and shown) too.
    await daemon.services.groups.create(merchant.campaignId, {
      name: 'Partners',
      commissionType: 'fixed',
      commissionValue: 25,
    });
    await daemon.services.webhooks.create(merchant.campaignId, {
      url: 'http://127.0.0.1:9/orders',
      events: ['conversion.created', 'conversion.approved'],
      description: 'Order system',
    });
    const bad: string[] = [];
    const checking = await browser.newContext({
      bypassCSP: true,
      locale: 'en-GB',
      storageState: await owner.storageState(),
    });
    try {
      const tab = await checking.newPage();
      for (const path of [`/affiliates/${anaId}`, '/groups', '/rules', '/webhooks', '/integrations', '/audit']) {
        await tab.goto(dash(path));
        expect(tab.url()).to.equal(dash(path));
        bad.push(...(await seriousViolations(tab, path)));
        const name = path.startsWith('/affiliates/') ? 'affiliate' : path.slice(1);
        // The pages docs/dashboard.md shows, the top of each (small files).
        if (SHOWN.includes(name)) await tab.screenshot({ path: join(SHOTS, `${name}.png`) });
      }
    } finally {
      await checking.close();
    }
    expect(bad).to.deep.equal([]);
  });
});
