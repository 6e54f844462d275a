/**
 * Event intake figures, each beside its baseline measured in the same run, medians of `runs`:
 *
 * - benchSingleEvents: one page view per `POST /v1/events` at `connections` concurrent
 *   connections (autocannon), against bare Koa answering `{"success":true}`. Both servers run
 *   in child processes (bench/intakeServer.ts), so the load generator does not share their loop.
 * - benchBatches: conversions in batches of `batchSize` over HTTP, one request in flight,
 *   against the same rows (tracking events, read-back of their ids, conversions) inserted
 *   straight through Knex in one transaction per batch, with the daemon's pragmas.
 *
 * Run alone: `node --import tsx bench/intake.ts [sqlite|mysql]…` (MySQL needs TEST_MYSQL_URL or
 * BENCH_MYSQL_URL). Prints one JSON line per figure.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { Engine } from '../server/db/knex.js';
import { servicesFor } from '../test/helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from '../test/helpers/database.js';
import { addAffiliate, conversion, pageView } from '../test/helpers/events.js';
import { call } from '../test/helpers/http.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// The harness may name MariaDB as BENCH_MYSQL_URL; the throwaway databases are made from TEST_MYSQL_URL.
if (!process.env.TEST_MYSQL_URL && process.env.BENCH_MYSQL_URL) process.env.TEST_MYSQL_URL = process.env.BENCH_MYSQL_URL;

export interface LoadFigures {
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
}

export interface SingleEventFigures {
  engine: Engine;
  connections: number;
  intake: LoadFigures;
  bareKoa: LoadFigures;
  /** intake / bare Koa requests per second. */
  ratio: number;
}

export interface BatchFigures {
  engine: Engine;
  batchSize: number;
  intakeEventsPerSecond: number;
  rawKnexRowsPerSecond: number;
  /** intake / raw Knex. */
  ratio: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

interface Child {
  url: string;
  stop(): Promise<void>;
}

async function startServer(kind: 'koa' | 'daemon', databaseUrl = ''): Promise<Child> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'intakeServer.ts'), kind], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (!child.stdout) throw new Error('no stdout');
  const lines = readline.createInterface({ input: child.stdout });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  const { url } = JSON.parse(line) as { url: string };
  return {
    url,
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A campaign with a key and one active affiliate, written through the services. */
async function merchantOn(database: TestDatabase) {
  const { campaigns, apiKeys } = servicesFor(database.db);
  const campaign = await campaigns.create({ name: 'bench', plan: 'unlimited' });
  const key = await apiKeys.create({ campaign: campaign.id, name: 'bench' });
  const affiliate = await addAffiliate(database.db, campaign.id);
  return { campaignId: campaign.id, publicId: campaign.publicId, key: key.key, affiliate };
}

async function load(url: string, init: { key?: string; body: string }, connections: number, seconds: number) {
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', ...(init.key ? { 'x-api-key': init.key } : {}) },
    body: init.body,
  });
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
  };
}

const medianFigures = (runs: LoadFigures[]): LoadFigures => ({
  requestsPerSecond: Math.round(median(runs.map((r) => r.requestsPerSecond))),
  p99Ms: median(runs.map((r) => r.p99Ms)),
  non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
});

export async function benchSingleEvents(
  engine: Engine,
  opts: { connections?: number; seconds?: number; runs?: number } = {},
): Promise<SingleEventFigures> {
  const { connections = 64, seconds = 8, runs = 3 } = opts;
  const database = await createTestDatabase({ engine });
  const koa = await startServer('koa');
  const daemon = await startServer('daemon', database.url);
  try {
    const merchant = await merchantOn(database);
    const body = JSON.stringify({ events: [pageView(merchant.publicId, merchant.affiliate.code)] });
    const intakeUrl = `${daemon.url}/v1/events`;
    // Warm both up (JIT, pools, caches) before anything is counted.
    await load(koa.url, { body }, connections, 2);
    await load(intakeUrl, { key: merchant.key, body }, connections, 2);
    const intakeRuns: LoadFigures[] = [];
    const koaRuns: LoadFigures[] = [];
    for (let run = 0; run < runs; run++) {
      koaRuns.push(await load(koa.url, { body }, connections, seconds));
      intakeRuns.push(await load(intakeUrl, { key: merchant.key, body }, connections, seconds));
    }
    const intake = medianFigures(intakeRuns);
    const bareKoa = medianFigures(koaRuns);
    return { engine, connections, intake, bareKoa, ratio: intake.requestsPerSecond / bareKoa.requestsPerSecond };
  } finally {
    await daemon.stop();
    await koa.stop();
    await database.drop();
  }
}

