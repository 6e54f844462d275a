import { expect } from 'chai';
import { parseDatabaseUrl } from '../../server/config.js';
import { createDb, type Db } from '../../server/db/knex.js';
import { createLogger } from '../../server/logger.js';
import { autoApproveWorker } from '../../server/services/autoApprove.js';
import { type ConversionService, conversionService } from '../../server/services/conversions.js';
import type { ServiceDeps } from '../../server/services/index.js';
import { payoutService } from '../../server/services/payouts.js';
import { refundService } from '../../server/services/refunds.js';
import type { MailOutbox } from '../../server/services/mail/outbox.js';
import type { Outbox, OutboxEvent } from '../../server/services/webhooks/outbox.js';
import type { Conversion } from '../../shared/schemas/conversion.js';
import { createMerchant, type Merchant, servicesFor, testConfig } from '../helpers/daemon.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { addConversions, statusesOf } from '../helpers/lifecycle.js';

const DAY = 86_400_000;

/**
 * Concurrency of the lifecycle, as two daemons on one database would meet it: on MySQL each
 * "daemon" is its own connection pool with its own services. A SQLite file serves one daemon
 * (better-sqlite3 waits for a lock synchronously, so a second pool in the same process would
 * only block the first), so there both share the one connection and their transactions interleave. Every event a change
 * records through the outbox is kept, so a conversion approved twice would show as two events.
 */
