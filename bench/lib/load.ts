import autocannon from 'autocannon';

export interface LoadResult {
  /** Answers with a 2xx status per second over the run. */
  reqPerSec: number;
  /** Answers of any status. */
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers outside 2xx, and connection errors and timeouts: a figure with any is not valid. */
  non2xx: number;
  errors: number;
  /** With `keepSamples`: each answer's latency and when it arrived (ms since the start). */
  samples: Array<{ at: number; ms: number }>;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Paths sent in turn on each connection (e.g. many ids); `url`'s own path when absent. */
  paths?: string[];
  connections: number;
  durationSec: number;
  /** Ends the run early once it settles. */
  until?: Promise<unknown>;
  /** Keep every answer's latency, for percentiles over a window of the run. */
  keepSamples?: boolean;
}

/**
 * One autocannon run against `url` (a load generator from npm, so the bench runs on a fresh
 * clone). Every connection sends the next request as soon as it has its answer.
 */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const started = performance.now();
  const samples: LoadResult['samples'] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: options.method ?? 'GET',
        headers: options.headers,
        body: options.body,
        requests: options.paths?.map((path) => ({ path })),
        connections: options.connections,
        duration: options.durationSec,
        setupClient: options.keepSamples
          ? (client) => {
              client.on('response', (_status: number, _bytes: number, ms: number) => {
                samples.push({ at: performance.now() - started, ms });
              });
            }
          : undefined,
      },
      (err, done) => (err ? reject(err) : resolve(done)),
    );
    void options.until?.finally(() => instance.stop());
  });
  return {
    reqPerSec: result['2xx'] / (result.duration || options.durationSec),
    requests: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    samples,
  };
}

/** Throws unless every answer of the run was a 2xx: a rate with failures in it means little. */
export function assertOk(result: LoadResult, what: string): LoadResult {
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${what}: ${result.non2xx} answers outside 2xx and ${result.errors} errors under load`);
  return result;
}

/** load(), refusing a run in which anything but a 2xx came back. */
export async function loadOk(options: LoadOptions): Promise<LoadResult> {
  return assertOk(await load(options), `${options.method ?? 'GET'} ${options.url}`);
}
