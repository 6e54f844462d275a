/**
 * The affiliates list at scale: the same requests against a large campaign (BENCH_AFFILIATES
 * affiliates, BENCH_CONVERSIONS conversions) and a small one (100 affiliates, 1,000 conversions)
 * of the same database, one at a time over loopback. Measured on the stage bench/atScale.ts
 * seeds, which the search figures share. A page costs a fixed number of queries
 * whatever the campaign's size, so the ratio should stay near 1; no number was ever set for it.
 */
import { Pool } from 'undici';
import { type Figure, makeFigure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import type { ScaleStage } from './lib/scale.js';
import { median, medianOfRounds, timeMs } from './lib/stats.js';

const CASES: Array<[string, (total: number) => string]> = [
  ['list, page 1 of 100', () => '/v1/affiliates?limit=100'],
  ['list, middle page of 100', (total) => `/v1/affiliates?limit=100&page=${Math.max(1, Math.floor(total / 200))}`],
  ['list, status=inactive', () => '/v1/affiliates?limit=100&status=inactive'],
];

async function medianMs(pool: Pool, path: string, key: string, samples: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples + 3; i++) {
    const ms = await timeMs(async () => {
      const res = await pool.request({ path, method: 'GET', headers: { 'x-api-key': key } });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
    });
    if (i >= 3) times.push(ms); // the first three warm caches
  }
  return median(times);
}

/** The list cases on the large and the small campaign of `stage`, medians over the rounds. */
export async function benchList(stage: ScaleStage, opts: BenchOptions): Promise<Figure[]> {
  const { engine, merchant, daemon, small, ids } = stage;
  const pool = new Pool(daemon.url, { connections: 1 });
  try {
    const figures: Figure[] = [];
    const scale = `${ids.length.toLocaleString('en')} affiliates, ${opts.conversions.toLocaleString('en')} conversions`;
    for (const [name, path] of CASES) {
      const m = await medianOfRounds(opts.repeats, async () => ({
        small: await medianMs(pool, path(100), small.key, opts.samples),
        large: await medianMs(pool, path(ids.length), merchant.key, opts.samples),
      }));
      figures.push(
        makeFigure({
          name: `${name}, ${scale}`,
          engine,
          value: m.large,
          unit: 'ms',
          baseline: m.small,
          baselineName: 'the same at 100 affiliates',
          note: `median of ${opts.samples} one at a time`,
        }),
      );
    }
    return figures;
  } finally {
    await pool.close();
  }
}
