import { expect } from 'chai';
import { request } from 'undici';
import { dashboardRoutes } from '../../server/dashboard/index.js';
import { createLogger } from '../../server/logger.js';
import { type Daemon, startDaemon } from '../../server/main.js';
import { tokenFor } from '../../server/portal/security.js';
import { dashboardSessions } from '../../server/services/dashboard/sessions.js';
import { createMerchant, type Merchant, servicesFor, testConfig } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { conversion } from '../helpers/events.js';
import { call } from '../helpers/http.js';

/** The forms a browser posts before it has a whole session (log-in, set-up link, second factor, log-out). */
// The passkey ceremonies also serve a session still waiting for its second factor (docs/dashboard.md#passkeys).
const BEFORE_SESSION = [
  '/login',
  '/logout',
  '/setup',
  '/factor',
  '/factor/passkey/options',
  '/factor/passkey',
  '/passkeys/options',
  '/passkeys',
];
/**
 * What role each of the other forms needs (docs/dashboard.md#users-and-roles). A form added to the
 * dashboard must be added here: the first test fails until the suite knows what to refuse.
 */
const NEEDS: Record<string, 'change' | 'keys' | 'users' | 'own'> = {
  '/affiliates/approve': 'change',
  '/conversions/status': 'change',
  '/payouts/run': 'change',
  '/payouts/paid': 'change',
  '/payouts/runs': 'change',
  '/payouts/runs/approve': 'change',
  '/settings/keys': 'keys',
  '/settings/keys/revoke': 'keys',
  '/users': 'users',
  '/users/role': 'users',
  '/users/remove': 'users',
  '/webhooks': 'change',
  '/webhooks/remove': 'change',
  '/groups': 'change',
  '/groups/update': 'change',
  '/groups/remove': 'change',
  // Every user's own passkeys, whatever the role: another's id is not found (404).
  '/passkeys/remove': 'own',
  // Webhooks and integrations: an endpoint edited, its secret rotated, a delivery retried, a test
  // sent; a billing provider's or a payout rail's credentials set or removed.
  '/webhooks/update': 'change',
  '/webhooks/rotate-secret': 'change',
  '/webhooks/test': 'change',
  '/webhooks/retry': 'change',
  '/integrations/billing': 'change',
  '/integrations/billing/remove': 'change',
  '/integrations/rails': 'change',
  '/integrations/rails/remove': 'change',
  // One affiliate's edit and coupons, and a payout sent on its rail (docs/dashboard.md#pages).
  '/affiliates/update': 'change',
  '/affiliates/coupons': 'change',
  '/affiliates/coupons/remove': 'change',
  '/payouts/send': 'change',
};
/** Who may not post each kind of form: the roles below it. */
const REFUSED: Record<'change' | 'keys' | 'users' | 'own', string[]> = {
  change: ['viewer'],
  keys: ['viewer', 'admin'],
  users: ['viewer', 'admin'],
  own: [],
};
/** What the forms could change: compared whole before and after every refused post. */
const TABLES = [
  'affiliates',
  'conversions',
  'payouts',
  'api_keys',
  'dashboard_users',
  'dashboard_tokens',
  'dashboard_passkeys',
  'payout_runs',
  'webhook_endpoints',
  'affiliate_groups',
  'audit_log',
  // What the webhooks and integrations forms change besides the endpoints.
  'webhook_deliveries',
  'webhook_retired_secrets',
  'billing_integrations',
  'payout_rails',
  'affiliate_coupons',
  'payout_sends',
];

/**
 * The security suite's part for the merchant dashboard (docs/dashboard.md#the-security-model): every
 * form of the dashboard, taken from its router, posted without its CSRF token, with a foreign
 * `Origin`, by a role that may not use it and by another campaign's user, is refused and changes
 * nothing; and forms of made-up fields never get a 500.
 */
