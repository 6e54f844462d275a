import { expect } from 'chai';
import { daemonUrls, reachableOnEveryNode } from '../helpers/cluster.js';
import { createMerchant, type Merchant, servicesFor } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { addAffiliate, conversion } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { daemonEnv, type ServedDaemon, serve } from '../reliability/support/served.js';

/**
 * The plan limits' counters are sums of one row per daemon (docs/scaling.md, "Hot rows"): what
 * two daemons (two processes, each with its own shard) count together must be what the API
 * shows and what a plan's limit is checked against, once the plan gains one. A SQLite file serves
 * one daemon, so there the same steps go through one (one shard, and the limit's row).
 */
const DAEMONS = ENGINE === 'sqlite' ? 1 : 2;
describe(`counters shared by two daemons (${ENGINE})`, function () {
  this.timeout(120_000);
  let t: TestDatabase;
  const daemons: ServedDaemon[] = [];
  let merchant: Merchant;

  before(async () => {
    t = await createTestDatabase();
    await reachableOnEveryNode(t.url);
    for (const url of daemonUrls(t.url, DAEMONS)) daemons.push(await serve(daemonEnv(url, { API_KEY_CACHE_MS: '0' })));
  });
  after(async () => {
    for (const daemon of daemons) await daemon.stop('SIGTERM');
    await t?.drop();
  });
  beforeEach(async () => {
    merchant = await createMerchant(t.db);
  });

  const through = (d: number) => daemons[d % DAEMONS]?.url ?? '';
  const createAffiliate = (d: number, email: string) =>
    call(through(d), 'POST', '/v1/affiliates', { key: merchant.key, body: { email, password: 'shard-pass1' } });
  const usage = async () =>
    (
      await call<{ usage: { affiliates: number; conversions: number } }>(through(0), 'GET', '/v1/campaign', {
        key: merchant.key,
      })
    ).body.usage;
  const moveToPlan = async (maxAffiliates: number | null, maxMonthlyConversions: number | null) => {
    const services = servicesFor(t.db);
    const name = `shards-${merchant.campaignId}-${maxAffiliates}-${maxMonthlyConversions}`;
    await services.plans.create({ name, maxAffiliates, maxMonthlyConversions });
    await services.campaigns.update(merchant.campaignId, { plan: name });
  };

  it('counts affiliates created and deleted through both daemons, and a limit added later counts them all', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) {
      const made = await createAffiliate(i % 2, `a${i}@shop.example`);
      expect(made.status, made.text).to.equal(201);
      ids.push((made.body as { id: number }).id);
    }
    // Deleted through the other daemon than the one that created each.
    for (const [i, id] of ids.slice(0, 3).entries()) {
      const gone = await call(through((i + 1) % 2), 'DELETE', `/v1/affiliates/${id}`, { key: merchant.key });
      expect(gone.status, gone.text).to.equal(200);
    }
    expect((await usage()).affiliates).to.equal(7);
    const listed = await call<{ total: number }>(through(1), 'GET', '/v1/affiliates', { key: merchant.key });
    expect(listed.body.total, 'the unfiltered list total').to.equal(7);

    await moveToPlan(8, null);
    const racing = await Promise.all([0, 1, 0, 1].map((d, i) => createAffiliate(d, `late${i}@shop.example`)));
    expect(racing.map((answer) => answer.status).sort()).to.deep.equal([201, 403, 403, 403]);
    const refused = racing.find((answer) => answer.status === 403);
    expect(refused?.body).to.deep.include({ statusCode: 403, error: 'Forbidden' });
    expect((refused?.body as { message: string }).message).to.include('8');
    expect((await usage()).affiliates).to.equal(8);
  });

  it("counts the month's conversions taken through both daemons, and a limit added later counts them all", async () => {
    const { code } = await addAffiliate(t.db, merchant.campaignId);
    const send = (d: number, order: string) =>
      call(through(d), 'POST', '/v1/events', {
        key: merchant.key,
        body: { events: [conversion(merchant.publicId, code, order, 10)] },
      });
    for (let i = 0; i < 6; i++) expect((await send(i % 2, `o-${i}`)).status).to.equal(200);
    expect((await usage()).conversions).to.equal(6);

    await moveToPlan(null, 7);
    const racing = await Promise.all([0, 1, 0, 1].map((d, i) => send(d, `late-${i}`)));
    expect(racing.map((answer) => answer.status).sort()).to.deep.equal([200, 403, 403, 403]);
    expect((await usage()).conversions).to.equal(7);
  });
});
