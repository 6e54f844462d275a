import { expect } from 'chai';
import { startServe } from '../helpers/cli.js';
import { daemonUrls, GALERA_URLS, ON_CLUSTER, reachableOnEveryNode } from '../helpers/cluster.js';
import { createMerchant, type Merchant, startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { addAffiliate, conversion } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { Receiver, sleep } from '../helpers/receiver.js';

/** Daemons as separate processes (`affiliated serve`), so one can be SIGKILLed. */
const serveEnv = (t: TestDatabase, env: Record<string, string> = {}) => ({
  DATABASE_URL: t.url,
  BCRYPT_ROUNDS: '4',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_POLL_MS: '50',
  ...env,
});

describe(`webhook outbox survives a killed daemon; several daemons deliver once (${ENGINE})`, () => {
  let t: TestDatabase;
  let shop: Merchant;
  let receiver: Receiver;
  const kill: Array<() => void> = [];

  before(async () => {
    t = await createTestDatabase();
  });
  after(async () => t.drop());
  beforeEach(async () => {
    shop = await createMerchant(t.db);
    receiver = await new Receiver().start();
  });
  afterEach(async () => {
    for (const k of kill.splice(0)) k();
    await receiver.stop();
  });

  const serve = async (env: Record<string, string> = {}) => {
    const daemon = await startServe({ env: serveEnv(t, env) });
    kill.push(() => daemon.child.kill('SIGKILL'));
    return daemon;
  };

  it('a daemon SIGKILLed right after the commit: the next daemon delivers the message', async () => {
    // This daemon looks for due deliveries once, at start, and then not for ten minutes.
    const first = await serve({ WEBHOOK_POLL_MS: '600000' });
    const registered = await call(first.url, 'POST', '/v1/webhooks', {
      key: shop.key,
      body: { url: receiver.url, events: ['affiliate.created'] },
    });
    expect(registered.status).to.equal(201);
    const created = await call(first.url, 'POST', '/v1/affiliates', {
      key: shop.key,
      body: { email: 'ana@example.com', password: 'secret1' },
    });
    expect(created.status).to.equal(201);
    first.child.kill('SIGKILL');
    await first.done;
    expect(receiver.received).to.have.length(0);

    await serve();
    const [request] = await receiver.waitFor(1);
    const payload = JSON.parse(request?.body ?? '{}');
    expect(payload.type).to.equal('affiliate.created');
    expect(payload.data).to.deep.equal(created.body);
    await sleep(300);
    expect(receiver.received).to.have.length(1);
  });

  it('a daemon killed mid-attempt leaves the delivery to another after the lease', async () => {
    receiver.respond((n) => (n === 1 ? 'hang' : 200));
    const first = await serve({ WEBHOOK_LEASE_MS: '1500', WEBHOOK_ATTEMPT_TIMEOUT_MS: '1000' });
    const registered = await call(first.url, 'POST', '/v1/webhooks', {
      key: shop.key,
      body: { url: receiver.url, events: ['affiliate.created'] },
    });
    await call(first.url, 'POST', `/v1/webhooks/${registered.body.id}/test`, { key: shop.key });
    await receiver.waitFor(1);
    first.child.kill('SIGKILL');
    await first.done;

    const second = await serve({ WEBHOOK_LEASE_MS: '1500', WEBHOOK_ATTEMPT_TIMEOUT_MS: '1000' });
    const requests = await receiver.waitFor(2);
    expect(requests[1]?.headers['webhook-id']).to.equal(requests[0]?.headers['webhook-id']);
    // Not before the first daemon's lease ran out.
    expect((requests[1]?.at ?? 0) - (requests[0]?.at ?? 0)).to.be.at.least(1000);
    // The receiver has the request before the daemon records its answer: wait for the record.
    const attempts = async () => {
      const list = await call(second.url, 'GET', `/v1/webhooks/${registered.body.id}/deliveries`, { key: shop.key });
      return list.body.deliveries[0].attempts.map((a: { statusCode: number }) => a.statusCode) as number[];
    };
    let recorded = await attempts();
    for (
      const deadline = Date.now() + 5000;
      recorded.length === 0 && Date.now() < deadline;
      recorded = await attempts()
    ) {
      await sleep(50);
    }
    expect(recorded).to.deep.equal([200]);
  });

  // On a Galera cluster (npm run test:cluster), one daemon per node: claims race across nodes.
  const count = ON_CLUSTER ? GALERA_URLS.length : 2;
  it(`${count} daemons ${ON_CLUSTER ? 'on the nodes of a Galera cluster' : 'on one MariaDB'} deliver each message exactly once`, async function () {
    if (ENGINE !== 'mysql') this.skip(); // A SQLite file serves one daemon at a time.
    const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '20' };
    await reachableOnEveryNode(t.url);
    const daemons = await Promise.all(daemonUrls(t.url, count).map((url) => startTestDaemon(url, env)));
    kill.push(() => void Promise.all(daemons.map((d) => d.close())));
    try {
      const urls = daemons.map((d) => d.url);
      const first = urls[0] ?? '';
      receiver.respond(() => 200);
      const endpoint = await call(first, 'POST', '/v1/webhooks', {
        key: shop.key,
        body: { url: receiver.url, events: ['conversion.created'] },
      });
      const affiliate = await addAffiliate(t.db, shop.campaignId);
      const batch = (from: number) =>
        Array.from({ length: 50 }, (_, i) => conversion(shop.publicId, affiliate.code, `order-${from + i}`, 10));
      // Each daemon takes 50 conversions; every daemon polls for all of them.
      await Promise.all(
        urls.map((url, i) => call(url, 'POST', '/v1/events', { key: shop.key, body: { events: batch(50 * i) } })),
      );
      const total = 50 * count;
      await receiver.waitFor(total, 30_000);
      await sleep(1000);
      const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
      expect(ids).to.have.length(total);
      expect(new Set(ids).size).to.equal(total);
      const orders = receiver.payloads().map((p) => p.data.orderId);
      expect(new Set(orders).size).to.equal(total);
      // One attempt each: no daemon sent what the other had claimed.
      const attempts = await t
        .db('webhook_attempts as a')
        .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
        .where('d.endpoint_id', endpoint.body.id)
        .count({ n: '*' })
        .first();
      expect(Number(attempts?.n)).to.equal(total);
    } finally {
      await Promise.all(daemons.map((d) => d.close()));
      kill.pop();
    }
  });
});
