import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Daemon } from '../../server/main.js';
import { MESSAGES } from '../../shared/errors.js';
import { createMerchant, type Merchant, revokeKey, startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { addAffiliate, conversion, pageView, storedCounts } from '../helpers/events.js';
import { call, type Reply } from '../helpers/http.js';

/** The spec's limits (§8), which the test helper otherwise lifts out of the way. */
const SPEC_LIMITS = {
  RATE_LIMIT_EVENTS_PER_MIN: '70',
  RATE_LIMIT_SDK_PER_MIN: '70',
  RATE_LIMIT_DEFAULT_PER_MIN: '100',
  RATE_LIMIT_WINDOW_MS: '60000',
};

const header = (reply: Reply, name: string) => String(reply.headers[name.toLowerCase()]);

function expectWholeSeconds(value: string, max: number, min = 0) {
  expect(value).to.match(/^\d+$/);
  expect(Number(value)).to.be.within(min, max);
}

/** spec §7 and §10.10: the body, and headers that say when to come back. */
function expectThrottled(reply: Reply, limit: number, windowSeconds = 60) {
  expect(reply.status).to.equal(429);
  expect(reply.body).to.deep.equal({
    statusCode: 429,
    message: MESSAGES.tooManyRequests,
    error: 'Too Many Requests',
  });
  expect(header(reply, 'X-RateLimit-Limit')).to.equal(String(limit));
  expect(header(reply, 'X-RateLimit-Remaining')).to.equal('0');
  expectWholeSeconds(header(reply, 'X-RateLimit-Reset'), windowSeconds);
  expectWholeSeconds(header(reply, 'Retry-After'), windowSeconds, 1);
}

/** A key of the right form that no campaign has. */
const randomKey = () => `afk_${randomBytes(16).toString('hex').slice(0, 32)}`;

/** Queries of a daemon that looked a key up, from now on. */
function keyLookups(daemon: Daemon): string[] {
  const seen: string[] = [];
  daemon.db.on('query', (query: { sql: string }) => {
    if (query.sql.includes('api_keys')) seen.push(query.sql);
  });
  return seen;
}

/** A page view to the browser route as sent from client IP `ip` (through a proxy's X-Forwarded-For). */
const sdkFrom = (daemon: Daemon, publicId: string) => (ip: string) => () =>
  call(daemon.url, 'POST', '/v1/sdk/events', {
    body: { events: [pageView(publicId, 'ANYCODE')] },
    headers: { 'x-forwarded-for': ip },
  });

/** `count` requests one after another, each expected through with the remaining count going down. */
async function spend(
  count: number,
  limit: number,
  request: () => Promise<Reply>,
  expectStatus: number,
  alreadyUsed = 0,
) {
  for (let i = 0; i < count; i++) {
    const reply = await request();
    expect(reply.status, `request ${alreadyUsed + i + 1}`).to.equal(expectStatus);
    expect(header(reply, 'X-RateLimit-Limit')).to.equal(String(limit));
    expect(header(reply, 'X-RateLimit-Remaining')).to.equal(String(limit - alreadyUsed - i - 1));
    expectWholeSeconds(header(reply, 'X-RateLimit-Reset'), 60);
  }
}

describe(`rate limits (${ENGINE})`, () => {
  let database: TestDatabase;
  const daemons: Daemon[] = [];

  const start = async (env: Record<string, string>) => {
    const daemon = await startTestDaemon(database.url, env);
    daemons.push(daemon);
    return daemon;
  };

  before(async () => {
    database = await createTestDatabase();
  });

  after(async () => {
    for (const daemon of daemons) await daemon.close();
    await database?.drop();
  });

  describe('spec limits, in memory', () => {
    let daemon: Daemon;
    let merchant: Merchant;
    const events = (key: string) => () => call(daemon.url, 'POST', '/v1/events', { key, body: { events: [] } });

    before(async () => {
      daemon = await start(SPEC_LIMITS);
    });

    beforeEach(async () => {
      merchant = await createMerchant(database.db);
    });

    it('answers the 71st events request of a key in a window with 429; another key is unaffected', async () => {
      await spend(70, 70, events(merchant.key), 200);
      expectThrottled(await events(merchant.key)(), 70);
      expectThrottled(await events(merchant.key)(), 70);

      const other = await createMerchant(database.db);
      await spend(1, 70, events(other.key), 200);
      // The same key's other routes have their own budget (spec §8).
      const campaign = await call(daemon.url, 'GET', '/v1/campaign', { key: merchant.key });
      expect(campaign.status).to.equal(200);
      expect(header(campaign, 'X-RateLimit-Limit')).to.equal('100');
      expect(header(campaign, 'X-RateLimit-Remaining')).to.equal('99');
    });

    it('answers the 101st affiliates request of a key in a window with 429; another key is unaffected', async () => {
      const list = (key: string) => () => call(daemon.url, 'GET', '/v1/affiliates', { key });
      await spend(100, 100, list(merchant.key), 200);
      expectThrottled(await list(merchant.key)(), 100);
      const other = await createMerchant(database.db);
      await spend(1, 100, list(other.key), 200);
      // The events budget of the throttled key is untouched.
      await spend(1, 70, events(merchant.key), 200);
    });

    it('counts before authentication: an unknown key is throttled too', async () => {
      const unknown = 'afk_00000000000000000000000000000000';
      await spend(70, 70, events(unknown), 401);
      expectThrottled(await events(unknown)(), 70);
    });
  });

  describe('per client IP', () => {
    it('limits key-less requests per IP, and ignores X-Forwarded-For without TRUST_PROXY', async () => {
      const daemon = await start({
        ...SPEC_LIMITS,
        RATE_LIMIT_DEFAULT_PER_MIN: '5',
        RATE_LIMIT_SDK_PER_MIN: '3',
      });
      const noKey = (ip: string) => () =>
        call(daemon.url, 'GET', '/v1/affiliates', { headers: { 'x-forwarded-for': ip } });
      await spend(2, 5, noKey('203.0.113.1'), 401);
      await spend(3, 5, noKey('203.0.113.2'), 401, 2);
      expectThrottled(await noKey('203.0.113.3')(), 5);

      const merchant = await createMerchant(database.db);
      const sdk = sdkFrom(daemon, merchant.publicId);
      await spend(3, 3, sdk('198.51.100.1'), 200);
      const throttled = await sdk('198.51.100.2')();
      expectThrottled(throttled, 3);
      // spec §10.11: the browser can read the 429 (CORS on this route only).
      expect(header(throttled, 'Access-Control-Allow-Origin')).to.equal('*');
    });

    it('takes the client IP from X-Forwarded-For with TRUST_PROXY', async () => {
      const daemon = await start({ ...SPEC_LIMITS, TRUST_PROXY: 'true', RATE_LIMIT_SDK_PER_MIN: '2' });
      const merchant = await createMerchant(database.db);
      const sdk = sdkFrom(daemon, merchant.publicId);
      await spend(2, 2, sdk('198.51.100.7'), 200);
      expectThrottled(await sdk('198.51.100.7')(), 2);
      await spend(2, 2, sdk('198.51.100.8'), 200);
    });

    it('counts an IPv6 client by its /64: a new address in the same /64 gets no new budget', async () => {
      const daemon = await start({ ...SPEC_LIMITS, TRUST_PROXY: 'true', RATE_LIMIT_SDK_PER_MIN: '2' });
      const merchant = await createMerchant(database.db);
      const sdk = sdkFrom(daemon, merchant.publicId);
      await spend(2, 2, sdk('2001:db8:7:7::1'), 200);
      expectThrottled(await sdk('2001:db8:7:7::2')(), 2);
      expectThrottled(await sdk('2001:db8:7:7:ffff:ffff:ffff:fffe')(), 2);
      await spend(2, 2, sdk('2001:db8:7:8::1'), 200);
    });
  });

  describe('keys that are not valid count against the client IP', () => {
    let daemon: Daemon;
    let merchant: Merchant;

    before(async () => {
      daemon = await start({ ...SPEC_LIMITS, RATE_LIMIT_DEFAULT_PER_MIN: '10', RATE_LIMIT_EVENTS_PER_MIN: '10' });
    });

    beforeEach(async () => {
      merchant = await createMerchant(database.db);
    });

    it('a fresh random key on every request is throttled as the IP, and costs no lookup once the IP is over', async () => {
      // Known to the daemon before the flood: a valid key keeps its own budget.
      await spend(1, 10, () => call(daemon.url, 'GET', '/v1/affiliates', { key: merchant.key }), 200);
      const list = () => call(daemon.url, 'GET', '/v1/affiliates', { key: randomKey() });
      await spend(10, 10, list, 401);
      const lookups = keyLookups(daemon);
      for (let i = 0; i < 50; i++) expectThrottled(await list(), 10);
      expect(lookups).to.deep.equal([]);
      // The flood spent the IP's budget, not the valid key's.
      await spend(1, 10, () => call(daemon.url, 'GET', '/v1/affiliates', { key: merchant.key }), 200, 1);
    });

    it('on /v1/events too, and a revoked key counts as no key', async () => {
      const events = (key: string) => () => call(daemon.url, 'POST', '/v1/events', { key, body: { events: [] } });
      await spend(1, 10, events(merchant.key), 200);
      const revoked = await createMerchant(database.db);
      await revokeKey(database.db, revoked.keyId);
      await spend(5, 10, events(revoked.key), 403);
      await spend(5, 10, events(randomKey()), 401, 5);
      expectThrottled(await events(randomKey())(), 10);
      expectThrottled(await events(revoked.key)(), 10);
      await spend(1, 10, events(merchant.key), 200, 1);
    });
  });

  describe('window', () => {
    it('opens a new budget when the window ends (RATE_LIMIT_WINDOW_MS)', async () => {
      const daemon = await start({
        ...SPEC_LIMITS,
        RATE_LIMIT_EVENTS_PER_MIN: '2',
        RATE_LIMIT_WINDOW_MS: '1000',
      });
      const merchant = await createMerchant(database.db);
      const events = () => call(daemon.url, 'POST', '/v1/events', { key: merchant.key, body: { events: [] } });
      await spend(2, 2, events, 200);
      expectThrottled(await events(), 2, 1);
      let reply = await events();
      for (let attempt = 0; reply.status === 429 && attempt < 100; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        reply = await events();
      }
      expect(reply.status).to.equal(200);
      expect(header(reply, 'X-RateLimit-Remaining')).to.equal('1');
    });
  });

  describe('two daemons on one database and one Redis (README.md#running-on-mysql--mariadb)', () => {
    let redisUrl: string;

    before(function () {
      if (!process.env.TEST_REDIS_URL) {
        this.skip(); // TEST_REDIS_URL is unset: no Redis to share (scripts/test-services.sh starts one)
        return;
      }
      redisUrl = process.env.TEST_REDIS_URL;
    });

    /** Two daemons on the suite's database and the test Redis. */
    const pair = async (env: Record<string, string> = {}): Promise<[Daemon, Daemon]> => [
      await start({ REDIS_URL: redisUrl, ...env }),
      await start({ REDIS_URL: redisUrl, ...env }),
    ];
    const sendTo = (daemon: Daemon, key: string, events: unknown[]) =>
      call(daemon.url, 'POST', '/v1/events', { key, body: { events } });

    it('share one rate budget per key', async () => {
      const [first, second] = await pair({ ...SPEC_LIMITS, RATE_LIMIT_EVENTS_PER_MIN: '10' });
      const merchant = await createMerchant(database.db);
      for (let i = 0; i < 10; i++) {
        const daemon = i % 2 ? second : first;
        await spend(1, 10, () => sendTo(daemon, merchant.key, []), 200, i);
      }
      expectThrottled(await sendTo(first, merchant.key, []), 10);
      expectThrottled(await sendTo(second, merchant.key, []), 10);
      const other = await createMerchant(database.db);
      await spend(1, 10, () => sendTo(second, other.key, []), 200);
    });

    it('count made-up keys against the client IP in the shared window, and look none up once it is spent', async () => {
      const [first, second] = await pair({ ...SPEC_LIMITS, TRUST_PROXY: 'true', RATE_LIMIT_DEFAULT_PER_MIN: '6' });
      // An address of its own, so no other suite on this Redis shares the window.
      const ip = `198.18.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
      const list = (daemon: Daemon) => () =>
        call(daemon.url, 'GET', '/v1/affiliates', { key: randomKey(), headers: { 'x-forwarded-for': ip } });
      for (let i = 0; i < 6; i++) await spend(1, 6, list(i % 2 ? second : first), 401, i);
      const lookups = [keyLookups(first), keyLookups(second)];
      for (let i = 0; i < 10; i++) expectThrottled(await list(i % 2 ? second : first)(), 6);
      expect(lookups.flat()).to.deep.equal([]);
    });

    it('share the dedupe: one conversion sent 25 times to each, concurrently, is stored once', async () => {
      const [first, second] = await pair();
      const merchant = await createMerchant(database.db);
      const { code } = await addAffiliate(database.db, merchant.campaignId);
      const events = [conversion(merchant.publicId, code, 'both-daemons', 25, { event_id: 'e-1' })];
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) => sendTo(i % 2 ? second : first, merchant.key, events)),
      );
      expect(replies.map((r) => r.status)).to.deep.equal(Array(50).fill(200));
      expect(replies.filter((r) => r.body.accepted === 1)).to.have.length(1);
      expect(await storedCounts(database.db, merchant.campaignId)).to.deep.equal({
        events: 1,
        conversions: 1,
        usage: 1,
      });
    });

    it('share the monthly limit: 50 concurrent conversions over both against 1 slot, 1 stored', async () => {
      const [first, second] = await pair();
      const merchant = await createMerchant(database.db, { limits: { maxMonthlyConversions: 1 } });
      const { code } = await addAffiliate(database.db, merchant.campaignId);
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          sendTo(i % 2 ? second : first, merchant.key, [conversion(merchant.publicId, code, `order-${i}`, 25)]),
        ),
      );
      const statuses = replies.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).to.have.length(1);
      expect(statuses.filter((s) => s === 403)).to.have.length(49);
      expect(await storedCounts(database.db, merchant.campaignId)).to.deep.equal({
        events: 1,
        conversions: 1,
        usage: 1,
      });
    });
  });
});
