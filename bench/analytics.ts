/**
 * The analytics query's figure: `GET /v1/analytics` for a month, by day, by affiliate, over a
 * rollup seeded straight into `analytics_hourly` (BENCH_ROLLUP_AFFILIATES affiliates, every hour
 * of the month, each row the sum of 67 events) and its day rows (those hours summed per day),
 * one request at a time: p95, beside the p95 of `GET /v1/campaign` interleaved with it (the same
 * daemon's cheapest authenticated read).
 *
 * And what the rollups' upkeep costs intake: conversions in batches of 500, one request at a time,
 * through a daemon that keeps the rollups and one started with ROLLUP_UPKEEP=false on the same
 * database, one after the other each round.
 *
 * Run alone (after `npm run build`):
 * `node --import tsx bench/analytics.ts [sqlite|mysql] [analyticsQuery|rollupUpkeep]`.
 */
import { Pool } from 'undici';
import type { Db } from '../server/db/knex.js';
import { DAY_ROWS } from '../server/repositories/analytics.js';
import { startDaemonChild } from './lib/daemon.js';
import { runIfMain } from './lib/direct.js';
import { activeCodes, sendConversionBatches } from './lib/events.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { part, type Part } from './lib/part.js';
import { seedAffiliates, withStage } from './lib/stage.js';
import { median, medianOfRounds, percentile, timeMs } from './lib/stats.js';

const P95_TARGET_MS = 50;
/** Intake with the rollups' upkeep keeps at least 90 % of its rate without it. */
const UPKEEP_TARGET = 0.9;
const AFFILIATES = Number(process.env.BENCH_ROLLUP_AFFILIATES ?? 200);
/** October 2026: 31 days of 24 hours. */
const FIRST_HOUR = Date.UTC(2026, 9, 1) / 3_600_000;
const HOURS = 31 * 24;
/** One rollup row's counters: 67 events (30 clicks, 20 page views, 10 leads, 7 sales). */
const ROW = {
  clicks: 30,
  bot_clicks: 0,
  page_views: 20,
  leads: 10,
  conversions: 7,
  revenue_cents: 70_000,
  commission_cents: 7_000,
};
const EVENTS_PER_ROW = 67;

async function seedRollup(db: Db, campaignId: number): Promise<number> {
  const ids = await db('affiliates').where({ campaign_id: campaignId }).orderBy('id').limit(AFFILIATES).pluck('id');
  let rows = 0;
  const keyOf = (id: number) => ({
    campaign_id: campaignId,
    affiliate_id: id,
    dims: '',
    shard: 0,
    device: '',
    country: '',
    referrer: '',
    utm_source: '',
  });
  for (let h = 0; h < HOURS; h++) {
    const batch = ids.map((id: number) => ({ ...keyOf(id), hour: FIRST_HOUR + h, ...ROW }));
    await db('analytics_hourly').insert(batch);
    rows += batch.length;
  }
  // The day rows the daemon keeps beside them: each day's hours summed.
  const days = Array.from({ length: HOURS / 24 }, (_, d) => Math.floor(FIRST_HOUR / 24) + d);
  for (const day of days) {
    await db('analytics_hourly').insert(
      ids.map((id: number) => ({
        ...keyOf(id),
        hour: DAY_ROWS + day,
        ...Object.fromEntries(Object.entries(ROW).map(([counter, value]) => [counter, value * 24])),
      })),
    );
  }
  return rows;
}

async function timeGet(pool: Pool, path: string, key: string): Promise<number> {
  return timeMs(async () => {
    const res = await pool.request({ path, method: 'GET', headers: { 'x-api-key': key } });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
  });
}

export function benchAnalyticsQuery(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  let rows = 0;
  return withStage(
    engine,
    opts,
    async ({ merchant, daemon }) => {
      const pool = new Pool(daemon.url, { connections: 1 });
      const query =
        '/v1/analytics?metrics=clicks,leads,conversions,revenue&interval=day&from=2026-10-01&to=2026-10-31&groupBy=affiliate';
      try {
        for (let i = 0; i < 5; i++) await timeGet(pool, query, merchant.key);
        const m = await medianOfRounds(opts.repeats, async () => {
          const q: number[] = [];
          const c: number[] = [];
          for (let i = 0; i < opts.samples; i++) {
            q.push(await timeGet(pool, query, merchant.key));
            c.push(await timeGet(pool, '/v1/campaign', merchant.key));
          }
          return { query: percentile(q, 95), campaign: percentile(c, 95) };
        });
        return [
          makeFigure({
            name: 'GET /v1/analytics, a month by day by affiliate, p95',
            engine,
            value: m.query,
            unit: 'ms',
            baseline: m.campaign,
            baselineName: 'p95 of GET /v1/campaign, interleaved',
            target: { on: 'value', op: '<=', limit: P95_TARGET_MS },
            note: `${rows.toLocaleString('en-US')} rollup rows (${AFFILIATES} affiliates × ${HOURS} hours) holding ${(rows * EVENTS_PER_ROW).toLocaleString('en-US')} events; ${opts.samples} requests a round, one at a time`,
          }),
        ];
      } finally {
        await pool.close();
      }
    },
    async (db, merchant) => {
      await seedAffiliates(AFFILIATES)(db, merchant);
      rows = await seedRollup(db, merchant.campaignId);
    },
    `analyticsQuery-${engine}`,
  );
}

export function benchRollupUpkeep(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withStage(
    engine,
    opts,
    async ({ db, database, merchant, daemon }) => {
      // A SQLite file serves one daemon: each side gets a daemon of its own in turn, started
      // afresh every round and warmed up alike, on both engines.
      await daemon.stop();
      const codes = await activeCodes(db, merchant.campaignId);
      const side = async (upkeep: boolean, tag: string) => {
        const child = await startDaemonChild(database.url, {
          logLevel: opts.daemonLogLevel,
          env: { ROLLUP_UPKEEP: String(upkeep) },
          profile: `rollupUpkeep-${upkeep ? 'on' : 'off'}-${engine}`,
        });
        const send = (name: string, batches: number) =>
          sendConversionBatches(child.url, merchant.key, merchant.publicId, codes, {
            batches,
            size: opts.batchSize,
            tag: name,
          });
        try {
          await send(`${tag}-warm`, 3);
          return await send(tag, opts.batches);
        } finally {
          await child.stop();
        }
      };
      const on: number[] = [];
      const off: number[] = [];
      for (let round = 0; round < opts.repeats; round++) {
        on.push(await side(true, `on${round}`));
        off.push(await side(false, `off${round}`));
      }
      return [
        makeFigure({
          name: `conversions in batches of ${opts.batchSize}, rollup upkeep`,
          engine,
          value: median(on),
          unit: 'events/s',
          baseline: median(off),
          baselineName: 'the same batches through a daemon with ROLLUP_UPKEEP=false',
          target: { on: 'ratio', op: '>=', limit: UPKEEP_TARGET },
          note: `${(opts.batches * opts.batchSize).toLocaleString('en-US')} events a round and side, one request at a time, sides alternating`,
        }),
      ];
    },
    seedAffiliates(100),
    `rollupUpkeep-${engine}`,
  );
}

export const parts: Part[] = [
  part('analytics', 'analyticsQuery', benchAnalyticsQuery),
  part('analytics', 'rollupUpkeep', benchRollupUpkeep),
];

await runIfMain(import.meta.url, parts);
