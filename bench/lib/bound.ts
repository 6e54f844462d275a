import type { CpuShares } from './cpu.js';

/** A Node process past this share of a core is taken as bound by its own CPU (its one JS thread). */
const CPU_BOUND = 0.9;
/** The machine past this share of all its cores is taken as full. */
const MACHINE_FULL = 0.9;

const pct = (x: number) => `${Number.isFinite(x) ? Math.round(x * 100) : '?'} %`;

/**
 * What bounded `name`'s rate in a run, read from where the CPU went: its own CPU (a Node
 * process serves from one thread), the machine (every core busy, so it got less than it
 * could use), or neither, in which case it was waiting (a daemon for the database: a commit's
 * fsync, a MariaDB round trip; or for its client). The other watched processes' shares follow. A
 * verdict, not a profile: BENCH_CPU_PROF says what inside the process took the time.
 */
export function boundOf(
  name: string,
  shares: CpuShares,
  /** What it waits on when it is neither CPU- nor machine-bound. */
  waitsOn = 'the database (fsync, round trips) or its client',
): string {
  const own = shares.processes[name] ?? Number.NaN;
  if (!Number.isFinite(own)) return `${name}: CPU not measured`;
  const rest = Object.entries(shares.processes)
    .filter(([other]) => other !== name)
    .map(([other, share]) => `${other} ${pct(share)}`);
  const besides = rest.length > 0 ? ` (${rest.join(', ')})` : '';
  if (own >= CPU_BOUND) return `${name}'s CPU: ${pct(own)} of a core${besides}`;
  const busy = Object.values(shares.processes).reduce((sum, x) => sum + (Number.isFinite(x) ? x : 0), shares.others);
  if (busy >= MACHINE_FULL * shares.cores)
    return `the machine: ${name} got ${pct(own)} of a core, other work took ${pct(shares.others)}${besides}`;
  return `waiting: ${name} busy ${pct(own)} of a core${besides}, on ${waitsOn}`;
}
