import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import { createMerchant, type Merchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { Receiver, sleep } from '../helpers/receiver.js';

const count = async (query: PromiseLike<Array<Record<string, unknown>>>) => Number((await query)[0]?.n ?? 0);

describe(`webhook messages are recorded once and fanned out at delivery (${ENGINE})`, () => {
  describe('intake', () => {
    // A worker that looks for work once, at start: what intake writes stays as it wrote it.
    const t = useTestDaemon({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_MS: '600000',
      WEBHOOK_MAX_ENDPOINTS: '1000',
    });

    it('a 300-conversion batch to a campaign with 500 endpoints writes 300 messages and keeps another campaign’s page view quick', async () => {
      const crowded = t.merchant;
      for (let i = 0; i < 500; i += 25) {
        const created = await Promise.all(
          Array.from({ length: 25 }, (_, j) =>
            call(t.url, 'POST', '/v1/webhooks', {
              key: crowded.key,
              body: { url: `http://127.0.0.1:9/hooks/${i + j}`, events: ['conversion.created'] },
            }),
          ),
        );
        for (const res of created) expect(res.status, res.text).to.equal(201);
      }
      const seller = await addAffiliate(t.db, crowded.campaignId);
      const other = await createMerchant(t.db);
      const visitor = await addAffiliate(t.db, other.campaignId);

      const batch = Array.from({ length: 300 }, (_, i) => conversion(crowded.publicId, seller.code, `order-${i}`, 10));
      const big = call(t.url, 'POST', '/v1/events', { key: crowded.key, body: { events: batch } });
      await sleep(20);
      const asked = Date.now();
      const small = await call(t.url, 'POST', '/v1/events', {
        key: other.key,
        body: { events: [pageView(other.publicId, visitor.code)] },
      });
      const waited = Date.now() - asked;
      expect(small.status).to.equal(200);
      expect((await big).body).to.include({ accepted: 300 });

      // One message per change; deliveries are the worker's business, not intake's.
      expect(await count(t.db('webhook_messages').where('campaign_id', crowded.campaignId).count({ n: '*' }))).to.equal(
        300,
      );
      expect(await count(t.db('webhook_deliveries').count({ n: '*' }))).to.equal(0);
      expect(waited).to.be.below(1500);
    });
  });

  describe('delivery', () => {
    const t = useTestDaemon({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '50' });
    let receiver: Receiver;

    beforeEach(async () => {
      receiver = await new Receiver(() => 200).start();
    });
    afterEach(async () => receiver.stop());

    const register = async (merchant: Merchant, path: string, events: string[]) => {
      const res = await call(t.url, 'POST', '/v1/webhooks', {
        key: merchant.key,
        body: { url: `${receiver.url}/${path}`, events },
      });
      expect(res.status, res.text).to.equal(201);
      return res.body as { id: number };
    };

    it('each enabled endpoint subscribed to a change gets its message once; others and later endpoints get nothing', async () => {
      const shop = t.merchant;
      await register(shop, 'a', ['conversion.created']);
      await register(shop, 'b', ['conversion.created', 'affiliate.created']);
      await register(shop, 'other-type', ['payout.paid']);
      const off = await register(shop, 'disabled', ['conversion.created']);
      await call(t.url, 'PATCH', `/v1/webhooks/${off.id}`, { key: shop.key, body: { status: 'disabled' } });
      const elsewhere = await createMerchant(t.db);
      await register(elsewhere, 'elsewhere', ['conversion.created']);

      const seller = await addAffiliate(t.db, shop.campaignId);
      const events = Array.from({ length: 5 }, (_, i) => conversion(shop.publicId, seller.code, `order-${i}`, 10));
      expect((await call(t.url, 'POST', '/v1/events', { key: shop.key, body: { events } })).body.accepted).to.equal(5);
      await receiver.waitFor(10);
      // Registered after the changes: it gets none of them.
      await register(shop, 'late', ['conversion.created']);
      await sleep(500);

      const paths = receiver.received.map((r) => r.url).sort();
      expect(paths).to.deep.equal([...Array(5).fill('/hooks/a'), ...Array(5).fill('/hooks/b')]);
      const ids = (path: string) =>
        receiver.received
          .filter((r) => r.url === path)
          .map((r) => String(r.headers['webhook-id']))
          .sort();
      expect(ids('/hooks/a')).to.deep.equal(ids('/hooks/b'));
      expect(new Set(ids('/hooks/a')).size).to.equal(5);
    });
  });

  describe('fan-out across campaigns', () => {
    const t = useTestDaemon({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_MAX_ENDPOINTS: '1000',
    });

    it('a campaign with 300 endpoints and 100 changes to fan out does not hold back another campaign’s message', async () => {
      const receiver = await new Receiver(() => 200).start();
      try {
        const crowded = t.merchant;
        for (let i = 0; i < 300; i += 25) {
          await Promise.all(
            Array.from({ length: 25 }, (_, j) =>
              call(t.url, 'POST', '/v1/webhooks', {
                key: crowded.key,
                // Nothing listens there: each attempt fails at once.
                body: { url: `http://127.0.0.1:9/hooks/${i + j}`, events: ['conversion.created'] },
              }),
            ),
          );
        }
        const seller = await addAffiliate(t.db, crowded.campaignId);
        const batch = Array.from({ length: 100 }, (_, i) => conversion(crowded.publicId, seller.code, `o-${i}`, 10));
        expect(
          (await call(t.url, 'POST', '/v1/events', { key: crowded.key, body: { events: batch } })).status,
        ).to.equal(200);

        const other = await createMerchant(t.db);
        const endpoint = await call(t.url, 'POST', '/v1/webhooks', {
          key: other.key,
          body: { url: receiver.url, events: ['affiliate.created'] },
        });
        expect(endpoint.status).to.equal(201);
        await call(t.url, 'POST', '/v1/affiliates', {
          key: other.key,
          body: { email: 'ana@example.com', password: 'secret1' },
        });
        await receiver.waitFor(1, 20_000);
        // The order, not a stopwatch: the other campaign's message has arrived while most of the
        // crowded campaign's 30,000 deliveries are still to be written (counted after the arrival,
        // so fewer were written when it arrived). Behind a campaign's fan-out it would come last.
        const written = await count(t.db('webhook_deliveries').count({ n: '*' }));
        expect(written).to.be.below(30_000);
      } finally {
        await receiver.stop();
      }
    });
  });

  describe('endpoints per campaign', () => {
    const t = useTestDaemon({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_MAX_ENDPOINTS: '3' });

    it('10 registrations at once against a cap of 3: exactly 3 are created, the rest 409 naming the cap; a deletion makes room', async () => {
      const create = (i: number) =>
        call(t.url, 'POST', '/v1/webhooks', {
          key: t.merchant.key,
          body: { url: `http://127.0.0.1:9/hooks/${i}`, events: ['affiliate.created'] },
        });
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => create(i)));
      const created = answers.filter((res) => res.status === 201);
      expect(created).to.have.length(3);
      for (const res of answers.filter((r) => r.status !== 201)) {
        expect(res.body).to.deep.equal({
          statusCode: 409,
          message: MESSAGES.webhookEndpointLimit(3),
          error: 'Conflict',
        });
      }
      expect((await call(t.url, 'GET', '/v1/webhooks', { key: t.merchant.key })).body.total).to.equal(3);
      // Another campaign has its own three.
      const other = await createMerchant(t.db);
      const theirs = await call(t.url, 'POST', '/v1/webhooks', {
        key: other.key,
        body: { url: 'http://127.0.0.1:9/hooks/x', events: ['affiliate.created'] },
      });
      expect(theirs.status).to.equal(201);

      const gone = await call(t.url, 'DELETE', `/v1/webhooks/${created[0]?.body.id}`, { key: t.merchant.key });
      expect(gone.status).to.equal(200);
      expect((await create(99)).status).to.equal(201);
      expect((await create(100)).status).to.equal(409);
    });
  });
});
