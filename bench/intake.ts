/**
 * Intake figures: one page view per POST /v1/events under load, against bare Koa answering the
 * same JSON (both driven by wrk); conversions in batches of 500, against exactly the rows a
 * batch writes inserted raw through the same driver, one transaction a batch.
 *
 * Run alone (after `npm run build`): `node --import tsx bench/intake.ts [sqlite|mysql] [single|batches]`.
 */
import { withBareKoa } from './lib/bareKoa.js';
import { boundOf } from './lib/bound.js';
import { compareUnderLoad, comparisonBound } from './lib/compare.js';
import { type CpuShares, medianShares, whileWatching } from './lib/cpu.js';
import { runIfMain } from './lib/direct.js';
import { activeCodes, pageViewRequest, sendConversionBatches } from './lib/events.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { part, type Part } from './lib/part.js';
import { ensureUsageRow, rawInsertBatch } from './lib/rawInsert.js';
import { seedAffiliates, withStage } from './lib/stage.js';
import { median, timeMs } from './lib/stats.js';

/** Targets (docs/benchmarks.md). */
const SINGLE_TARGET = 0.4;
const P99_TARGET_MS = 50;
const BATCH_TARGET = 0.6;

/** One page view per request at `connections` connections: req/s and p99, beside bare Koa. */
export function benchSingleEvents(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withStage(
    engine,
    opts,
    async ({ db, merchant, daemon, databaseServer }) => {
      const request = await pageViewRequest(db, merchant);
      const c = await withBareKoa(
        (koa) =>
          compareUnderLoad(opts, {
            baseline: { name: 'bare Koa', child: koa, request: { url: `${koa.url}/v1/events`, ...request } },
            real: {
              name: 'daemon',
              child: daemon,
              alsoWatch: databaseServer,
              request: { url: `${daemon.url}/v1/events`, ...request },
            },
          }),
        { profile: `bareKoa-single-${engine}` },
      );
      const note = `${opts.connections} connections, wrk`;
      return [
        makeFigure({
          name: 'one page view per POST /v1/events',
          engine,
          value: c.real.reqPerSec,
          unit: 'req/s',
          baseline: c.baseline.reqPerSec,
          baselineName: 'bare Koa answering the same JSON',
          target: { on: 'ratio', op: '>=', limit: SINGLE_TARGET },
          note,
          ...comparisonBound(c),
        }),
        makeFigure({
          name: 'one page view per POST /v1/events, p99',
          engine,
          value: c.real.p99Ms,
          unit: 'ms',
          baseline: c.baseline.p99Ms,
          baselineName: 'bare Koa',
          target: { on: 'value', op: '<=', limit: P99_TARGET_MS },
          note,
          bound: c.real.bound,
        }),
      ];
    },
    seedAffiliates(10),
    `single-${engine}`,
  );
}

/**
 * Conversions in batches of 500 sent one request at a time (one transaction a batch on both
 * sides: with several in flight the daemon would merge them into one commit, which the raw
 * side does not), events/s beside exactly those rows inserted raw.
 */
export async function benchBatches(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withStage(
    engine,
    opts,
    async ({ db, merchant, daemon, databaseServer }) => {
      const codes = await activeCodes(db, merchant.campaignId);
      const affiliateIds = (
        await db('affiliates').where({ campaign_id: merchant.campaignId, status: 'active' }).orderBy('id').pluck('id')
      ).map(Number);
      const events = opts.batches * opts.batchSize;
      const raw = async (tag: string) => {
        const ms = await timeMs(async () => {
          for (let b = 0; b < opts.batches; b++) {
            const orderIds = Array.from({ length: opts.batchSize }, (_, i) => `${tag}-${b * opts.batchSize + i}`);
            await rawInsertBatch(db, {
              campaignId: merchant.campaignId,
              affiliateIds,
              orderIds,
              intakeId: `${tag}-${b}`,
            });
          }
        });
        return events / (ms / 1000);
      };
      const intake = (tag: string, batches = opts.batches) =>
        sendConversionBatches(daemon.url, merchant.key, merchant.publicId, codes, {
          batches,
          size: opts.batchSize,
          tag,
        });
      // Warm-up: a few batches of each, so neither pays for a cold start.
      await intake('warm', 3);
      await ensureUsageRow(db, merchant.campaignId);
      await raw('rawwarm');
      const pids = { daemon: daemon.pid, 'bench (raw insert, client)': process.pid, ...databaseServer };
      const real: Array<{ rate: number; shares: CpuShares }> = [];
      const floor: Array<{ rate: number; shares: CpuShares }> = [];
      for (let round = 0; round < opts.repeats; round++) {
        const r = await whileWatching(pids, () => intake(`r${round}`));
        real.push({ rate: r.value, shares: r.shares });
        const f = await whileWatching(pids, () => raw(`raw${round}`));
        floor.push({ rate: f.value, shares: f.shares });
      }
      const realShares = medianShares(real.map((r) => r.shares));
      const floorShares = medianShares(floor.map((r) => r.shares));
      return [
        makeFigure({
          name: `conversions in batches of ${opts.batchSize}`,
          engine,
          value: median(real.map((r) => r.rate)),
          unit: 'events/s',
          baseline: median(floor.map((r) => r.rate)),
          baselineName: 'the same rows inserted raw, one transaction a batch',
          target: { on: 'ratio', op: '>=', limit: BATCH_TARGET },
          note: `${events.toLocaleString('en')} a round, one request at a time`,
          bound: `${boundOf('daemon', realShares)}; baseline: ${boundOf('bench (raw insert, client)', floorShares)}`,
          cpu: { measured: realShares, baseline: floorShares },
        }),
      ];
    },
    seedAffiliates(100),
    `batches-${engine}`,
  );
}

export const parts: Part[] = [part('intake', 'single', benchSingleEvents), part('intake', 'batches', benchBatches)];

await runIfMain(import.meta.url, parts);
