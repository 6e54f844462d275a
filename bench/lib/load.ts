import autocannon from 'autocannon';
import { percentile } from './stats.js';
import { type LoadResult, wrkLoad, type WrkOptions } from './wrk.js';

export type { LoadResult } from './wrk.js';
export type LoadOptions = WrkOptions;

/** Throws unless every answer of the run was below 400: a rate with failures in it means little. */
export function assertOk(result: LoadResult, what: string): LoadResult {
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${what}: ${result.non2xx} error answers and ${result.errors} connection errors under load`);
  return result;
}

/**
 * A throughput run driven by wrk, refusing a run in which an error came back. wrk, not a Node
 * generator, so that the generator is never what bounds the rate: on 2 cores a Node client
 * competes with the server for the same kind of work (HTTP parsing) at a similar cost per request.
 */
export async function loadOk(options: LoadOptions): Promise<LoadResult> {
  return assertOk(await wrkLoad(options), `${options.method ?? 'GET'} ${options.url}`);
}

/**
 * A run that keeps every answer's latency and arrival time, and can stop early, which wrk
 * cannot: autocannon (from npm), in this process. For latency windows within one run, whose
 * baseline is another window of the same run, so the generator weighs on both sides alike.
 */
export async function sampledLoad(
  options: LoadOptions & { until?: Promise<unknown>; keepSamples?: boolean },
): Promise<LoadResult> {
  const started = performance.now();
  const cpu0 = process.cpuUsage();
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
  const cpu = process.cpuUsage(cpu0);
  return {
    reqPerSec: result['2xx'] / (result.duration || options.durationSec),
    requests: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    generatorCpuMs: (cpu.user + cpu.system) / 1000,
    samples,
  };
}

/**
 * The p95 latency of a sampled run of `durationSec` (a page beside its baseline, both measured
 * this way). A run with an error answer, or with no answer at all (the daemon still busy with
 * the other side's backlog), has no p95: it throws.
 */
export async function sampledP95(options: LoadOptions & { durationSec: number }, what: string): Promise<number> {
  const run = assertOk(await sampledLoad({ ...options, keepSamples: true }), what);
  if (run.samples.length === 0) throw new Error(`${what}: no answer within ${options.durationSec} s`);
  return percentile(
    run.samples.map((s) => s.ms),
    95,
  );
}
