import autocannon from 'autocannon';

export interface LoadResult {
  reqPerSec: number;
  /** Every answer's latency in ms with the time (ms since start) it arrived. */
  samples: Array<{ at: number; ms: number }>;
  errors: number;
  non2xx: number;
}

/** autocannon against one URL; the per-response latencies are kept for windowed percentiles. */
export async function load(options: {
  url: string;
  connections: number;
  durationSeconds: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  paths?: string[];
  /** Stops the load early when it settles. */
  until?: Promise<unknown>;
}): Promise<LoadResult> {
  const started = performance.now();
  const samples: LoadResult['samples'] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationSeconds,
        method: options.method ?? 'GET',
        headers: options.headers,
        body: options.body,
        requests: options.paths?.map((path) => ({ path })),
        setupClient(client) {
          client.on('response', (_status: number, _bytes: number, ms: number) => {
            samples.push({ at: performance.now() - started, ms });
          });
        },
      },
      (err, done) => (err ? reject(err) : resolve(done)),
    );
    void options.until?.finally(() => instance.stop());
  });
  return { reqPerSec: result.requests.average, samples, errors: result.errors, non2xx: result.non2xx };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}