describe(`the dashboard's forms refuse forged posts (${ENGINE})`, function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let daemon: Daemon;
  const config = () => testConfig(database.url, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  let merchant: Merchant;
  let other: Merchant;
  const cookies: Record<string, string> = {};
  const bodies: Record<string, Record<string, string>> = {};

  /** A session as a log-in leaves one (the log-in itself is the browser suite's). */
  async function sessionOf(campaign: string, role: string): Promise<string> {
    const made = await servicesFor(database.db).dashboard.operator.create({
      campaign,
      email: `${role}-${campaign}@shop.example`,
      role,
    });
    if (made.state !== 'created') throw new Error(`no ${role}`);
    return dashboardSessions(database.db).open(database.db, made.user.id, false, new Date());
  }

  async function snapshot(): Promise<string> {
    const rows = await Promise.all(TABLES.map((table) => database.db(table).select('*').orderBy('id')));
    return JSON.stringify(rows);
  }

  function post(publicId: string, path: string, form: Record<string, string>, headers: Record<string, string>) {
    return request(`${daemon.url}/dashboard/${publicId}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
  }

  const cookie = (secret: string) => `affiliated_dashboard=${secret}`;
  const token = (secret: string, publicId: string) => tokenFor(secret, `dashboard:${publicId}`);

  before(async () => {
    database = await createTestDatabase();
    daemon = await startDaemon(config(), {
      logger: createLogger('silent'),
    });
    merchant = await createMerchant(database.db);
    other = await createMerchant(database.db);
    const services = daemon.services;
    for (const role of ['owner', 'admin', 'viewer']) cookies[role] = await sessionOf(merchant.publicId, role);
    cookies.stranger = await sessionOf(other.publicId, 'owner');

    // Something for every form to change, were it let through.
    const ana = await services.affiliates.create(merchant.campaignId, {
      email: 'ana@example.com',
      password: 'ana-password',
      referralId: 'ANA',
    });
    const pending = await services.affiliates.create(merchant.campaignId, {
      email: 'bia@example.com',
      password: 'bia-password',
      status: 'pending',
    });
    const events = ['P-1', 'P-2'].map((order) => conversion(merchant.publicId, ana.referralId, order, 100));
    expect((await call(daemon.url, 'POST', '/v1/events', { key: merchant.key, body: { events } })).status).to.equal(
      200,
    );
    const [first, second] = (await services.conversions.list(merchant.campaignId, { page: 1, limit: 10 })).conversions;
    await services.conversions.bulkUpdate(merchant.campaignId, { status: 'approved', ids: [first?.id ?? 0] });
    const payout = (await services.payouts.createMany(merchant.campaignId)).created[0];
    const group = await services.groups.create(merchant.campaignId, {
      name: 'VIP',
      commissionType: 'percent',
      commissionValue: 20,
    });
    const hook = await services.webhooks.create(merchant.campaignId, {
      url: 'http://127.0.0.1:9/hook',
      events: ['affiliate.created'],
    });
    const owner = { campaignId: merchant.campaignId, publicId: merchant.publicId };
    await services.integrations.put(owner, 'stripe', { signingSecret: 'whsec_connected_secret_1' });
    await services.payoutRails.put(owner, 'pix', { apiKey: '$aact_connected_key_1' });
    await services.coupons.create(merchant.campaignId, ana.id, { code: 'ANA-OFF' });
    const viewer = await database.db('dashboard_users').where({ email: `viewer-${merchant.publicId}@shop.example` });
    Object.assign(bodies, {
      '/affiliates/approve': { id: String(pending.id) },
      '/conversions/status': { [`c${second?.id}`]: 'on', action: 'reject' },
      '/payouts/run': {},
      '/payouts/paid': { id: String(payout?.id) },
      '/payouts/runs': {},
      '/payouts/runs/approve': { id: '1' },
      '/settings/keys': { name: 'forged' },
      '/settings/keys/revoke': { id: String(merchant.keyId) },
      '/users': { email: 'new@shop.example', role: 'owner' },
      '/users/role': { id: String(viewer[0]?.id), role: 'owner' },
      '/users/remove': { id: String(viewer[0]?.id) },
      '/webhooks': { url: 'http://127.0.0.1:9/other', 'ev_affiliate.created': 'on' },
      '/webhooks/remove': { id: String(hook.id) },
      '/groups': { name: 'Forged', commissionType: 'fixed', commissionValue: '5' },
      '/groups/update': { id: String(group.id), name: 'Forged' },
      '/groups/remove': { id: String(group.id) },
      '/passkeys/remove': { id: '1' },
      '/webhooks/update': { id: String(hook.id), url: 'http://127.0.0.1:9/forged', status: 'disabled' },
      '/webhooks/rotate-secret': { id: String(hook.id) },
      '/webhooks/test': { id: String(hook.id) },
      '/webhooks/retry': { id: String(hook.id), delivery: '1' },
      '/integrations/billing': { provider: 'stripe', signingSecret: 'whsec_forged_secret_1' },
      '/integrations/billing/remove': { provider: 'stripe' },
      '/integrations/rails': { rail: 'stripe', secretKey: 'sk_test_forged_key_1' },
      '/integrations/rails/remove': { rail: 'pix' },
      '/affiliates/update': { id: String(ana.id), name: 'Forged', email: 'forged@example.com', status: 'inactive' },
      '/affiliates/coupons': { id: String(ana.id), code: 'FORGED' },
      '/affiliates/coupons/remove': { id: String(ana.id), code: 'ANA-OFF' },
      '/payouts/send': { id: String(payout?.id) },
    });
  });
  after(async () => {
    await daemon?.close();
    await database?.drop();
  });

  const forms = () =>
    dashboardRoutes(config())
      .filter((r) => r.method === 'POST')
      .map((r) => r.path);

  it('knows every form of the dashboard', () => {
    expect(forms().sort()).to.deep.equal([...BEFORE_SESSION, ...Object.keys(NEEDS)].sort());
  });

  it('refuses every form without its CSRF token or with a foreign Origin (403), changing nothing', async () => {
    const secret = cookies.owner ?? '';
    const before = await snapshot();
    for (const path of forms()) {
      const form = bodies[path] ?? { email: 'owner@shop.example', password: 'x', code: '123456', token: 'x' };
      const attempts = [
        { form, headers: { cookie: cookie(secret), origin: daemon.url } },
        { form: { ...form, csrf: 'forged' }, headers: { cookie: cookie(secret), origin: daemon.url } },
        {
          form: { ...form, csrf: token(secret, merchant.publicId) },
          headers: { cookie: cookie(secret), origin: 'https://evil.example' },
        },
      ];
      for (const attempt of attempts) {
        const answer = await post(merchant.publicId, path, attempt.form, attempt.headers);
        expect(answer.statusCode, `${path} ${JSON.stringify(attempt.headers)}`).to.equal(403);
        await answer.body.dump();
      }
      expect(await snapshot(), `${path} changed something`).to.equal(before);
    }
  });

  it('refuses a form to a role that may not use it (403), with a good token, changing nothing', async () => {
    const before = await snapshot();
    for (const [path, need] of Object.entries(NEEDS)) {
      for (const role of REFUSED[need]) {
        const secret = cookies[role] ?? '';
        const answer = await post(
          merchant.publicId,
          path,
          { ...bodies[path], csrf: token(secret, merchant.publicId) },
          { cookie: cookie(secret), origin: daemon.url },
        );
        expect(answer.statusCode, `${path} as ${role}`).to.equal(403);
        expect(await answer.body.text()).to.include('Your role does not allow this');
        expect(await snapshot(), `${path} as ${role} changed something`).to.equal(before);
      }
    }
  });

  it('refuses another campaign’s user, even with a token made for this campaign, changing nothing', async () => {
    const secret = cookies.stranger ?? '';
    const before = await snapshot();
    for (const path of Object.keys(NEEDS)) {
      const answer = await post(
        merchant.publicId,
        path,
        { ...bodies[path], csrf: token(secret, merchant.publicId) },
        { cookie: cookie(secret), origin: daemon.url },
      );
      // The session is not of this campaign: its log-in page, as for no session at all.
      expect(answer.statusCode, path).to.equal(303);
      expect(answer.headers.location).to.equal(`/dashboard/${merchant.publicId}/`);
      await answer.body.dump();
      expect(await snapshot(), `${path} by another campaign's user changed something`).to.equal(before);
    }
  });

  it('answers forms of made-up values as the owner with a page, never a 500', async () => {
    const secret = cookies.owner ?? '';
    const odd = ['', '0', '-1', '99999999999', 'x'.repeat(3000), '<script>', '1e400', 'NaN', '%00', '☃'];
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (const path of Object.keys(NEEDS).filter((p) => !p.startsWith('/users') && p !== '/payouts/run')) {
      for (let round = 0; round < 6; round++) {
        const form: Record<string, string> = { csrf: token(secret, merchant.publicId) };
        const named = ['id', 'name', 'url', 'commissionType', 'commissionValue', 'description', 'action'];
        // The affiliate form's and coupons' fields too, and the webhooks' and integrations'.
        for (const name of [
          ...named,
          'email',
          'code',
          'groupId',
          'parentAffiliateId',
          'overrideType',
          'overrideValue',
          'phone',
          'referralId',
          'password',
          'status',
          'events',
          'delivery',
          'provider',
          'signingSecret',
          'rail',
          'apiKey',
          'clientId',
          'clientSecret',
          'secretKey',
          'webhookToken',
        ]) {
          if (next() % 2 === 0) form[name] = odd[next() % odd.length] ?? '';
        }
        const answer = await post(merchant.publicId, path, form, { cookie: cookie(secret), origin: daemon.url });
        const text = await answer.body.text();
        expect(answer.statusCode, `${path} ${JSON.stringify(form)}`).to.be.below(500);
        expect(text).not.to.match(/at .*\.ts:\d+|SQLITE|ER_|knex/i);
        expect(text).not.to.include('<script>');
      }
    }
  });
});
