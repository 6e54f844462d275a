import type { CpuShares } from './cpu.js';

/**
 * One row of the results table: a figure measured on one engine, beside the baseline measured in
 * the same run on the same machine, their ratio and the target it is held to.
 */

export type Engine = 'sqlite' | 'mysql';

export interface Figure {
  /** What is measured, as the table shows it ("one page view per POST /v1/events"). */
  name: string;
  engine: Engine;
  value: number;
  unit: string;
  /** The baseline of the same run, and what it is ("bare Koa"). */
  baseline: number;
  baselineUnit: string;
  baselineName: string;
  /** value ÷ baseline. */
  ratio: number;
  /** The target as text ("ratio ≥ 0.25", "≤ 50 ms"); empty when the figure has none. */
  target: string;
  /** Whether the target is met; null when there is no target. */
  met: boolean | null;
  /** Anything a reader needs to read the figure right (scale, connections, samples). */
  note?: string;
  /**
   * What bounded the measured side, and the baseline's, as the run saw it (bench/lib/bound.ts):
   * the process's own CPU, the machine, or waiting. It is what to read first when a target is missed.
   */
  bound?: string;
  /** The machine's 1-minute load average when its part started (bench/run.ts sets it). */
  loadAverage?: number;
  /** Where the CPU went while each side was measured (median shares over the rounds), for the JSON. */
  cpu?: { measured?: CpuShares; baseline?: CpuShares };
}

/** A target on the ratio or on the value itself. */
export interface Target {
  on: 'ratio' | 'value';
  op: '>=' | '<=';
  limit: number;
}

const SIGN = { '>=': '≥', '<=': '≤' } as const;

export function describeTarget(target: Target, unit: string): string {
  return target.on === 'ratio'
    ? `ratio ${SIGN[target.op]} ${target.limit}`
    : `${SIGN[target.op]} ${target.limit} ${unit}`;
}

export function meets(target: Target, value: number, ratio: number): boolean {
  const x = target.on === 'ratio' ? ratio : value;
  return target.op === '>=' ? x >= target.limit : x <= target.limit;
}

/** Builds a figure: the ratio is computed, the target described and checked. */
export function makeFigure(input: {
  name: string;
  engine: Engine;
  value: number;
  unit: string;
  baseline: number;
  baselineUnit?: string;
  baselineName: string;
  /**
   * value ÷ baseline unless given: a comparison of paired rounds gives the median of the
   * rounds' own ratios, which a drift between rounds cannot move (bench/metrics.ts).
   */
  ratio?: number;
  /** One target, or several that must all hold. */
  target?: Target | Target[];
  note?: string;
  bound?: string;
  cpu?: Figure['cpu'];
}): Figure {
  const targets = input.target === undefined ? [] : Array.isArray(input.target) ? input.target : [input.target];
  const ratio = input.ratio ?? (input.baseline > 0 ? input.value / input.baseline : Number.NaN);
  const figure: Figure = {
    name: input.name,
    engine: input.engine,
    value: input.value,
    unit: input.unit,
    baseline: input.baseline,
    baselineUnit: input.baselineUnit ?? input.unit,
    baselineName: input.baselineName,
    ratio,
    target: targets.map((t) => describeTarget(t, input.unit)).join(', '),
    met: targets.length > 0 ? targets.every((t) => meets(t, input.value, ratio)) : null,
  };
  if (input.note) figure.note = input.note;
  if (input.bound) figure.bound = input.bound;
  if (input.cpu) figure.cpu = input.cpu;
  return figure;
}
