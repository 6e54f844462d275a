import { expect } from 'chai';
import { parseDatabaseUrl } from '../../server/config.js';
import { createDb, type Db } from '../../server/db/knex.js';
import type { LaneHead } from '../../server/jobs/fairness.js';
import { type LeasedItem, type QueueJob, type QueueRunner, queueRunner } from '../../server/jobs/queue.js';
import { jobRuntime } from '../../server/jobs/runtime.js';
import { createLogger } from '../../server/logger.js';
import { dueItems } from '../../server/repositories/leasedQueue.js';
import {
  type ClaimedMail,
  claimMails,
  insertMails,
  MAIL_QUEUE,
  settleMail,
} from '../../server/repositories/mailOutbox.js';
import { MESSAGES } from '../../shared/errors.js';
import { createMerchant, servicesFor } from '../helpers/daemon.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Item = ClaimedMail & LeasedItem;
type Result = { ok: boolean; permanent?: boolean };

/**
 * The job runtime (server/jobs/) on a real database, with the mail outbox's table as its queue:
 * what every queue of the daemon (webhook deliveries, mail) rests on. Two runners stand for two
 * daemons: each has its own connection pool to the same database.
 */
describe(`job runtime: leased queues (${ENGINE})`, function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let other: Db;
  let campaigns: number[];
  const runners: QueueRunner[] = [];
  const logs: string[] = [];
  const logger = createLogger('debug', (line) => logs.push(line));

  /** A queue job over mail_outbox whose attempt is `attempt`, settled as the mail worker settles. */
  function job(
    db: Db,
    attempt: (item: Item, signal: AbortSignal) => Promise<Result | undefined>,
    options: Partial<QueueJob<Item, Result>> = {},
  ): QueueJob<Item, Result> {
    return {
      name: 'test',
      label: 'test',
      idField: 'mailId',
      enabled: true,
      table: MAIL_QUEUE,
      pollMs: 20,
      leaseMs: 2_000,
      maxInFlight: 4,
      retry: { scheduleMs: [50, 50], jitter: 0 },
      claim: (ids, now, leaseMs) => claimMails(db, ids, { now, leaseMs }),
      attempt,
      settle: (item, result, next) =>
        settleMail(db, item, { ...next, error: result.ok ? null : 'refused', now: new Date() }),
      ...options,
    };
  }
  function run(db: Db, j: QueueJob<Item, Result>): QueueRunner {
    const runner = queueRunner({ db, logger, now: () => new Date() }, j);
    runners.push(runner);
    runner.start();
    return runner;
  }
  async function addMails(count: number, campaignId = campaigns[0] ?? 0): Promise<void> {
    const at = new Date(Date.now() - 1000);
    const mails = Array.from({ length: count }, (_, i) => ({
      campaignId,
      affiliateId: null,
      kind: 'application_approved',
      to: `a${i}@example.com`,
      locale: 'en',
      data: { publicId: 'x' },
      createdAt: at,
    }));
    await database.db.transaction((trx) => insertMails(trx, mails));
  }
  const rows = () =>
    database
      .db('mail_outbox')
      .orderBy('id')
      .select<{ id: number; status: string; attempt_count: number; lease_token: string | null }[]>('*');
  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 400; i++) {
      if (await check()) return;
      await sleep(25);
    }
    throw new Error(`timed out waiting for ${what}`);
  }
  const allSettled = async () => (await rows()).every((row) => row.status !== 'pending');

  before(async () => {
    database = await createTestDatabase();
    other = createDb(parseDatabaseUrl(database.url));
  });
  beforeEach(async () => {
    await cleanTables(database.db);
    campaigns = [(await createMerchant(database.db)).campaignId, (await createMerchant(database.db)).campaignId];
    logs.length = 0;
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));
  });
  after(async () => {
    await other.destroy();
    await database.drop();
  });

  it('two runners on one database run each item exactly once', async () => {
    await addMails(60);
    const seen: Array<[runner: string, id: number]> = [];
    const attempt = (name: string) => async (item: Item) => {
      seen.push([name, item.id]);
      await sleep(5);
      return { ok: true };
    };
    run(database.db, job(database.db, attempt('a')));
    run(other, job(other, attempt('b')));
    await until(allSettled, 'every item to be settled');
    const ids = seen.map(([, id]) => id);
    expect(ids).to.have.length(60);
    expect(new Set(ids).size).to.equal(60);
    // Both took part: the claims raced and excluded each other.
    expect(new Set(seen.map(([name]) => name)).size).to.equal(2);
    expect((await rows()).map((row) => [row.status, row.attempt_count])).to.deep.equal(
      Array.from({ length: 60 }, () => ['sent', 1]),
    );
  });

  it('a lease that runs out is taken over; one renewed while its item runs is not', async () => {
    await addMails(2);
    const [first, second] = (await rows()).map((row) => Number(row.id));
    // A daemon that claimed the first item and died: its lease runs out in 600 ms, never renewed.
    // Its lease runs from the instant the claim names, not from when the claim returned (on
    // Galera that is a few ms later), so that instant is what the take-over is measured from.
    const claimedAt = Date.now();
    const dead = await claimMails(database.db, [Number(first)], { now: new Date(claimedAt), leaseMs: 600 });
    expect(dead).to.have.length(1);
    // A live runner holds the second for 1.5 s with a 600 ms lease, renewing it.
    let release: () => void = () => undefined;
    const holding = new Promise<void>((resolve) => {
      release = resolve;
    });
    run(
      database.db,
      job(
        database.db,
        async (item) => {
          if (item.id === second) await holding;
          return { ok: true };
        },
        { leaseMs: 600, maxInFlight: 1 },
      ),
    );
    // The other daemon starts once the live runner holds the second: otherwise it could claim
    // the second first, a fair claim this test is not about.
    const held = async () => (await rows()).some((row) => Number(row.id) === second && row.lease_token !== null);
    await until(held, 'the live runner to claim the second item');
    const takenAt = new Map<number, number>();
    run(
      other,
      job(other, async (item) => {
        takenAt.set(item.id, Date.now());
        return { ok: true };
      }),
    );
    await sleep(1500);
    release();
    await until(allSettled, 'both items to be settled');
    expect([...takenAt.keys()]).to.deep.equal([first]);
    expect(takenAt.get(Number(first))).to.be.at.least(claimedAt + 600);
  });

  it('tries again on the schedule, gives up after the last attempt, and a person’s retry gives one more', async () => {
    await addMails(1);
    const times: number[] = [];
    const runtime = jobRuntime({ db: database.db, logger, now: () => new Date() });
    const runner = runtime.queue(
      job(database.db, async () => {
        times.push(Date.now());
        return { ok: false };
      }),
    );
    runners.push(runner);
    runner.start();
    await until(async () => (await rows())[0]?.status === 'failed', 'the item to be dead');
    expect(times).to.have.length(3);
    for (const [i, at] of times.slice(1).entries()) expect(at - (times[i] ?? 0)).to.be.at.least(50);
    const [figures] = await runtime.figures().queues();
    expect(figures).to.deep.equal({
      queue: 'test',
      depth: 0,
      oldestDueSeconds: 0,
      dead: 1,
      attempts: { succeeded: 0, retried: 2, dead: 1 },
    });

    const [row] = await rows();
    const id = Number(row?.id);
    await servicesFor(database.db).mail.retry(id);
    await until(async () => times.length === 4 && (await rows())[0]?.status === 'failed', 'the retried attempt');
    expect((await rows())[0]?.attempt_count).to.equal(4);
    let refusal = '';
    await servicesFor(database.db)
      .mail.retry(id + 1000)
      .catch((err: Error) => (refusal = err.message));
    expect(refusal).to.equal(MESSAGES.failedMailNotFound(id + 1000));
  });

  it('a permanent refusal is dead at once; figures count what waits and how long the oldest has', async () => {
    await addMails(1);
    const runtime = jobRuntime({ db: database.db, logger, now: () => new Date() });
    runners.push(runtime.queue(job(database.db, async () => ({ ok: false, permanent: true }))));
    for (const worker of runtime.workers) worker.start();
    await until(async () => (await rows())[0]?.status === 'failed', 'the item to be dead');
    expect((await rows())[0]?.attempt_count).to.equal(1);
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));
    await addMails(3);
    const [figures] = await runtime.figures().queues();
    expect(figures).to.include({ depth: 3, dead: 1 });
    // Due a second before the read: at least one second, and not much more.
    expect(figures?.oldestDueSeconds).to.be.within(0.9, 30);
  });

  it('stop waits for the item in hand and claims nothing after it', async () => {
    await addMails(3);
    let started = 0;
    const runner = run(
      database.db,
      job(
        database.db,
        async () => {
          started++;
          await sleep(400);
          return { ok: true };
        },
        { maxInFlight: 1 },
      ),
    );
    await until(async () => started === 1, 'the first attempt');
    const stopping = Date.now();
    await runner.stop();
    expect(Date.now() - stopping).to.be.at.least(300);
    const statuses = (await rows()).map((row) => row.status);
    expect(statuses).to.deep.equal(['sent', 'pending', 'pending']);
    await sleep(200);
    expect(started).to.equal(1);
    // Nothing is left leased: another daemon takes the rest at once.
    expect(await dueItems(database.db, MAIL_QUEUE, { now: new Date(), limit: 10 })).to.have.length(2);
  });

  it('an item cut by stop after its grace is given back, not counted as an attempt', async () => {
    await addMails(1);
    const runner = run(
      database.db,
      job(
        database.db,
        (_item, signal) =>
          new Promise((resolve) => signal.addEventListener('abort', () => resolve({ ok: false }), { once: true })),
        { stopGraceMs: 100 },
      ),
    );
    await until(
      async () => (await database.db('mail_outbox').whereNotNull('lease_token').first()) !== undefined,
      'claim',
    );
    await runner.stop();
    const [row] = await database.db('mail_outbox').select('status', 'attempt_count', 'lease_token');
    expect(row).to.deep.equal({ status: 'pending', attempt_count: 0, lease_token: null });
  });

  it('shares slots fairly: a tenant whose items hang keeps its share, another tenant’s items all run', async () => {
    const [hostile, quiet] = campaigns as [number, number];
    await addMails(20, hostile);
    await addMails(3, quiet);
    const tenantOf = new Map(
      (await database.db('mail_outbox').select<{ id: number; campaign_id: number }[]>('id', 'campaign_id')).map(
        (row) => [Number(row.id), Number(row.campaign_id)],
      ),
    );
    let release: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => {
      release = resolve;
    });
    const inFlight = new Map<number, number>();
    let most = 0;
    const done: number[] = [];
    /** Each item is its own lane; the tenant is its campaign. */
    const heads = async (now: Date, skip: { tenants: readonly number[]; lanes: readonly number[] }) => {
      const due = await dueItems(database.db, MAIL_QUEUE, { now, limit: 100 });
      return due
        .map((id): LaneHead => ({ tenant: tenantOf.get(id) ?? 0, lane: id, id }))
        .filter((head) => !skip.tenants.includes(head.tenant) && !skip.lanes.includes(head.lane));
    };
    run(
      database.db,
      job(
        database.db,
        async (item) => {
          const tenant = tenantOf.get(item.id) ?? 0;
          inFlight.set(tenant, (inFlight.get(tenant) ?? 0) + 1);
          most = Math.max(most, inFlight.get(hostile) ?? 0);
          if (tenant === hostile) await hanging;
          else done.push(item.id);
          inFlight.set(tenant, (inFlight.get(tenant) ?? 1) - 1);
          return { ok: true };
        },
        {
          maxInFlight: 4,
          fairness: { tenantInFlight: 2, laneInFlight: 1, heads, dueOf: async (lane) => [lane] },
          claim: async (ids, now, leaseMs) =>
            (await claimMails(database.db, ids, { now, leaseMs })).map((mail) => ({
              ...mail,
              tenant: tenantOf.get(mail.id) ?? 0,
              lane: mail.id,
            })),
        },
      ),
    );
    await until(async () => done.length === 3, 'the quiet tenant’s items');
    expect(most).to.equal(2);
    release();
  });
});