describe(`conversion and payout races (${ENGINE})`, () => {
  let t: TestDatabase;
  let second: Db;
  let events: OutboxEvent[];
  let shop: Merchant;
  let affiliateId: number;
  const outbox: Outbox = {
    record: async (_trx, recorded) => {
      events.push(...recorded);
    },
  };
  const logger = createLogger('silent');
  const depsOf = (db: Db, now: () => Date = () => new Date()): ServiceDeps => ({
    db,
    config: testConfig(t.url),
    logger,
    now,
  });
  // No SMTP_URL in these daemons: payouts record no mail.
  const noMail: MailOutbox = { enabled: false, record: async () => undefined };
  const daemons = () =>
    [t.db, second].map((db) => ({
      conversions: conversionService(depsOf(db), outbox),
      payouts: payoutService(depsOf(db), outbox, noMail),
    }));
  const holdPeriod = (days: number) => servicesFor(t.db).campaigns.update(shop.campaignId, { autoApproveDays: days });

  before(async () => {
    t = await createTestDatabase();
    second = ENGINE === 'mysql' ? createDb(parseDatabaseUrl(t.url)) : t.db;
  });
  after(async () => {
    if (second !== t.db) await second?.destroy();
    await t?.drop();
  });
  beforeEach(async () => {
    await cleanTables(t.db);
    events = [];
    shop = await createMerchant(t.db);
    ({ id: affiliateId } = await addAffiliate(t.db, shop.campaignId));
  });

  async function payoutsWithConversions() {
    const payouts = await t.db('payouts').where('affiliate_id', affiliateId).select('id', 'status', 'commission_cents');
    const covered = await t.db('payout_conversions').select('payout_id', 'conversion_id');
    return { payouts, covered };
  }

  it('two payouts at once for one affiliate: every conversion lands in exactly one', async () => {
    for (let round = 0; round < 5; round++) {
      const ids = await addConversions(t.db, shop.campaignId, affiliateId, [101, 203, 5, 99_999, 1], {
        status: 'approved',
      });
      const attempts = daemons().flatMap(({ payouts }) =>
        [1, 2, 3].map(() => payouts.create(shop.campaignId, affiliateId)),
      );
      const outcomes = await Promise.allSettled(attempts);
      const made = outcomes.filter((o) => o.status === 'fulfilled');
      expect(made, `round ${round}`).to.have.length(1);
      for (const o of outcomes) {
        if (o.status === 'rejected') expect((o.reason as Error).message).to.match(/^Nothing to pay/);
      }
      const payout = made[0]?.status === 'fulfilled' ? made[0].value : undefined;
      expect(payout?.conversionIds).to.deep.equal(ids);
      expect(payout?.amount).to.equal(1003.09);
    }
    const { payouts, covered } = await payoutsWithConversions();
    expect(payouts).to.have.length(5);
    const conversionIds = covered.map((row) => Number(row.conversion_id));
    expect(new Set(conversionIds).size).to.equal(conversionIds.length);
    expect(conversionIds).to.have.length(25);
    expect(events.filter((e) => e.type === 'payout.created')).to.have.length(5);
  });

  it('approvals racing payouts: no conversion is in two payouts, each payout sums what it holds', async () => {
    const commissions = Array.from({ length: 300 }, (_, i) => 1 + ((i * 7919) % 10_000));
    const ids = await addConversions(t.db, shop.campaignId, affiliateId, commissions);
    const [a, b] = daemons();
    if (!a || !b) throw new Error('two daemons');
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 10; i++) {
      const daemon = i % 2 === 0 ? a : b;
      work.push(
        daemon.conversions.bulkUpdate(shop.campaignId, { status: 'approved', ids: ids.slice(i * 30, i * 30 + 30) }),
      );
      work.push(daemon.payouts.create(shop.campaignId, affiliateId).catch(() => undefined));
    }
    await Promise.all(work);
    await a.payouts.create(shop.campaignId, affiliateId).catch(() => undefined);
    const { payouts, covered } = await payoutsWithConversions();
    const byPayout = new Map<number, number[]>();
    for (const row of covered)
      byPayout.set(Number(row.payout_id), [...(byPayout.get(Number(row.payout_id)) ?? []), Number(row.conversion_id)]);
    const all = covered.map((row) => Number(row.conversion_id)).sort((x, y) => x - y);
    expect(all).to.deep.equal(ids);
    const commissionOf = new Map(ids.map((id, i) => [id, commissions[i] ?? 0]));
    for (const payout of payouts) {
      const sum = (byPayout.get(Number(payout.id)) ?? []).reduce((s, id) => s + (commissionOf.get(id) ?? 0), 0);
      expect(Number(payout.commission_cents)).to.equal(sum);
    }
    expect(events.filter((e) => e.type === 'conversion.approved')).to.have.length(300);
  });

  it('a reject racing a payout: each conversion ends rejected or in the payout, never both', async () => {
    for (let round = 0; round < 4; round++) {
      const ids = await addConversions(t.db, shop.campaignId, affiliateId, Array(40).fill(250), { status: 'approved' });
      const [a, b] = daemons();
      if (!a || !b) throw new Error('two daemons');
      const rejects = ids.map((id, i) =>
        (i % 2 === 0 ? a : b).conversions.update(shop.campaignId, id, 'rejected').then(
          () => 'rejected',
          (err: Error) => err.message,
        ),
      );
      const payout = a.payouts.create(shop.campaignId, affiliateId).catch((err: Error) => err.message);
      const [answers, made] = await Promise.all([Promise.all(rejects), payout]);
      const states = await statusesOf(t.db, ids);
      const inPayout = typeof made === 'string' ? [] : made.conversionIds;
      for (const [i, id] of ids.entries()) {
        const state = states.get(id);
        if (inPayout.includes(id)) {
          expect(state).to.deep.include({ status: 'approved' });
          expect(answers[i]).to.match(/^Conversion cannot move from approved to rejected while it is in payout/);
        } else {
          expect(state).to.deep.equal({ status: 'rejected', payoutId: null });
          expect(answers[i]).to.equal('rejected');
        }
      }
      if (typeof made !== 'string') expect(made.amount).to.equal(inPayout.length * 2.5);
      else expect(made).to.match(/^Nothing to pay/);
      await t.db('conversions').where('affiliate_id', affiliateId).delete();
    }
  });

  it('refunds racing a payout: a refunded conversion taken by the payout is clawed back, one left out is not', async () => {
    const [a, b] = daemons();
    if (!a || !b) throw new Error('two daemons');
    const refunds = refundService(depsOf(second), outbox);
    for (let round = 0; round < 3; round++) {
      const ids = await addConversions(t.db, shop.campaignId, affiliateId, Array(30).fill(125), { status: 'approved' });
      const orders = await t.db('conversions').whereIn('id', ids).orderBy('id').pluck('order_id');
      const [made] = await Promise.all([
        a.payouts.create(shop.campaignId, affiliateId).catch((err: Error) => err.message),
        ...orders.map((order_id) => refunds.refund(shop.campaignId, { order_id })),
      ]);
      const inPayout = typeof made === 'string' ? [] : made.conversionIds;
      const states = await statusesOf(t.db, ids);
      const clawed = new Set(
        (await t.db('clawbacks').whereIn('conversion_id', ids).pluck('conversion_id')).map(Number),
      );
      for (const id of ids) {
        expect(states.get(id)?.status, `conversion ${id}`).to.equal('rejected');
        expect(clawed.has(id), `clawback of ${id}`).to.equal(inPayout.includes(id));
      }
      if (typeof made !== 'string') expect(made.amount).to.equal(inPayout.length * 1.25);
      await t.db('payouts').where('affiliate_id', affiliateId).delete();
      await t.db('conversions').where('affiliate_id', affiliateId).delete();
    }
  });

  describe('the hold period, with a clock the test controls', () => {
    const worker = (db: Db, conversions: ConversionService, now: () => Date) =>
      autoApproveWorker(depsOf(db, now), conversions);

    it('approves pending conversions once they are older than autoApproveDays, judged at each run', async () => {
      const arrived = new Date('2026-03-01T12:00:00.000Z');
      const ids = await addConversions(t.db, shop.campaignId, affiliateId, [100, 200, 300], { createdAt: arrived });
      const [fresh] = await addConversions(t.db, shop.campaignId, affiliateId, [400], {
        createdAt: new Date(arrived.getTime() + 2 * DAY),
      });
      let now = new Date(arrived.getTime() + 10 * DAY);
      const job = worker(
        t.db,
        conversionService(
          depsOf(t.db, () => now),
          outbox,
        ),
        () => now,
      );
      // No hold period: nothing is approved, however old.
      expect(await job.runOnce()).to.equal(0);

      await holdPeriod(3);
      now = new Date(arrived.getTime() + 3 * DAY - 1);
      expect(await job.runOnce()).to.equal(0);
      now = new Date(arrived.getTime() + 3 * DAY + 1);
      expect(await job.runOnce()).to.equal(3);
      const states = await statusesOf(t.db, [...ids, fresh ?? 0]);
      expect([...states.values()].map((s) => s.status)).to.deep.equal(['approved', 'approved', 'approved', 'pending']);

      // A longer hold period applies to the conversions already waiting, when the job runs.
      await holdPeriod(30);
      now = new Date(arrived.getTime() + 20 * DAY);
      expect(await job.runOnce()).to.equal(0);
      await holdPeriod(0);
      expect(await job.runOnce()).to.equal(1);
      expect(events.filter((e) => e.type === 'conversion.approved')).to.have.length(4);
    });

    it('two daemons running at once approve each conversion once, and a concurrent reject is never lost', async () => {
      const arrived = new Date(Date.now() - 5 * DAY);
      const ids = await addConversions(t.db, shop.campaignId, affiliateId, Array(2500).fill(7), { createdAt: arrived });
      await holdPeriod(1);
      const [a, b] = daemons();
      if (!a || !b) throw new Error('two daemons');
      const now = () => new Date();
      const rejected = ids.filter((_, i) => i % 50 === 0);
      const [first, secondRun] = await Promise.all([
        worker(t.db, a.conversions, now).runOnce(),
        worker(second, b.conversions, now).runOnce(),
        ...rejected.map((id) => a.conversions.update(shop.campaignId, id, 'rejected')),
      ]);
      // On MySQL a run skips rows another transaction holds (SKIP LOCKED): a reject's locking
      // reads may hold a neighbour for a moment, and that one waits for the next run.
      const next = await worker(t.db, a.conversions, now).runOnce();
      const states = await statusesOf(t.db, ids);
      for (const id of rejected) expect(states.get(id)?.status, `conversion ${id}`).to.equal('rejected');
      expect([...states.values()].filter((s) => s.status === 'approved')).to.have.length(ids.length - rejected.length);
      const approvedEvents = events.filter((e) => e.type === 'conversion.approved');
      const approvedIds = approvedEvents.map((e) => (e.data as Conversion).id);
      expect(new Set(approvedIds).size).to.equal(approvedIds.length);
      expect((first ?? 0) + (secondRun ?? 0) + next).to.equal(approvedIds.length);
      // Rejected first, or approved first and then rejected: every id is accounted for once.
      expect(approvedIds.length).to.be.at.least(ids.length - rejected.length);
    });

    it('stops between chunks and waits for the run in hand', async () => {
      const ids = await addConversions(t.db, shop.campaignId, affiliateId, Array(2500).fill(7), {
        createdAt: new Date(Date.now() - 5 * DAY),
      });
      await holdPeriod(1);
      // The daemon is asked to stop while a run writes its first chunk.
      let stopped: Promise<void> | undefined;
      const stopOnFirstChunk: Outbox = {
        record: async (trx, recorded) => {
          await outbox.record(trx, recorded);
          stopped ??= job.stop();
        },
      };
      const deps = { ...depsOf(t.db), config: testConfig(t.url, { AUTO_APPROVE_INTERVAL_MS: '1' }) };
      const job = autoApproveWorker(deps, conversionService(depsOf(t.db), stopOnFirstChunk));
      job.start();
      while (!stopped) await new Promise((resolve) => setTimeout(resolve, 5));
      await stopped;
      const approved = async () =>
        [...(await statusesOf(t.db, ids)).values()].filter((s) => s.status === 'approved').length;
      const atStop = await approved();
      // The chunk in hand was finished, not cut: every approval it reported is stored.
      expect(atStop)
        .to.be.above(0)
        .and.equal(events.filter((e) => e.type === 'conversion.approved').length);
      // The run ended after it: the rest waits, pending, for the next run of a daemon.
      expect(atStop).to.be.below(ids.length);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await approved()).to.equal(atStop);
      await job.stop();
    });
  });
});
