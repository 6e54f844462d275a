import { boundOf } from './bound.js';
import type { Child } from './child.js';
import { type CpuShares, medianShares, watchCpu } from './cpu.js';
import { type LoadOptions, loadOk } from './load.js';
import type { BenchOptions } from './options.js';
import { median } from './stats.js';

/** One side of a comparison: a server child and the request wrk sends it. */
export interface LoadSide {
  /** How the tables and the CPU shares name the process ("daemon", "bare Koa"). */
  name: string;
  child: Child;
  /** Other processes to watch while it runs (the database server), by name. */
  alsoWatch?: Record<string, number>;
  request: Omit<LoadOptions, 'connections' | 'durationSec' | 'threads'>;
}

/** A side's medians over the rounds. */
export interface SideResult {
  reqPerSec: number;
  p99Ms: number;
  /** Requests answered per CPU-second of the server process: what a machine of its own would serve. */
  reqPerCpuSec: number;
  /** Where the CPU went during its runs, and the verdict on what bounded it. */
  shares: CpuShares;
  bound: string;
}

/** One wrk run against a side, with where the CPU went while it ran (for a comparison of its own: bench/metrics.ts). */
export async function measure(side: LoadSide, opts: BenchOptions, durationSec: number) {
  const cpu = watchCpu({ [side.name]: side.child.pid, ...side.alsoWatch });
  const result = await loadOk({
    ...side.request,
    connections: opts.connections,
    durationSec,
    threads: opts.wrkThreads,
  });
  const shares = cpu.stop({ wrk: result.generatorCpuMs });
  const serverCpuSec = ((shares.processes[side.name] ?? Number.NaN) * shares.wallMs) / 1000;
  return { result, shares, reqPerCpuSec: result.requests / serverCpuSec };
}

export function summarise(name: string, runs: Awaited<ReturnType<typeof measure>>[]): SideResult {
  const shares = medianShares(runs.map((r) => r.shares));
  return {
    reqPerSec: median(runs.map((r) => r.result.reqPerSec)),
    p99Ms: median(runs.map((r) => r.result.p99Ms)),
    reqPerCpuSec: median(runs.map((r) => r.reqPerCpuSec)),
    shares,
    bound: boundOf(name, shares),
  };
}

/**
 * The throughput comparison most HTTP figures are: a warm-up of each side, then
 * `opts.repeats` rounds, each a wrk run against the baseline and then one against the real
 * server (so both meet the same machine), at `opts.connections` connections for
 * `opts.durationSec`. Medians per side, with the CPU shares that say what bounded each: a
 * baseline whose server was not at its CPU ceiling is a soft one, and the table says so.
 */
export async function compareUnderLoad(
  opts: BenchOptions,
  sides: { real: LoadSide; baseline: LoadSide },
): Promise<{ real: SideResult; baseline: SideResult }> {
  if (opts.warmupSec > 0) {
    await measure(sides.baseline, opts, opts.warmupSec);
    await measure(sides.real, opts, opts.warmupSec);
  }
  const real: Awaited<ReturnType<typeof measure>>[] = [];
  const baseline: Awaited<ReturnType<typeof measure>>[] = [];
  for (let round = 0; round < opts.repeats; round++) {
    baseline.push(await measure(sides.baseline, opts, opts.durationSec));
    real.push(await measure(sides.real, opts, opts.durationSec));
  }
  return { real: summarise(sides.real.name, real), baseline: summarise(sides.baseline.name, baseline) };
}

/** The figure fields a comparison gives: what bounded each side, and where the CPU went. */
export function comparisonBound(c: { real: SideResult; baseline: SideResult }) {
  return {
    bound: `${c.real.bound}; baseline: ${c.baseline.bound}`,
    cpu: { measured: c.real.shares, baseline: c.baseline.shares },
  };
}
