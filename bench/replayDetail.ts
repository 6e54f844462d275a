/**
 * `events replay` against the batched intake it sits on (issue: a replay that keeps up). One run
 * starts a real daemon (`affiliated serve`, a child process, SQLite, rate limits raised), then:
 *  - direct: batches of 500 conversions posted straight to `POST /v1/events` from one client,
 *    one request after another (the baseline);
 *  - replay: the built CLI, `events replay FILE`, of the same number of other conversions, under
 *    /usr/bin/time -v for its peak RSS; and, when `large` is set, a second file of `large` lines
 *    for the RSS at that size (flat memory: the two peaks should match).
 * Reported: events/s of each, their ratio (target ≥ 0.8), and peak RSS in MB (target ≤ 120).
 *
 *   node --import tsx bench/replay.ts                 # 100,000 lines, ~1–2 minutes
 *   BENCH_REPLAY_LINES=20000 BENCH_REPLAY_LARGE=1000000 node --import tsx bench/replay.ts
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { CLI, clientEnv, startServe } from '../test/helpers/cli.js';
import { createMerchant } from '../test/helpers/daemon.js';
import { createTestDatabase } from '../test/helpers/database.js';
import { makeAffiliate, writeLines } from '../test/helpers/replay.js';

export interface BenchReplayOptions {
  /** Lines replayed, and conversions posted directly (default 100,000). */
  lines?: number;
  /** A second, larger replay for its peak RSS only (e.g. 1,000,000); skipped when unset. */
  large?: number;
  batchSize?: number;
  concurrency?: number;
  log?: (text: string) => void;
}

export interface BenchReplayResult {
  replayEventsPerSec: number;
  directEventsPerSec: number;
  ratio: number;
  peakRssMb100k: number;
  peakRssMb1M?: number;
  lines: number;
  large?: number;
}

const TIME = '/usr/bin/time';

function conversion(campaign: string, affiliate: string, tag: string, n: number): string {
  return JSON.stringify({
    event_type: 'conversion',
    campaign_id: campaign,
    affiliate_id: affiliate,
    event_id: `${tag}-${n}`,
    session_id: `s-${tag}-${n % 9973}`,
    properties: { order_id: `${tag}-o${n}`, order_value: 10 + (n % 990) / 10, product: 'bench' },
  });
}

/** The CLI under /usr/bin/time -v: its summary and peak RSS (kB → MB). */
async function timedReplay(
  file: string,
  env: Record<string, string | undefined>,
  args: string[],
): Promise<{ summary: { accepted: number; skipped: Record<string, number>; durationMs: number; lines: number }; rssMb: number }> {
  const childEnv: Record<string, string | undefined> = { ...process.env, CI: 'true', ...env };
  delete childEnv.NODE_OPTIONS;
  const useTime = existsSync(TIME);
  const argv = [process.execPath, CLI, 'events', 'replay', file, '--json', ...args];
  const child = useTime
    ? spawn(TIME, ['-v', ...argv], { env: childEnv })
    : spawn(argv[0] as string, argv.slice(1), { env: childEnv });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => {
    stdout += c;
  });
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  let summary: { accepted: number; skipped: Record<string, number>; durationMs: number; lines: number; maxRssBytes: number };
  try {
    summary = JSON.parse(stdout);
  } catch {
    throw new Error(`replay exited ${code} without a summary:\n${stderr.slice(-2000)}`);
  }
  const match = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  const rssMb = match ? Number(match[1]) / 1024 : summary.maxRssBytes / 1024 / 1024;
  return { summary, rssMb };
}

export async function benchReplay(opts: BenchReplayOptions = {}): Promise<BenchReplayResult> {
  const lines = opts.lines ?? Number(process.env.BENCH_REPLAY_LINES ?? 100_000);
  const large = opts.large ?? (process.env.BENCH_REPLAY_LARGE ? Number(process.env.BENCH_REPLAY_LARGE) : undefined);
  const batchSize = opts.batchSize ?? 500;
  const log = opts.log ?? ((text: string) => process.stderr.write(`${text}\n`));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-bench-replay-'));
  const t = await createTestDatabase({ engine: 'sqlite' });
  const served = await startServe({
    env: {
      DATABASE_URL: t.url,
      LOG_LEVEL: 'info', // startServe reads the address from the 'listening' line
      RATE_LIMIT_EVENTS_PER_MIN: '1000000',
      RATE_LIMIT_DEFAULT_PER_MIN: '1000000',
    },
  });
  try {
    const merchant = await createMerchant(t.db);
    const { referralId } = await makeAffiliate(served.url, merchant.key, {
      email: 'bench@example.com',
      referralId: 'BENCH1',
    });
    const line = (tag: string) => (n: number) => conversion(merchant.publicId, referralId, tag, n);

    // Baseline: batches of 500 straight to the intake, one client, one request at a time.
    const post = async (events: string[]) => {
      const res = await request(`${served.url}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': merchant.key },
        body: `{"batch":true,"events":[${events.join(',')}]}`,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`direct batch: ${res.statusCode} ${text}`);
    };
    const make = line('direct');
    const directStart = performance.now();
    for (let from = 1; from <= lines; from += batchSize) {
      const events: string[] = [];
      for (let n = from; n < from + batchSize && n <= lines; n++) events.push(make(n));
      await post(events);
    }
    const directEventsPerSec = lines / ((performance.now() - directStart) / 1000);
    log(`direct batches of ${batchSize}: ${Math.round(directEventsPerSec)} events/s`);

    const env = clientEnv(path.join(dir, 'config.json'), { baseUrl: served.url, apiKey: merchant.key });
    const args = ['--batch-size', String(batchSize), ...(opts.concurrency ? ['--concurrency', String(opts.concurrency)] : [])];
    const file = path.join(dir, 'replay.ndjson');
    await writeLines(file, lines, line('replay'));
    const small = await timedReplay(file, env, args);
    if (small.summary.accepted !== lines) throw new Error(`replay accepted ${small.summary.accepted} of ${lines}`);
    const replayEventsPerSec = small.summary.accepted / (small.summary.durationMs / 1000);
    log(`replay of ${lines} lines: ${Math.round(replayEventsPerSec)} events/s, peak RSS ${small.rssMb.toFixed(0)} MB`);

    const result: BenchReplayResult = {
      replayEventsPerSec: Math.round(replayEventsPerSec),
      directEventsPerSec: Math.round(directEventsPerSec),
      ratio: Number((replayEventsPerSec / directEventsPerSec).toFixed(2)),
      peakRssMb100k: Number(small.rssMb.toFixed(1)),
      lines,
    };
    if (large) {
      const bigFile = path.join(dir, 'large.ndjson');
      await writeLines(bigFile, large, line('large'));
      const big = await timedReplay(bigFile, env, args);
      if (big.summary.accepted !== large) throw new Error(`large replay accepted ${big.summary.accepted} of ${large}`);
      log(
        `replay of ${large} lines: ${Math.round(big.summary.accepted / (big.summary.durationMs / 1000))} events/s, ` +
          `peak RSS ${big.rssMb.toFixed(0)} MB`,
      );
      result.peakRssMb1M = Number(big.rssMb.toFixed(1));
      result.large = large;
    }
    return result;
  } finally {
    served.child.kill('SIGTERM');
    await served.done.catch(() => {});
    await t.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await benchReplay();
  console.log(JSON.stringify(result, null, 2));
  process.exit(0);
}
