import type { Engine, Figure } from './figure.js';
import type { BenchOptions } from './options.js';

/**
 * A part of the bench: the figures of one thing, measured on one engine at a time. A module of
 * bench/ (one per area) exports its parts as `parts`; bench/run.ts lists the modules, and
 * `runIfMain` (bench/lib/direct.ts) runs a module alone.
 */
export interface Part {
  /** What BENCH_ONLY and a module run alone call it (`single`); several when it measures several on one stage. */
  names: string[];
  /** Its areas, which BENCH_ONLY also takes (`intake`). */
  groups: string[];
  /**
   * The engines it measures on, every engine of the run when absent. The Galera part compares
   * MariaDB servers with each other, so it runs once, on MySQL's turn.
   */
  engines?: readonly Engine[];
  run: (engine: Engine, opts: BenchOptions) => Promise<Figure[]>;
}

/** A part of one name in one area. */
export function part(group: string, name: string, run: Part['run']): Part {
  return { names: [name], groups: [group], run };
}

/**
 * Why `p` cannot run on any of `engines` (undefined when it can): the message a run records
 * instead of leaving the part out unseen.
 */
export function strandedBy(p: Part, engines: readonly Engine[]): string | undefined {
  if (!p.engines || p.engines.some((e) => engines.includes(e))) return undefined;
  return (
    `${p.names.join('+')} runs on ${p.engines.join(', ')} only: set BENCH_MYSQL_URL or TEST_MYSQL_URL ` +
    '(`eval "$(bash scripts/test-services.sh)"` sets the latter) and leave BENCH_ENGINES unset or name mysql'
  );
}

/** Whether `p` measures on `engine` (every part does, but those that name their engines). */
export function runsOn(p: Part, engine: Engine): boolean {
  return !p.engines || p.engines.includes(engine);
}

/** Whether BENCH_ONLY asks for `p` (everything when it is empty). */
export function wanted(options: BenchOptions, p: Part): boolean {
  return options.only.length === 0 || [...p.names, ...p.groups].some((n) => options.only.includes(n));
}
