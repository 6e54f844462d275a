/**
 * A single-event intake probe in a process of its own (docs/benchmarks.md, "Payouts"): one page
 * view per `POST /v1/events`, one request at a time with 10 ms between them. The bench that
 * plays the payment providers runs their fakes in its own process: a probe there timed, beside
 * the daemon's answer, how long that busy event loop took to notice it.
 *
 *   node --import tsx bench/lib/probe.ts URL KEY BODY
 *
 * Each line on its stdin closes a phase (`cut`); when stdin closes, it prints every phase's
 * milliseconds, one JSON array of arrays.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { childEnv, ROOT } from './child.js';

/** A probe running in a child process. */
export interface Probe {
  /** Ends the current phase and starts the next. */
  cut(): void;
  /** Stops the probe: each phase's samples, in order. */
  stop(): Promise<number[][]>;
}

export function startProbe(url: string, key: string, body: string): Probe {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), url, key, body], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: childEnv({}),
    // `--import tsx` is resolved from the working directory.
    cwd: ROOT,
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    cut: () => child.stdin.write('cut\n'),
    async stop() {
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`the intake probe exited with ${code}`);
      return JSON.parse(out) as number[][];
    },
  };
}

async function probe(url: string, key: string, body: string): Promise<void> {
  const phases: number[][] = [[]];
  let stopped = false;
  createInterface({ input: process.stdin })
    .on('line', () => phases.push([]))
    .on('close', () => (stopped = true));
  while (!stopped) {
    const started = process.hrtime.bigint();
    const res = await request(`${url}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body,
    });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`POST /v1/events answered ${res.statusCode}`);
    phases.at(-1)?.push(Number(process.hrtime.bigint() - started) / 1e6);
    await sleep(10);
  }
  process.stdout.write(JSON.stringify(phases));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url, key, body] = process.argv.slice(2);
  if (!url || !key || !body) throw new Error('usage: probe.ts URL KEY BODY');
  await probe(url, key, body);
}
