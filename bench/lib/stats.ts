/** The middle value (the mean of the two middle ones for an even count); 0 for none. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

/** Nearest-rank percentile (p in 0..100) of the samples; 0 for none. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const rank = Math.min(s.length, Math.max(1, Math.ceil((p / 100) * s.length)));
  return s[rank - 1] ?? 0;
}

/** Milliseconds `work` took, on the monotonic clock. */
export async function timeMs(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Runs `round` `repeats` times and gives, for each number it returns, the median over the rounds.
 * A round measures the figure and its baseline one after the other, so both see the same
 * machine noise; the medians are then taken separately.
 */
export async function medianOfRounds<K extends string>(
  repeats: number,
  round: (index: number) => Promise<Record<K, number>>,
): Promise<Record<K, number>> {
  const samples = new Map<K, number[]>();
  for (let i = 0; i < repeats; i++) {
    const result = await round(i);
    for (const [key, value] of Object.entries(result) as Array<[K, number]>) {
      samples.set(key, [...(samples.get(key) ?? []), value]);
    }
  }
  return Object.fromEntries([...samples].map(([key, values]) => [key, median(values)])) as Record<K, number>;
}
