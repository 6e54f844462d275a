import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import { createMerchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { badRequest, lifecycleApi } from '../helpers/lifecycleApi.js';

interface Entry {
  id: number;
  actor: { type: string; id: string | null; label: string | null };
  action: string;
  target: { type: string; id: string | null };
  details: { fields: string[]; figures: Record<string, number> };
  address: string | null;
  createdAt: string;
}

const PASSWORD = 'correct-horse-battery-9';
const EMAIL = 'maria.audit@example.com';
const SIGNING_SECRET = 'whsec_auditTestSigningSecret1234567890';

describe(`audit log: every change by a key, GET /v1/audit-log (${ENGINE})`, function () {
  this.timeout(120_000);
  const t = useTestDaemon({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  const { api, arrive, payout, settle } = lifecycleApi(
    () => t.url,
    () => t.merchant,
  );

  const log = async (query = '', key = t.merchant.key) => {
    const reply = await call<{ changes: Entry[]; total: number }>(t.url, 'GET', `/v1/audit-log${query}`, { key });
    expect(reply.status, reply.text).to.equal(200);
    return reply.body;
  };
  /** The one row of `action`, checked to be the merchant's key's doing from this machine. */
  const only = async (action: string): Promise<Entry> => {
    const { changes } = await log(`?action=${action}`);
    expect(changes, action).to.have.length(1);
    const [entry] = changes as [Entry];
    expect(entry.actor, action).to.deep.equal({
      type: 'key',
      id: String(t.merchant.keyId),
      label: t.merchant.key.slice(0, 8),
    });
    expect(entry.address, action).to.equal('127.0.0.1');
    return entry;
  };
  const ok = async (method: string, path: string, body?: unknown) => {
    const reply = await api(method, path, body);
    expect(reply.status, `${method} ${path}: ${reply.text}`).to.be.within(200, 204);
    return reply.body;
  };

  it('records each kind of change once, as the key, with field names and never a secret or an e-mail', async () => {
    const created = await ok('POST', '/v1/affiliates', { email: EMAIL, password: PASSWORD, name: 'Maria Audit' });
    const id = created.id as number;
    expect(await only('affiliate.create')).to.deep.include({
      target: { type: 'affiliate', id: String(id) },
      details: { fields: ['email', 'name', 'password'], figures: {} },
    });
    await ok('PATCH', `/v1/affiliates/${id}`, { email: 'new.' + EMAIL, password: PASSWORD + 'x' });
    expect((await only('affiliate.update')).details.fields).to.deep.equal(['email', 'password']);
    const pending = await ok('POST', '/v1/affiliates', { email: 'p.' + EMAIL, password: PASSWORD, status: 'pending' });
    await ok('POST', `/v1/affiliates/${pending.id}/approve`);
    expect((await only('affiliate.approve')).target.id).to.equal(String(pending.id));

    const [sale, other] = await arrive(created.referralId, [
      ['A-1', 100],
      ['A-2', 50],
    ]);
    await ok('PATCH', `/v1/conversions/${sale}`, { status: 'approved' });
    expect(await only('conversion.approve')).to.deep.include({
      target: { type: 'conversion', id: String(sale) },
      details: { fields: ['status'], figures: {} },
    });
    await ok('POST', '/v1/conversions/bulk', { status: 'rejected', ids: [other] });
    expect((await only('conversion.reject')).target.id).to.equal(String(other));
    const made = await payout(id);
    expect(made.status, made.text).to.equal(201);
    expect((await only('payout.create')).details.figures).to.deep.equal({
      affiliateId: id,
      conversions: 1,
      amount: 10,
    });
    await settle(made.body.id, 'paid');
    expect((await only('payout.mark_paid')).target.id).to.equal(String(made.body.id));
    await ok('POST', '/v1/refunds', { order_id: 'A-1', amount: 40 });
    expect((await only('refund.create')).details.figures).to.deep.include({ amount: 40, commissionRemoved: 4 });

    const group = await ok('POST', '/v1/groups', { name: 'VIP', commissionType: 'percent', commissionValue: 20 });
    await ok('PATCH', `/v1/groups/${group.id}`, { commissionValue: 25 });
    await ok('DELETE', `/v1/groups/${group.id}`);
    expect((await only('group.create')).details.fields).to.deep.equal(['commissionType', 'commissionValue', 'name']);
    expect((await only('group.update')).details.fields).to.deep.equal(['commissionValue']);
    expect((await only('group.delete')).target).to.deep.equal({ type: 'group', id: String(group.id) });

    const hook = await ok('POST', '/v1/webhooks', { url: 'https://shop.example.com/hooks', events: ['payout.paid'] });
    const rotated = await ok('POST', `/v1/webhooks/${hook.id}/rotate-secret`);
    await ok('PATCH', `/v1/webhooks/${hook.id}`, { description: 'Backend' });
    await ok('DELETE', `/v1/webhooks/${hook.id}`);
    expect((await only('webhook.create')).details.fields).to.deep.equal(['events', 'url']);
    for (const action of ['webhook.rotate_secret', 'webhook.update', 'webhook.delete']) {
      expect((await only(action)).target).to.deep.equal({ type: 'webhook', id: String(hook.id) });
    }

    await ok('PUT', '/v1/integrations/stripe', { signingSecret: SIGNING_SECRET });
    expect(await only('integration.configure')).to.deep.include({
      target: { type: 'integration', id: 'stripe' },
      details: { fields: ['signingSecret'], figures: {} },
    });
    await ok('DELETE', '/v1/integrations/stripe');
    await only('integration.remove');
    await ok('POST', `/v1/affiliates/${id}/coupons`, { code: 'MARIA10' });
    await ok('DELETE', `/v1/affiliates/${id}/coupons/MARIA10`);
    expect((await only('coupon.create')).details.figures).to.deep.equal({ affiliateId: id });
    await only('coupon.delete');

    // Nothing a person typed, nor any secret, is anywhere in the table.
    const rows = JSON.stringify(await t.db('audit_log').select('*'));
    const keyHashes = (await t.db('api_keys').select('key_hash')).map((row) => row.key_hash as string);
    const passwordHashes = (await t.db('affiliates').select('password_hash')).map((row) => row.password_hash as string);
    for (const secret of [
      t.merchant.key,
      PASSWORD,
      EMAIL,
      'Maria',
      'MARIA10',
      SIGNING_SECRET,
      hook.secret as string,
      rotated.secret as string,
      'shop.example.com',
      ...keyHashes,
      ...passwordHashes,
    ]) {
      expect(rows, secret).to.not.contain(secret);
    }
    expect(rows).to.not.contain('@');
  });

  it('deleting an affiliate keeps the counts and paid total of what the cascade erased', async () => {
    const created = await ok('POST', '/v1/affiliates', { email: EMAIL, password: PASSWORD });
    const ids = await arrive(created.referralId, [
      ['D-1', 100.1],
      ['D-2', 200.2],
      ['D-3', 5],
    ]);
    await ok('POST', '/v1/conversions/bulk', { status: 'approved', ids: [ids[0], ids[1]] });
    const first = await payout(created.id);
    await settle(first.body.id, 'paid');
    await ok('PATCH', `/v1/conversions/${ids[2]}`, { status: 'approved' });
    const second = await payout(created.id);
    await settle(second.body.id, 'paid');
    await ok('DELETE', `/v1/affiliates/${created.id}`);
    expect(await only('affiliate.delete')).to.deep.include({
      target: { type: 'affiliate', id: String(created.id) },
      // 10 % of 100.10 + 200.20 is 30.03, of 5 is 0.50: 30.53 paid in two payouts.
      details: { fields: [], figures: { conversions: 3, paidPayouts: 2, paidPayoutsTotal: 30.53 } },
    });
    // The affiliate's own rows are gone; its history in the log stays.
    expect((await log(`?targetType=affiliate&targetId=${created.id}`)).total).to.equal(2);
    expect(JSON.stringify(await t.db('audit_log').select('*'))).to.not.contain('@');
  });

  it('a refused change leaves no row: the row commits with the change or not at all', async () => {
    await ok('POST', '/v1/affiliates', { email: EMAIL, password: PASSWORD });
    const taken = await api('POST', '/v1/affiliates', { email: EMAIL, password: PASSWORD });
    expect(taken.status).to.equal(409);
    const missing = await api('PATCH', '/v1/affiliates/999999', { name: 'x' });
    expect(missing.status).to.equal(404);
    expect((await log('?actorType=key')).changes.map((entry) => entry.action)).to.deep.equal(['affiliate.create']);
  });

  it("a campaign's key sees its own campaign's changes only", async () => {
    const created = await ok('POST', '/v1/affiliates', { email: EMAIL, password: PASSWORD });
    const other = await createMerchant(t.db);
    const theirs = await call(t.url, 'POST', '/v1/groups', {
      key: other.key,
      body: { name: 'Theirs', commissionType: 'fixed', commissionValue: 5 },
    });
    expect(theirs.status, theirs.text).to.equal(201);
    // Each campaign's own making (by the test's services: `system`) comes first, then its key's changes.
    const mine = await log();
    expect(mine.changes.map((entry) => [entry.action, entry.target.id])).to.deep.equal([
      ['affiliate.create', String(created.id)],
      ['key.create', String(t.merchant.keyId)],
      ['campaign.create', String(t.merchant.campaignId)],
    ]);
    const their = await log('', other.key);
    expect(their.changes.map((entry) => [entry.action, entry.actor.type, entry.target.id])).to.deep.equal([
      ['group.create', 'key', String(theirs.body.id)],
      ['key.create', 'system', String(other.keyId)],
      ['campaign.create', 'system', String(other.campaignId)],
    ]);
    expect((await log(`?targetType=group&targetId=${theirs.body.id}`)).total).to.equal(0);
  });

  it('pages newest first, filters by actor, action and time', async () => {
    for (const n of [1, 2, 3])
      await ok('POST', '/v1/groups', { name: `G${n}`, commissionType: 'fixed', commissionValue: n });
    const page = await call(t.url, 'GET', '/v1/audit-log?actorType=key&limit=2&page=2', { key: t.merchant.key });
    expect(page.body).to.deep.include({ total: 3, page: 2, limit: 2, totalPages: 2 });
    expect(page.body.changes).to.have.length(1);
    const [, , oldest] = (await log('?actorType=key')).changes;
    expect(page.body.changes[0].target.id).to.equal(oldest?.target.id);
    expect(oldest?.target.id).to.not.equal(undefined);
    expect((await log('?actorType=operator')).total).to.equal(0);
    expect((await log('?actorType=key&action=group.create')).total).to.equal(3);
    expect((await log('?to=2000-01-01')).total).to.equal(0);
    expect((await log(`?action=group.create&from=${new Date(Date.now() - 60_000).toISOString()}`)).total).to.equal(3);
  });

  it("400 in the spec's shape for bad query parameters", async () => {
    const bad = async (query: string) =>
      (await call(t.url, 'GET', `/v1/audit-log${query}`, { key: t.merchant.key })).body;
    expect(await bad('?page=0')).to.deep.equal(badRequest(['page must not be less than 1']));
    expect(await bad('?limit=101')).to.deep.include({ statusCode: 400, error: 'Bad Request' });
    const action = await bad('?action=affiliate.explode');
    expect(action).to.deep.include({ statusCode: 400, error: 'Bad Request' });
    expect(String(action.message)).to.contain('action');
    expect(await bad('?colour=red')).to.deep.include({ statusCode: 400, error: 'Bad Request' });
    expect(await bad('?from=yesterday')).to.deep.include({ statusCode: 400, error: 'Bad Request' });
    expect(await bad('?from=2026-12-01&to=2026-11-01')).to.deep.equal(
      badRequest([MESSAGES.rangeReversed('2026-12-01', '2026-11-01')]),
    );
    expect((await call(t.url, 'GET', '/v1/audit-log')).status).to.equal(401);
  });
});
