import autocannon from 'autocannon';

export interface LoadResult {
  /** Answers with a 2xx status per second over the run. */
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers outside 2xx, and connection errors and timeouts: a figure with any is not valid. */
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSec: number;
}

/**
 * One autocannon run against `url` (a load generator from npm, so the bench runs on a fresh
 * clone). Every connection sends the same request again as soon as it has its answer.
 */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections,
    duration: options.durationSec,
  });
  return {
    reqPerSec: result['2xx'] / (result.duration || options.durationSec),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** load(), refusing a run in which anything but a 2xx came back: its rate would not mean much. */
export async function loadOk(options: LoadOptions): Promise<LoadResult> {
  const result = await load(options);
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${options.method ?? 'GET'} ${options.url}: ${result.non2xx} answers outside 2xx and ${result.errors} errors under load`,
    );
  }
  return result;
}
