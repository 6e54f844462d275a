/**
 * What metrics cost (docs/benchmarks.md, "Metrics"): one page view per POST /v1/events and
 * GET /v1/affiliates/{id} under load, on the daemon as it ships (metrics on) beside the same
 * daemon with METRICS_ENABLED=false, in the same run, medians. A SQLite file serves one daemon,
 * so each round starts the daemon with one side, measures it, stops it, then the other (off
 * first in even rounds, on first in odd ones), on the one database: both sides meet the same
 * data and the same machine.
 *
 * Run alone (after `npm run build`): `node --import tsx bench/metrics.ts [sqlite|mysql] [metrics]`.
 */
import { comparisonBound, type LoadSide, measure, type SideResult, summarise } from './lib/compare.js';
import { startDaemonChild } from './lib/daemon.js';
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

/**
 * `opts.repeats` rounds, each a daemon with metrics off then one with metrics on, started on
 * the stage's database, warmed up, measured and stopped; medians of each side.
 */
async function interleaved(
  stage: Stage,
  opts: BenchOptions,
  request: (url: string) => LoadSide['request'],
): Promise<{ real: SideResult; baseline: SideResult }> {
  const runs: Record<'on' | 'off', Awaited<ReturnType<typeof measure>>[]> = { on: [], off: [] };
  for (let round = 0; round < opts.repeats; round++) {
    // Off first in even rounds, on first in odd ones: on a machine whose load drifts, or whose
    // caches warm as the run goes, neither side is always the one that meets it later.
    const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
    for (const side of order) {
      const child = await startDaemonChild(stage.database.url, {
        logLevel: opts.daemonLogLevel,
        env: { METRICS_ENABLED: side === 'on' ? 'true' : 'false' },
        profile: `metrics-${side}-${stage.engine}`,
      });
      try {
        const load: LoadSide = {
          name: `metrics ${side}`,
          child,
          alsoWatch: stage.databaseServer,
          request: request(child.url),
        };
        if (opts.warmupSec > 0) await measure(load, opts, opts.warmupSec);
        runs[side].push(await measure(load, opts, opts.durationSec));
      } finally {
        await child.stop();
      }
    }
  }
  return { real: summarise('metrics on', runs.on), baseline: summarise('metrics off', runs.off) };
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
  return withStage(
    engine,
    opts,
    async (stage) => {
      // The rounds start their own daemons on this database.
      await stage.daemon.stop();
      const event = await pageViewRequest(stage.db, stage.merchant);
      const intake = await interleaved(stage, opts, (url) => ({ url: `${url}/v1/events`, ...event }));
      const paths = await getPaths(stage);
      const headers = { 'x-api-key': stage.merchant.key };
      const reads = await interleaved(stage, opts, (url) => ({ url, paths, headers }));
      const note = `${opts.connections} connections, wrk, a daemon started per side and round, in turns`;
      return [
        ...figuresOf(engine, 'one page view per POST /v1/events', intake, note),
        ...figuresOf(engine, 'GET /v1/affiliates/{id}', reads, `${note}, 200 ids in turn`),
      ];
    },
    seedAffiliates(1_000, 10_000),
    `metrics-${engine}`,
  );
}

export const parts: Part[] = [part('metrics', 'metrics', benchMetricsCost)];

await runIfMain(import.meta.url, parts);