/** The rows a batch of conversions becomes, inserted without the intake: the baseline. */
async function rawKnexBatch(database: TestDatabase, campaignId: number, affiliateId: number, orders: string[]) {
  const now = new Date();
  const intakeId = randomBytes(12).toString('hex');
  await database.db.transaction(async (trx) => {
    await trx('tracking_events').insert(
      orders.map((orderId) => ({
        campaign_id: campaignId,
        affiliate_id: affiliateId,
        event_type: 'conversion',
        event_id: null,
        order_id: orderId,
        session_id: null,
        properties: JSON.stringify({ order_id: orderId, order_value: 10 }),
        device_info: null,
        intake_id: intakeId,
        occurred_at: now,
        created_at: now,
      })),
    );
    const ids = await trx('tracking_events').where('intake_id', intakeId).select('id', 'order_id');
    await trx('conversions').insert(
      ids.map((row) => ({
        campaign_id: campaignId,
        affiliate_id: affiliateId,
        tracking_event_id: row.id,
        order_id: row.order_id ?? '',
        order_value_cents: 1000,
        commission_cents: 100,
        status: 'pending',
        payout_id: null,
        properties: JSON.stringify({ order_id: row.order_id ?? '', order_value: 10 }),
        occurred_at: now,
        created_at: now,
        updated_at: now,
      })),
    );
  });
}

export async function benchBatches(
  engine: Engine,
  opts: { batchSize?: number; batches?: number; runs?: number } = {},
): Promise<BatchFigures> {
  const { batchSize = 500, batches = 20, runs = 3 } = opts;
  const database = await createTestDatabase({ engine });
  const daemon = await startServer('daemon', database.url);
  let sequence = 0;
  const orders = () => Array.from({ length: batchSize }, () => `o-${++sequence}`);
  try {
    const merchant = await merchantOn(database);
    const raw = await merchantOn(database);
    const send = async () => {
      const events = orders().map((order) => conversion(merchant.publicId, merchant.affiliate.code, order, 10));
      const reply = await call(daemon.url, 'POST', '/v1/events', { key: merchant.key, body: { events } });
      if (reply.status !== 200 || reply.body.accepted !== batchSize) throw new Error(`intake answered ${reply.status}`);
    };
    const timed = async (work: () => Promise<void>) => {
      const started = process.hrtime.bigint();
      for (let i = 0; i < batches; i++) await work();
      return (batches * batchSize) / (Number(process.hrtime.bigint() - started) / 1e9);
    };
    // Warm-up.
    await send();
    await rawKnexBatch(database, raw.campaignId, raw.affiliate.id, orders());
    const intakeRuns: number[] = [];
    const rawRuns: number[] = [];
    for (let run = 0; run < runs; run++) {
      rawRuns.push(await timed(() => rawKnexBatch(database, raw.campaignId, raw.affiliate.id, orders())));
      intakeRuns.push(await timed(send));
    }
    const intakeEventsPerSecond = Math.round(median(intakeRuns));
    const rawKnexRowsPerSecond = Math.round(median(rawRuns));
    return {
      engine,
      batchSize,
      intakeEventsPerSecond,
      rawKnexRowsPerSecond,
      ratio: intakeEventsPerSecond / rawKnexRowsPerSecond,
    };
  } finally {
    await daemon.stop();
    await database.drop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const engines = (process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['sqlite']) as Engine[];
  for (const engine of engines) {
    console.log(JSON.stringify(await benchSingleEvents(engine)));
    console.log(JSON.stringify(await benchBatches(engine)));
  }
}
