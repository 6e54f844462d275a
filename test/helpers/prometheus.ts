import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { freePort } from './http.js';

/** One scrape target: a daemon's address and, when it has METRICS_TOKEN, the token. */
export interface Target {
  job: string;
  url: string;
  token?: string;
}

export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface Prometheus {
  url: string;
  /** An instant query of Prometheus's HTTP API (`/api/v1/query`): the samples of a vector. */
  query(expr: string): Promise<Sample[]>;
  /** Queries until `done` holds for the answer (Prometheus scrapes every second), or fails after `ms`. */
  until(expr: string, done: (samples: Sample[]) => boolean, ms?: number): Promise<Sample[]>;
  stop(): Promise<void>;
}

/** The YAML Prometheus reads (JSON is YAML): every target scraped every second. */
function configOf(targets: readonly Target[]): string {
  return JSON.stringify({
    global: { scrape_interval: '1s', scrape_timeout: '1s' },
    scrape_configs: targets.map(({ job, url, token }) => ({
      job_name: job,
      static_configs: [{ targets: [new URL(url).host] }],
      ...(token ? { authorization: { type: 'Bearer', credentials: token } } : {}),
    })),
  });
}

/**
 * A real Prometheus (Debian's `prometheus`, or PROMETHEUS_PATH; scripts/test-tools.sh installs
 * it) on a loopback port, with its own storage in a temporary folder, scraping `targets`.
 */
export async function startPrometheus(targets: readonly Target[]): Promise<Prometheus> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-prometheus-'));
  writeFileSync(path.join(dir, 'prometheus.yml'), configOf(targets));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(
    process.env.PROMETHEUS_PATH ?? 'prometheus',
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited: ${output.slice(-2000)}`);
    try {
      const res = await request(`${url}/-/ready`);
      await res.body.dump();
      if (res.statusCode === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus did not get ready in 20 s: ${output.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const query = async (expr: string): Promise<Sample[]> => {
    const res = await request(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const answer = (await res.body.json()) as { status: string; error?: string; data?: { result: Sample[] } };
    if (answer.status !== 'success') throw new Error(`query ${expr}: ${answer.error ?? res.statusCode}`);
    return answer.data?.result ?? [];
  };
  return {
    url,
    query,
    async until(expr, done, ms = 20_000) {
      const end = Date.now() + ms;
      for (;;) {
        const samples = await query(expr);
        if (done(samples)) return samples;
        if (Date.now() > end) throw new Error(`${expr} never held within ${ms} ms: ${JSON.stringify(samples)}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    stop,
  };
}
