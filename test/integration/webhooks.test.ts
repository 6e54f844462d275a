import { expect } from 'chai';
import { webhookOutbox } from '../../server/services/webhooks/outbox.js';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createMerchant, type Merchant, servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { type Received, Receiver, sleep } from '../helpers/receiver.js';

const NOT_FOUND = { statusCode: 404, message: 'Webhook not found', error: 'Not Found' };

/** The receiver's view of a request, checked by the independent Standard Webhooks library. */
function verifyWith(secret: string, request: Received): unknown {
  return new StandardWebhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  });
}

describe(`webhooks API and delivery (${ENGINE})`, () => {
  const t = useTestDaemon({
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '200ms,200ms',
    WEBHOOK_POLL_MS: '50',
  });
  let shop: Merchant;
  let receiver: Receiver;

  const api = (method: string, path: string, body?: unknown, merchant: Merchant = shop) =>
    call(t.url, method, path, { key: merchant.key, body });
  const register = async (events: string[], extra: Record<string, unknown> = {}) => {
    const res = await api('POST', '/v1/webhooks', { url: receiver.url, events, ...extra });
    expect(res.status, res.text).to.equal(201);
    return res.body as { id: number; secret: string };
  };
  const deliveries = async (id: number) => (await api('GET', `/v1/webhooks/${id}/deliveries`)).body.deliveries;
  /** Polls the deliveries list until `done` holds. */
  const deliveriesWhen = async (id: number, done: (list: any[]) => boolean, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const list = await deliveries(id);
      if (done(list)) return list;
      if (Date.now() > deadline) throw new Error(`deliveries never settled: ${JSON.stringify(list)}`);
      await sleep(50);
    }
  };

  beforeEach(async () => {
    shop = t.merchant;
    receiver = await new Receiver().start();
  });
  afterEach(async () => receiver.stop());

  describe('endpoints', () => {
    it('201 with the secret once; later answers never show it, and the database holds it encrypted', async () => {
      const res = await api('POST', '/v1/webhooks', {
        url: receiver.url,
        events: ['affiliate.created', 'conversion.created'],
        description: 'CRM',
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ url: receiver.url, description: 'CRM', status: 'enabled', disabledReason: null });
      expect(res.body.events).to.deep.equal(['affiliate.created', 'conversion.created']);
      expect(res.body.secret).to.match(/^whsec_[A-Za-z0-9+/]{32}$/);
      expect(Buffer.from(res.body.secret.slice(6), 'base64')).to.have.length(24);

      const got = await api('GET', `/v1/webhooks/${res.body.id}`);
      expect(got.status).to.equal(200);
      expect(got.body).to.not.have.property('secret');
      expect(got.text).to.not.include(res.body.secret.slice(6));
      const list = await api('GET', '/v1/webhooks');
      expect(list.body).to.deep.include({ total: 1, page: 1, limit: 50, totalPages: 1 });
      expect(list.text).to.not.include(res.body.secret.slice(6));
      const row = await t.db('webhook_endpoints').where('id', res.body.id).first();
      expect(JSON.stringify(row)).to.not.include(res.body.secret.slice(6));
    });

    it('400 for a URL that is not http(s), an unknown or repeated event, none, or an unknown field', async () => {
      const bad = async (body: unknown, message: string) => {
        const res = await api('POST', '/v1/webhooks', body);
        expect(res.status).to.equal(400);
        expect(res.body.message).to.include(message);
      };
      await bad(
        { url: 'ftp://example.com/x', events: ['affiliate.created'] },
        'url must be an http:// or https:// URL',
      );
      await bad({ url: 'not a url', events: ['affiliate.created'] }, 'url must be an http:// or https:// URL');
      await bad(
        { url: receiver.url, events: ['affiliate.eaten'] },
        'events.0 must be one of the following values: ' +
          'affiliate.created, affiliate.updated, affiliate.deleted, affiliate.applied, affiliate.approved, ' +
          'conversion.created, conversion.approved, ' +
          'conversion.rejected, conversion.paid, conversion.refunded, payout.created, payout.paid, payout.failed, payout.processing',
      );
      await bad({ url: receiver.url, events: [] }, 'events must contain at least 1 elements');
      await bad({ url: receiver.url, events: ['payout.paid', 'payout.paid'] }, 'events must not repeat an event type');
      await bad({ url: receiver.url, events: ['payout.paid'], secret: 'x' }, 'property secret should not exist');
      expect(await t.db('webhook_endpoints').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    });

    it('PATCH changes what it is given; another campaign’s endpoint is 404 on every route', async () => {
      const { id } = await register(['affiliate.created']);
      const patched = await api('PATCH', `/v1/webhooks/${id}`, { events: ['payout.paid'], description: 'ERP' });
      expect(patched.status).to.equal(200);
      expect(patched.body).to.include({ url: receiver.url, description: 'ERP', status: 'enabled' });
      expect(patched.body.events).to.deep.equal(['payout.paid']);
      const cleared = await api('PATCH', `/v1/webhooks/${id}`, { description: null });
      expect(cleared.body.description).to.equal(null);

      const other = await createMerchant(t.db);
      for (const [method, path] of [
        ['GET', `/v1/webhooks/${id}`],
        ['PATCH', `/v1/webhooks/${id}`],
        ['DELETE', `/v1/webhooks/${id}`],
        ['POST', `/v1/webhooks/${id}/rotate-secret`],
        ['POST', `/v1/webhooks/${id}/test`],
        ['GET', `/v1/webhooks/${id}/deliveries`],
        ['POST', `/v1/webhooks/${id}/deliveries/1/retry`],
      ] as const) {
        const res = await api(method, path, method === 'PATCH' ? { description: 'x' } : undefined, other);
        expect(res.body, `${method} ${path}`).to.deep.equal(NOT_FOUND);
      }
      expect((await api('GET', '/v1/webhooks', undefined, other)).body.total).to.equal(0);
      expect((await api('GET', '/v1/webhooks/abc')).status).to.equal(400);
    });
  });

  describe('delivery', () => {
    it('test: 202, then one signed POST that the Standard Webhooks library verifies; the attempt is listed', async () => {
      const { id, secret } = await register(['payout.paid']);
      const res = await api('POST', `/v1/webhooks/${id}/test`);
      expect(res.status).to.equal(202);
      expect(res.body).to.include({ eventType: 'webhook.test', status: 'pending' });
      expect(res.body.messageId).to.match(/^msg_/);
      const [request] = await receiver.waitFor(1);
      if (!request) throw new Error('no request');
      expect(request.headers['content-type']).to.equal('application/json');
      expect(request.headers['webhook-id']).to.equal(res.body.messageId);
      expect(Number(request.headers['webhook-timestamp'])).to.be.closeTo(Date.now() / 1000, 10);
      const payload = verifyWith(secret, request) as { type: string; data: { webhookId: number } };
      expect(payload.type).to.equal('webhook.test');
      expect(payload.data.webhookId).to.equal(id);
      expect(() => verifyWith(`whsec_${Buffer.alloc(24, 1).toString('base64')}`, request)).to.throw();

      const [delivery] = await deliveriesWhen(id, (list) => list[0]?.status === 'succeeded');
      expect(delivery).to.include({ id: res.body.id, messageId: res.body.messageId, nextAttemptAt: null });
      expect(delivery.attempts).to.have.length(1);
      expect(delivery.attempts[0]).to.include({ statusCode: 200, error: null, response: 'ok' });
      expect(delivery.attempts[0].durationMs).to.be.a('number');
    });

    it('affiliate.created, .updated and .deleted carry the affiliate as the API answers it; only subscribed types', async () => {
      const { id, secret } = await register(['affiliate.created', 'affiliate.deleted']);
      const created = await api('POST', '/v1/affiliates', { email: 'ana@example.com', password: 'secret1' });
      await api('PATCH', `/v1/affiliates/${created.body.id}`, { name: 'Ana' });
      const gone = await api('GET', `/v1/affiliates/${created.body.id}`);
      await api('DELETE', `/v1/affiliates/${created.body.id}`);
      const requests = await receiver.waitFor(2);
      await sleep(300);
      expect(receiver.received).to.have.length(2);
      const payloads = requests.map((r) => verifyWith(secret, r) as { type: string; data: unknown; timestamp: string });
      const byType = Object.fromEntries(payloads.map((p) => [p.type, p]));
      expect(Object.keys(byType).sort()).to.deep.equal(['affiliate.created', 'affiliate.deleted']);
      expect(byType['affiliate.created']?.data).to.deep.equal(created.body);
      expect(byType['affiliate.deleted']?.data).to.deep.equal(gone.body);
      expect(new Date(byType['affiliate.created']?.timestamp ?? '').toISOString()).to.equal(
        byType['affiliate.created']?.timestamp,
      );
      expect(await deliveries(id)).to.have.length(2);
    });

    it('a change that rolls back sends nothing', async () => {
      await register(['affiliate.created']);
      await api('POST', '/v1/affiliates', { email: 'ana@example.com', password: 'secret1' });
      const refused = await api('POST', '/v1/affiliates', { email: 'ANA@example.com', password: 'secret1' });
      expect(refused.status).to.equal(409);
      await receiver.waitFor(1);
      await sleep(300);
      expect(receiver.received).to.have.length(1);
      expect(await t.db('webhook_messages').count({ n: '*' }).first()).to.deep.equal({ n: 1 });
    });

    it('a lifecycle change (payout.paid) is sent if its transaction commits, never if it rolls back', async () => {
      const { secret } = await register(['payout.paid']);
      const outbox = webhookOutbox({ now: () => new Date() });
      const events = [{ type: 'payout.paid' as const, campaignId: shop.campaignId, data: { id: 9, amount: 12.5 } }];
      const rolledBack = t.db.transaction(async (trx) => {
        await outbox.record(trx, events);
        throw new Error('the payout failed to save');
      });
      expect(
        await rolledBack.then(
          () => 'committed',
          (err: Error) => err.message,
        ),
      ).to.equal('the payout failed to save');
      expect(await t.db('webhook_messages').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
      await t.db.transaction((trx) => outbox.record(trx, events));
      const [request] = await receiver.waitFor(1);
      if (!request) throw new Error('no request');
      expect(verifyWith(secret, request)).to.deep.include({ type: 'payout.paid', data: { id: 9, amount: 12.5 } });
    });

    it('conversion.created for each conversion intake stores, with the conversion in camelCase', async () => {
      const { secret } = await register(['conversion.created']);
      const affiliate = await addAffiliate(t.db, shop.campaignId);
      const res = await api('POST', '/v1/events', {
        events: [
          conversion(shop.publicId, affiliate.code, 'order-1', 100),
          conversion(shop.publicId, affiliate.code, 'order-2', 12.5),
          conversion(shop.publicId, affiliate.code, 'order-1', 100),
        ],
      });
      expect(res.body.accepted).to.equal(2);
      const requests = await receiver.waitFor(2);
      await sleep(300);
      expect(receiver.received).to.have.length(2);
      const data = requests
        .map((r) => (verifyWith(secret, r) as { data: Record<string, unknown> }).data)
        .sort((a, b) => String(a.orderId).localeCompare(String(b.orderId)));
      expect(
        data.map((d) => [d.orderId, d.orderValue, d.commission, d.status, d.affiliateId, d.referralId]),
      ).to.deep.equal([
        ['order-1', 100, 10, 'pending', affiliate.id, affiliate.code],
        ['order-2', 12.5, 1.25, 'pending', affiliate.id, affiliate.code],
      ]);
      expect(data[0]).to.include.keys('id', 'payoutId', 'occurredAt', 'createdAt', 'properties');
    });

    it('conversion.created carries each conversion exactly as GET /v1/conversions/{id} answers it, second tiers too', async () => {
      const { secret } = await register(['conversion.created']);
      const parent = await addAffiliate(t.db, shop.campaignId, { code: 'Parent-Ana' });
      const child = await addAffiliate(t.db, shop.campaignId, { code: 'Child-Bia' });
      await t.db('affiliates').where('id', child.id).update({ parent_affiliate_id: parent.id });
      await servicesFor(t.db).campaigns.update(shop.campaignId, { secondTierPercent: 10 });
      const childRow = await t.db('affiliates').where('id', child.id).first<{ email: string } | undefined>('email');
      if (!childRow) throw new Error('no affiliate');
      const childEmail = childRow.email;
      const res = await api('POST', '/v1/events', {
        events: [
          // The code as a visitor typed it: the payload names the affiliate's own code.
          conversion(shop.publicId, 'child-bia', 'order-tiered', 1234.56, {
            properties: {
              order_id: 'order-tiered',
              order_value: 1234.56,
              product: 'Plano Pro',
              coupon: 'ÁGUA',
              customer_email: childEmail.toUpperCase(),
            },
          }),
          conversion(shop.publicId, parent.code, 'order-plain', 0.1),
        ],
      });
      expect(res.body.accepted, res.text).to.equal(2);
      const requests = await receiver.waitFor(3);
      const data = requests.map((r) => (verifyWith(secret, r) as { data: { id: number } }).data);
      expect(data.map((d) => (d as { kind?: string }).kind).sort()).to.deep.equal(['sale', 'sale', 'second_tier']);
      expect(data.some((d) => (d as { flags?: string[] }).flags?.includes('self_referral'))).to.equal(true);
      for (const sent of data) {
        const got = await api('GET', `/v1/conversions/${sent.id}`);
        expect(sent, `conversion ${sent.id}`).to.deep.equal(got.body);
      }
    });

    it('a receiver that fails twice then answers 200 gets the message three times with one webhook-id', async () => {
      receiver.respond((n) => (n <= 2 ? 500 : 200));
      const { id, secret } = await register(['affiliate.created']);
      await api('POST', '/v1/affiliates', { email: 'ana@example.com', password: 'secret1' });
      const requests = await receiver.waitFor(3);
      expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).to.equal(1);
      for (const request of requests) verifyWith(secret, request);
      // The schedule's waits (200 ms) lie between the attempts.
      expect((requests[1]?.at ?? 0) - (requests[0]?.at ?? 0)).to.be.at.least(150);
      const [delivery] = await deliveriesWhen(id, (list) => list[0]?.status === 'succeeded');
      expect(delivery.attempts.map((a: { statusCode: number }) => a.statusCode)).to.deep.equal([500, 500, 200]);
      expect(delivery.attempts[0].response).to.equal('nope');
    });

    it('after the last attempt a delivery is failed; retry sends it once more, now', async () => {
      receiver.respond(() => 503);
      const { id } = await register(['affiliate.created']);
      await api('POST', '/v1/affiliates', { email: 'ana@example.com', password: 'secret1' });
      const [failed] = await deliveriesWhen(id, (list) => list[0]?.status === 'failed');
      expect(failed.attempts).to.have.length(3);
      expect(failed.nextAttemptAt).to.equal(null);
      expect(receiver.received).to.have.length(3);

      receiver.respond(() => 204);
      const retried = await api('POST', `/v1/webhooks/${id}/deliveries/${failed.id}/retry`);
      expect(retried.status).to.equal(202);
      expect(retried.body).to.include({ id: failed.id, status: 'pending' });
      const [done] = await deliveriesWhen(id, (list) => list[0]?.status === 'succeeded');
      expect(done.attempts.map((a: { statusCode: number }) => a.statusCode)).to.deep.equal([503, 503, 503, 204]);
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).to.equal(1);
      const missing = await api('POST', `/v1/webhooks/${id}/deliveries/${failed.id + 1000}/retry`);
      expect(missing.body).to.deep.equal({ statusCode: 404, message: 'Delivery not found', error: 'Not Found' });
    });

    it('a network error is an attempt with no status and the reason', async () => {
      const { id } = await register(['affiliate.created']);
      await receiver.stop();
      await api('POST', '/v1/affiliates', { email: 'ana@example.com', password: 'secret1' });
      const [delivery] = await deliveriesWhen(id, (list) => list[0]?.attempts.length >= 1);
      expect(delivery.attempts[0]).to.include({ statusCode: null, error: 'connection refused', response: null });
    });

    it('a slow endpoint holds at most 4 deliveries in flight and never delays another endpoint', async () => {
      const slow = await new Receiver(() => 'hang').start();
      try {
        await api('POST', '/v1/webhooks', { url: slow.url, events: ['affiliate.created'] });
        await register(['affiliate.created']);
        for (let i = 0; i < 10; i++) {
          await api('POST', '/v1/affiliates', { email: `a${i}@example.com`, password: 'secret1' });
        }
        await receiver.waitFor(10);
        await sleep(300);
        expect(slow.received).to.have.length(4);
        expect(slow.maxOpen).to.equal(4);
        slow.respond(() => 200);
        slow.releaseHung();
        await slow.waitFor(10);
        expect(slow.maxOpen).to.equal(4);
      } finally {
        await slow.stop();
      }
    });

    it('a disabled endpoint and a deleted one get nothing', async () => {
      const disabled = await register(['affiliate.created']);
      const deleted = await register(['affiliate.created']);
      const off = await api('PATCH', `/v1/webhooks/${disabled.id}`, { status: 'disabled' });
      expect(off.body.status).to.equal('disabled');
      const removed = await api('DELETE', `/v1/webhooks/${deleted.id}`);
      expect(removed.body).to.deep.equal({ success: true, message: 'Webhook deleted successfully' });
      expect((await api('GET', `/v1/webhooks/${deleted.id}`)).body).to.deep.equal(NOT_FOUND);

      await api('POST', '/v1/affiliates', { email: 'ana@example.com', password: 'secret1' });
      const test = await api('POST', `/v1/webhooks/${disabled.id}/test`);
      expect(test.body).to.deep.equal({
        statusCode: 409,
        message: 'Webhook is disabled: enable it first (PATCH status enabled)',
        error: 'Conflict',
      });
      await sleep(500);
      expect(receiver.received).to.have.length(0);
      expect(await deliveries(disabled.id)).to.deep.equal([]);
    });

    it('an endpoint whose deliveries all failed for 5 days is disabled, and says so', async () => {
      receiver.respond(() => 500);
      const { id } = await register(['affiliate.created']);
      await api('POST', `/v1/webhooks/${id}/test`);
      await deliveriesWhen(id, (list) => list[0]?.attempts.length >= 1);
      expect((await api('GET', `/v1/webhooks/${id}`)).body.status).to.equal('enabled');
      // The failing streak began six days ago.
      await t
        .db('webhook_endpoints')
        .where('id', id)
        .update({ failing_since: new Date(Date.now() - 6 * 864e5) });
      await api('POST', `/v1/webhooks/${id}/test`);
      const deadline = Date.now() + 10_000;
      let endpoint = (await api('GET', `/v1/webhooks/${id}`)).body;
      while (endpoint.status === 'enabled' && Date.now() < deadline) {
        await sleep(50);
        endpoint = (await api('GET', `/v1/webhooks/${id}`)).body;
      }
      expect(endpoint.status).to.equal('disabled');
      expect(endpoint.disabledReason).to.match(/every delivery attempt failed for 5 days/);
      const enabled = await api('PATCH', `/v1/webhooks/${id}`, { status: 'enabled' });
      expect(enabled.body).to.include({ status: 'enabled', disabledReason: null });
    });
  });
});
