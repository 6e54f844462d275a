/**
 * What metrics cost (docs/benchmarks.md, "Metrics"): one page view per POST /v1/events and
 * GET /v1/affiliates/{id} under load, on the daemon as it ships (metrics on) beside the same
 * daemon with METRICS_ENABLED=false, in the same run, rounds interleaved, medians. Each side has
 * its own database seeded alike: a SQLite file serves one daemon.
 *
 * Run alone (after `npm run build`): `node --import tsx bench/metrics.ts [sqlite|mysql] [metrics]`.
 */
import { compareUnderLoad, comparisonBound, type SideResult } from './lib/compare.js';
import { runIfMain } from './lib/direct.js';
import { pageViewRequest } from './lib/events.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { part, type Part } from './lib/part.js';
import { type Stage, seedAffiliates, withStage } from './lib/stage.js';

/** Metrics may take at most 5 % of either route's throughput. */
const METRICS_TARGET = 0.95;

const BASELINE = 'the same daemon with METRICS_ENABLED=false';

/** 200 ids of the stage's campaign, each a path of the get by id. */
async function getPaths(stage: Stage): Promise<string[]> {
  const ids = await stage
    .db('affiliates')
    .where({ campaign_id: stage.merchant.campaignId })
    .orderBy('id')
    .limit(200)
    .pluck('id');
  return ids.map((id) => `/v1/affiliates/${id}`);
}

function figuresOf(
  engine: Engine,
  name: string,
  c: { real: SideResult; baseline: SideResult },
  note: string,
): Figure[] {
  return [
    makeFigure({
      name: `${name}, metrics on`,
      engine,
      value: c.real.reqPerSec,
      unit: 'req/s',
      baseline: c.baseline.reqPerSec,
      baselineName: BASELINE,
      target: { on: 'ratio', op: '>=', limit: METRICS_TARGET },
      note,
      ...comparisonBound(c),
    }),
    makeFigure({
      name: `${name}, metrics on, requests per CPU-second of the daemon`,
      engine,
      value: c.real.reqPerCpuSec,
      unit: 'req/CPU-s',
      baseline: c.baseline.reqPerCpuSec,
      baselineName: 'metrics off',
      note: 'the same runs; moves less with the rest of the machine',
    }),
  ];
}

export function benchMetricsCost(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  const seed = seedAffiliates(1_000, 10_000);
  return withStage(
    engine,
    opts,
    (on) =>
      withStage(
        engine,
        opts,
        async (off) => {
          const side = (
            stage: Stage,
            name: string,
            request: Parameters<typeof compareUnderLoad>[1]['real']['request'],
          ) => ({
            name,
            child: stage.daemon,
            alsoWatch: stage.databaseServer,
            request,
          });
          const [onEvent, offEvent] = await Promise.all([
            pageViewRequest(on.db, on.merchant),
            pageViewRequest(off.db, off.merchant),
          ]);
          const intake = await compareUnderLoad(opts, {
            baseline: side(off, 'metrics off', { url: `${off.daemon.url}/v1/events`, ...offEvent }),
            real: side(on, 'metrics on', { url: `${on.daemon.url}/v1/events`, ...onEvent }),
          });
          const [onPaths, offPaths] = await Promise.all([getPaths(on), getPaths(off)]);
          const reads = await compareUnderLoad(opts, {
            baseline: side(off, 'metrics off', {
              url: off.daemon.url,
              paths: offPaths,
              headers: { 'x-api-key': off.merchant.key },
            }),
            real: side(on, 'metrics on', {
              url: on.daemon.url,
              paths: onPaths,
              headers: { 'x-api-key': on.merchant.key },
            }),
          });
          const note = `${opts.connections} connections, wrk, rounds interleaved`;
          return [
            ...figuresOf(engine, 'one page view per POST /v1/events', intake, note),
            ...figuresOf(engine, 'GET /v1/affiliates/{id}', reads, `${note}, 200 ids in turn`),
          ];
        },
        seed,
        `metricsOff-${engine}`,
        { METRICS_ENABLED: 'false' },
      ),
    seed,
    `metricsOn-${engine}`,
  );
}

export const parts: Part[] = [part('metrics', 'metrics', benchMetricsCost)];

await runIfMain(import.meta.url, parts);
