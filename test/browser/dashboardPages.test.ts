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
import { eventFrom, paddleSignature, sendEvent } from '../helpers/billing.js';
import { Receiver, signedWith } from '../helpers/receiver.js';

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
  /** The endpoint the webhook test edits, for the pages checked by axe-core after it. */
  let hookPath = '';

  before(async () => {
    database = await createTestDatabase();
    // One quick retry: a delivery the receiver refuses twice is `failed` at once, for the Retry button.
    const hooks = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_SCHEDULE: '100ms' };
    daemon = await startDaemon(testConfig(database.url, hooks), {
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

  it('a webhook endpoint edited, tested, its failed delivery retried, its secret rotated: the new one signs at once', async () => {
    const receiver = await new Receiver(() => 500).start();
    try {
      await page.goto(dash('/webhooks'));
      await page.fill('#webhook-url', receiver.url);
      await page.check('input[name="ev_affiliate.created"]');
      await page.click('button:has-text("Add endpoint")');
      const old = (await page.textContent('#created-secret')) ?? '';
      await page.goto(dash('/webhooks'));
      await page.click(`a:has-text("${receiver.url}")`);
      hookPath = new URL(page.url()).pathname.replace(`/dashboard/${merchant.publicId}`, '');

      // A test the receiver refuses twice (the schedule's one retry): a failed delivery, signed with the secret.
      await page.click('button:has-text("Send a test")');
      expect(await page.textContent('[role=status]')).to.equal('Test sent: its delivery is listed below.');
      const [first] = await receiver.waitFor(2);
      expect(JSON.parse(first?.body ?? '{}').type).to.equal('webhook.test');
      expect(signedWith(old, first)).to.equal(true);
      let retry = page.locator('button[aria-label^="Retry delivery"]');
      for (let tries = 0; tries < 40 && (await retry.count()) === 0; tries++) {
        await new Promise((done) => setTimeout(done, 100));
        await page.goto(dash(hookPath));
        retry = page.locator('button[aria-label^="Retry delivery"]');
      }
      expect(await page.textContent('#deliveries tbody')).to.match(/webhook\.test\s*failed\s*2\s*500/);

      // Rotated: the new secret on this answer only, as a new endpoint's.
      await page.click('button:has-text("Rotate the signing secret")');
      const rotated = (await page.textContent('#created-secret')) ?? '';
      expect(rotated)
        .to.match(/^whsec_/)
        .and.not.equal(old);
      expect(await page.textContent('#new-secret')).to.include('shown only this once');

      // The retry now goes out signed with the new secret (the old one still signs beside it for 24 hours).
      receiver.respond(() => 200);
      await page.goto(dash(hookPath));
      await page.click('button[aria-label^="Retry delivery"]');
      expect(await page.textContent('[role=status]')).to.equal('The delivery is due again now.');
      const [, , again] = await receiver.waitFor(3);
      expect(again?.headers['webhook-id']).to.equal(first?.headers['webhook-id']);
      expect(signedWith(rotated, again)).to.equal(true);
      expect(await page.content()).not.to.include(rotated);
      expect(await page.content()).not.to.include(old);

      // Edited: no event ticked is the API's refusal, in its words, keeping what was typed.
      await page.click('summary:has-text("Change the endpoint")');
      await page.fill('#edit-description', 'Order system v2');
      await page.uncheck('#edit-url ~ fieldset input[name="ev_affiliate.created"]');
      await page.click('button:has-text("Save")');
      expect(await page.textContent('[role=alert]')).to.include('events');
      expect(await page.inputValue('#edit-description')).to.equal('Order system v2');
      await page.check('#edit-url ~ fieldset input[name="ev_conversion.created"]');
      await page.selectOption('#edit-status', 'disabled');
      await page.click('button:has-text("Save")');
      expect(await page.textContent('[role=status]')).to.equal('Saved.');
      const facts = (await page.textContent('dl.facts')) ?? '';
      expect(facts).to.include('Order system v2');
      expect(facts).to.match(/Events\s*conversion\.created\s*Status\s*disabled/);
      // A disabled endpoint gets no test: the API's 409, on the endpoint's page.
      const refused = await Promise.all([page.waitForNavigation(), page.click('button:has-text("Send a test")')]);
      expect(refused[0]?.status()).to.equal(409);
      expect(await page.textContent('[role=alert]')).to.include('disabled');
      expect(receiver.received).to.have.length(3);

      const audit = await database.db('audit_log').where({ actor_type: 'user', actor_id: String(ownerId) });
      const actions = audit.map((row) => row.action);
      for (const action of ['webhook.test', 'webhook.rotate_secret', 'webhook.retry_delivery', 'webhook.update']) {
        expect(actions, action).to.include(action);
      }
      // Only what changed is named (the status set to disabled, the events, the description), never a secret.
      const update = audit.find((row) => row.action === 'webhook.update');
      expect(JSON.parse(update?.details ?? '{}').fields).to.have.members(['events', 'description', 'status']);
      expect(JSON.stringify(audit)).not.to.include(rotated.slice(6));
    } finally {
      await receiver.stop();
    }
  });

  it('integrations: a billing provider and a payout rail connected, replaced and removed, no secret ever shown back', async () => {
    const paddle = 'pdl_ntfset_dashboard_0123456789abcdef';
    const asaasKey = '$aact_dashboard_0123456789';
    const asaasToken = 'asaas-callback-token-from-dashboard';
    await page.goto(dash('/integrations'));
    // The API's refusal, in its words; what was pasted is not sent back.
    await page.selectOption('#billing-provider', 'paddle');
    await page.fill('#billing-secret', 'has a space');
    await page.click('button:has-text("Save the secret")');
    expect(await page.textContent('[role=alert]')).to.include('signingSecret must be 8 to 255 printable ASCII');
    expect(await page.content()).not.to.include('has a space');
    expect(await page.inputValue('#billing-provider')).to.equal('paddle');
    await page.fill('#billing-secret', paddle);
    await page.click('button:has-text("Save the secret")');
    expect(await page.textContent('[role=status]')).to.include('never shown again');
    expect(await page.textContent('#integrations')).to.include(`/v1/integrations/paddle/${merchant.publicId}`);
    // It is the secret Paddle signs with: a notification signed with it is taken, another is not.
    const event = eventFrom('paddle-transaction-completed');
    const body = JSON.stringify(event);
    expect((await sendEvent(daemon.url, 'paddle', merchant.publicId, body, { secret: paddle })).status).to.equal(200);
    const forged = { signature: paddleSignature(body, 'pdl_ntfset_someone_else_000') };
    expect((await sendEvent(daemon.url, 'paddle', merchant.publicId, body, forged)).status).to.equal(400);
    // Saved again, Stripe's secret rotates: the previous one verifies 24 hours more.
    await page.selectOption('#billing-provider', 'stripe');
    await page.fill('#billing-secret', 'whsec_rotated_from_dashboard_42');
    await page.click('button:has-text("Save the secret")');
    expect(await page.textContent('#integrations')).to.match(/stripe\s*the previous secret verifies until/);

    // A rail: PayPal without its secret is the API's refusal; Pix with its key and callback token is connected.
    await page.click('summary:has-text("Connect PayPal")');
    await page.fill('#rail-paypal-clientId', 'AbCpaypalclient');
    await page.click('#rail-paypal button');
    expect(await page.textContent('[role=alert]')).to.include('clientSecret');
    await page.click('summary:has-text("Connect Pix (Asaas)")');
    await page.fill('#rail-pix-apiKey', asaasKey);
    await page.fill('#rail-pix-webhookToken', asaasToken);
    await page.click('#rail-pix button');
    expect(await page.textContent('[role=status]')).to.include('never shown again');
    expect(await page.textContent('#rails')).to.match(
      new RegExp(`pix\\s*/v1/integrations/asaas-payouts/${merchant.publicId}\\s*set`),
    );
    // The token set is the one Asaas's callbacks must carry.
    const callback = (token: string) =>
      call(daemon.url, 'POST', `/v1/integrations/asaas-payouts/${merchant.publicId}`, {
        body: { id: 'evt_dashboard', event: 'TRANSFER_DONE', transfer: { id: 'unknown-transfer' } },
        headers: { 'asaas-access-token': token },
      });
    expect((await callback(asaasToken)).status).to.equal(200);
    expect((await callback('not-the-token')).status).to.equal(401);
    const html = await page.content();
    for (const secret of [paddle, asaasKey, asaasToken, 'whsec_rotated_from_dashboard_42', STRIPE_SECRET]) {
      expect(html).not.to.include(secret);
    }

    // Removed: the rail is gone, Paddle's address answers 404 from then on.
    await page.click('button[aria-label="Remove pix"]');
    expect(await page.textContent('[role=status]')).to.equal('Disconnected.');
    expect(await page.locator('#rails').count()).to.equal(0);
    await page.click('button[aria-label="Remove paddle"]');
    expect(await page.textContent('#integrations')).not.to.include('paddle');
    expect((await sendEvent(daemon.url, 'paddle', merchant.publicId, body, { secret: paddle })).status).to.equal(404);

    const audit = await database.db('audit_log').where({ actor_type: 'user', actor_id: String(ownerId) });
    const actions = audit.map((row) => row.action);
    for (const action of ['integration.configure', 'integration.remove', 'payout_rail.set', 'payout_rail.remove']) {
      expect(actions, action).to.include(action);
    }
    const text = JSON.stringify(audit);
    for (const secret of [paddle, asaasKey, asaasToken]) expect(text).not.to.include(secret);
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
      for (const path of [
        `/affiliates/${anaId}`,
        '/groups',
        '/rules',
        '/webhooks',
        hookPath,
        '/integrations',
        '/audit',
      ]) {
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
