import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createMerchant, type Merchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { Receiver, sleep } from '../helpers/receiver.js';

/**
 * One campaign's receivers never hold another campaign's deliveries back (docs/webhooks.md,
 * "Fairness"): its share of the daemon's sending slots is bounded, and an attempt, body
 * included, ends at WEBHOOK_ATTEMPT_TIMEOUT_MS.
 */
describe(`webhook fairness across campaigns (${ENGINE})`, () => {
  const t = useTestDaemon({
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_ATTEMPT_TIMEOUT_MS: '4000',
    // Just above the attempt timeout: a lease that ran out mid-attempt would show as a second request.
    WEBHOOK_LEASE_MS: '4500',
  });
  let stalled: Receiver;
  let healthy: Receiver;

  beforeEach(async () => {
    stalled = await new Receiver(() => 'hang').start();
    healthy = await new Receiver(() => 200).start();
  });
  afterEach(async () => {
    await stalled.stop();
    await healthy.stop();
  });

  const register = async (merchant: Merchant, url: string, events: string[]) => {
    const res = await call(t.url, 'POST', '/v1/webhooks', { key: merchant.key, body: { url, events } });
    expect(res.status, res.text).to.equal(201);
    return res.body as { id: number };
  };

  /** Milliseconds from asking for a test message to the receiver having it. */
  const testLatency = async (merchant: Merchant, endpointId: number, receiver: Receiver) => {
    const asked = Date.now();
    const res = await call(t.url, 'POST', `/v1/webhooks/${endpointId}/test`, { key: merchant.key });
    expect(res.status).to.equal(202);
    const [request] = await receiver.waitFor(1, 20_000);
    return (request?.at ?? Infinity) - asked;
  };

  it('nine endpoints of one campaign that never answer leave another campaign’s delivery on time', async () => {
    const hostile = t.merchant;
    for (let i = 0; i < 9; i++) await register(hostile, `${stalled.url}/${i}`, ['affiliate.created']);
    // Ten changes: ninety deliveries that accept the connection and never answer.
    for (let i = 0; i < 10; i++) {
      const res = await call(t.url, 'POST', '/v1/affiliates', {
        key: hostile.key,
        body: { email: `a${i}@example.com`, password: 'secret1' },
      });
      expect(res.status).to.equal(201);
    }
    await stalled.waitFor(8);
    await sleep(300);

    const other = await createMerchant(t.db);
    const endpoint = await register(other, healthy.url, ['affiliate.created']);
    const latency = await testLatency(other, endpoint.id, healthy);
    // Far below one attempt's timeout: the stalled campaign holds only its own share of slots.
    expect(latency).to.be.below(1500);
    // The stalled campaign never had more than its share in flight at once.
    expect(stalled.maxOpen).to.be.at.most(8);
  });

  it('a receiver that answers 200 and then trickles its body: the attempt ends at the timeout, and the message is not sent again while it runs', async () => {
    const trickle = await trickleServer();
    try {
      const endpoint = await register(t.merchant, trickle.url, ['affiliate.created']);
      await call(t.url, 'POST', `/v1/webhooks/${endpoint.id}/test`, { key: t.merchant.key });
      const deadline = Date.now() + 12_000;
      let delivery: { attempts: Array<{ durationMs: number; statusCode: number | null; error: string | null }> };
      do {
        await sleep(100);
        const res = await call(t.url, 'GET', `/v1/webhooks/${endpoint.id}/deliveries`, { key: t.merchant.key });
        delivery = res.body.deliveries[0];
      } while ((delivery?.attempts.length ?? 0) < 1 && Date.now() < deadline);
      const [first] = delivery.attempts;
      expect(first, 'an attempt recorded').to.not.equal(undefined);
      // The whole exchange, body included, is bounded by the attempt timeout (4 s here).
      expect(first?.durationMs).to.be.within(3500, 5000);
      expect(first?.statusCode).to.equal(200);
      expect(first?.error).to.equal('the answer’s body did not arrive within 4 s');
      // Never two requests for the message at once: the second only after the first has ended.
      expect(trickle.maxOpen).to.equal(1);
    } finally {
      await trickle.stop();
    }
  });
});

/** A receiver that answers 200 at once and then sends one byte every 200 ms, forever. */
async function trickleServer(): Promise<{ url: string; maxOpen: number; stop(): Promise<void> }> {
  const state = { open: 0, maxOpen: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.open++;
      state.maxOpen = Math.max(state.maxOpen, state.open);
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('.'), 200);
      res.on('close', () => {
        clearInterval(timer);
        state.open--;
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    get maxOpen() {
      return state.maxOpen;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
