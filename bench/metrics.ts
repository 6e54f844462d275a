/**
 * What metrics cost (docs/benchmarks.md, "Metrics"): one page view per POST /v1/events and
 * GET /v1/affiliates/{id} under load, on the daemon as it ships (metrics on) beside the same
 * daemon with METRICS_ENABLED=false, run at the same time: each round starts one daemon of
 * each side (on SQLite, each on its own identical copy of the seeded file), drives both at once
 * with a wrk each, and takes on ÷ off; the two copies swap sides every round, and the figure is
 * the median, over each two rounds in a row, of their ratios' geometric mean. Two
 * sides measured in the same seconds meet the same machine, which sides measured in turns on a
 * shared machine did not (their ratios moved from 0.55 to 1.26 between runs of one build).
 *
 * Run alone (after `npm run build`): `node --import tsx bench/metrics.ts [sqlite|mysql] [metrics]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { comparisonBound, type LoadSide, measure, type SideResult, summarise } from './lib/compare.js';
import { startDaemonChild } from './lib/daemon.js';
import { runIfMain } from './lib/direct.js';
import { pageViewRequest } from './lib/events.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { part, type Part } from './lib/part.js';
import { type Stage, seedAffiliates, withStage } from './lib/stage.js';
import { median } from './lib/stats.js';

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

type Run = Awaited<ReturnType<typeof measure>>;

/** Where each side's daemon reads: on MySQL the stage's database; on SQLite one copy each. */
async function twinDatabases(stage: Stage): Promise<{ urls: [string, string]; drop: () => void }> {
  if (stage.engine === 'mysql') return { urls: [stage.database.url, stage.database.url], drop: () => undefined };
  // A SQLite file serves one daemon: each side reads its own consistent copy (VACUUM INTO) of the
  // seeded file, both written the same way, so they meet the same rows laid out alike (the
  // stage's own file, grown by the writes before, read differently from a fresh copy).
  const dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-bench-metrics-'));
  const copies = ['a', 'b'].map((name) => path.join(dir, `${name}.sqlite3`));
  for (const copy of copies) await stage.db.raw('VACUUM INTO ?', [copy]);
  return {
    urls: [`sqlite:${copies[0]}`, `sqlite:${copies[1]}`],
    drop: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * `opts.repeats` rounds. Each starts two daemons at once, one with metrics on and one off,
 * each driven by its own wrk at half the connections, for the same seconds: whatever else the
 * machine does in those seconds, both sides meet it. A round's figure is on ÷ off. The two
 * databases swap sides every round, so a difference between them (or between the daemon
 * started first and second) cancels in pairs of rounds (pairedMeans); the median over the pairs
 * is the figure.
 */
async function sideBySide(
  stage: Stage,
  opts: BenchOptions,
  request: (url: string) => LoadSide['request'],
): Promise<Paired> {
  const runs: Record<'on' | 'off', Run[]> = { on: [], off: [] };
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  const twins = await twinDatabases(stage);
  const half = { ...opts, connections: Math.max(1, Math.round(opts.connections / 2)) };
  try {
    // Rounds come in pairs (pairedMeans): BENCH_REPEATS rounded up to an even number.
    const rounds = Math.max(2, opts.repeats + (opts.repeats % 2));
    for (let round = 0; round < rounds; round++) {
      const sides = round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      const loads = await Promise.all(
        sides.map(async (side, i) => {
          const child = await startDaemonChild(twins.urls[i] ?? stage.database.url, {
            logLevel: opts.daemonLogLevel,
            env: { METRICS_ENABLED: side === 'on' ? 'true' : 'false' },
            profile: `metrics-${side}-${stage.engine}`,
          });
          const load: LoadSide = {
            name: `metrics ${side}`,
            child,
            alsoWatch: stage.databaseServer,
            request: request(child.url),
          };
          return { side, load };
        }),
      );
      try {
        if (opts.warmupSec > 0) await Promise.all(loads.map(({ load }) => measure(load, half, opts.warmupSec)));
        const measured = await Promise.all(loads.map(({ load }) => measure(load, half, opts.durationSec)));
        const bySide = Object.fromEntries(loads.map(({ side }, i) => [side, measured[i]])) as Record<'on' | 'off', Run>;
        runs.on.push(bySide.on);
        runs.off.push(bySide.off);
        ratios.push(bySide.on.result.reqPerSec / bySide.off.result.reqPerSec);
        cpuRatios.push(bySide.on.reqPerCpuSec / bySide.off.reqPerCpuSec);
      } finally {
        await Promise.all(loads.map(({ load }) => load.child.stop()));
      }
    }
  } finally {
    twins.drop();
  }
  return {
    real: summarise('metrics on', runs.on),
    baseline: summarise('metrics off', runs.off),
    ratio: median(pairedMeans(ratios)),
    cpuRatio: median(pairedMeans(cpuRatios)),
    rounds: ratios,
  };
}

/**
 * The geometric mean of each two rounds in a row: the two databases (and daemons started first
 * and second) swap sides between them, so a difference between the two copies scales one
 * round's ratio up by what it scales the other's down, and their mean is left with metrics'
 * own cost. One round alone stands for itself.
 */
function pairedMeans(ratios: number[]): number[] {
  if (ratios.length < 2) return ratios;
  const means: number[] = [];
  for (let i = 0; i + 1 < ratios.length; i += 2) means.push(Math.sqrt((ratios[i] ?? 0) * (ratios[i + 1] ?? 0)));
  return means;
}

/** Both sides' medians, and the median of the rounds' paired ratios (what the target reads). */
interface Paired {
  real: SideResult;
  baseline: SideResult;
  ratio: number;
  cpuRatio: number;
  rounds: number[];
}

function figuresOf(engine: Engine, name: string, c: Paired, note: string): Figure[] {
  const rounds = c.rounds.map((r) => r.toFixed(2)).join(', ');
  return [
    makeFigure({
      name: `${name}, metrics on`,
      engine,
      value: c.real.reqPerSec,
      unit: 'req/s',
      baseline: c.baseline.reqPerSec,
      baselineName: BASELINE,
      ratio: c.ratio,
      target: { on: 'ratio', op: '>=', limit: METRICS_TARGET },
      note: `${note}; ratio: the median over pairs of rounds of their geometric mean (rounds: ${rounds})`,
      ...comparisonBound(c),
    }),
    makeFigure({
      name: `${name}, metrics on, requests per CPU-second of the daemon`,
      engine,
      value: c.real.reqPerCpuSec,
      unit: 'req/CPU-s',
      baseline: c.baseline.reqPerCpuSec,
      baselineName: 'metrics off',
      ratio: c.cpuRatio,
      note: 'the same runs, the same pairing',
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
      const intake = await sideBySide(stage, opts, (url) => ({ url: `${url}/v1/events`, ...event }));
      const paths = await getPaths(stage);
      const headers = { 'x-api-key': stage.merchant.key };
      const reads = await sideBySide(stage, opts, (url) => ({ url, paths, headers }));
      const note = `${opts.connections} connections, wrk, both sides at once (half each), a daemon per side and round`;
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
