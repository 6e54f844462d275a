/**
 * One seed per run: fixed in CI (CI=true) so a failure there reproduces, random locally so every
 * run explores new inputs; FUZZ_SEED=n replays a given run. Printed at the start and on failure.
 */
const FIXED_CI_SEED = 20261122;

function chooseSeed(): number {
  const given = process.env.FUZZ_SEED;
  if (given !== undefined && /^-?\d+$/.test(given)) return Number(given);
  if (process.env.CI === 'true') return FIXED_CI_SEED;
  return Math.floor(Math.random() * 2 ** 31);
}

export const SEED = chooseSeed();

/** A small deterministic generator (mulberry32) for the choices made outside fast-check. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const reproduce = (what: string) => `${what} (seed ${SEED}; re-run with FUZZ_SEED=${SEED})`;
