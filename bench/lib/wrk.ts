import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What a throughput run reports, whichever load generator drove it. */
export interface LoadResult {
  /** Answers below 400 per second over the run. */
  reqPerSec: number;
  /** Answers of any status. */
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers of 400 and above, and connection errors and timeouts: a figure with any is not valid. */
  non2xx: number;
  errors: number;
  /** CPU the load generator itself spent, in ms (NaN when it cannot tell). */
  generatorCpuMs: number;
  /** With `keepSamples` (sampledLoad only): each answer's latency and when it arrived (ms since the start). */
  samples: Array<{ at: number; ms: number }>;
}

export interface WrkOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Paths sent in turn on each connection (e.g. many ids); `url`'s own path when absent. */
  paths?: string[];
  connections: number;
  durationSec: number;
  /** wrk's threads; BENCH_WRK_THREADS, else 2 (each a core's worth at most). */
  threads?: number;
}

export const WRK = process.env.BENCH_WRK || 'wrk';
export const WRK_MISSING =
  `the HTTP figures are driven by wrk, which is not installed (or BENCH_WRK does not name it): ` +
  '`bash bench/tools.sh` installs it from Debian (`npm run bench` runs it first)';

let available: boolean | undefined;
/** Whether wrk runs here (asked once). */
export function wrkAvailable(): boolean {
  available ??= spawnSync(WRK, ['--version'], { stdio: 'ignore' }).error === undefined;
  return available;
}

/**
 * A Lua string literal of any text: printable ASCII as is, every other byte as `\ddd`, which
 * the LuaJIT wrk embeds reads back byte for byte (JSON's `\u` escapes it would not).
 */
export function luaString(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    const printable = byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c;
    out += printable ? String.fromCharCode(byte) : `\\${byte.toString().padStart(3, '0')}`;
  }
  return `${out}"`;
}

/**
 * The script: method, body and headers; the paths in turn when there are several; and a
 * `done` that writes the run's figures as one JSON line, with wrk's own CPU time (os.clock()
 * is the process's, all threads). No `response` callback: it would make wrk hand every
 * answer's headers and body to Lua, which costs more than the bare server's answer does.
 */
export function wrkScript(options: Pick<WrkOptions, 'method' | 'headers' | 'body' | 'paths'>): string {
  const lines = [`wrk.method = ${luaString(options.method ?? 'GET')}`];
  if (options.body !== undefined) lines.push(`wrk.body = ${luaString(options.body)}`);
  for (const [name, value] of Object.entries(options.headers ?? {}))
    lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  if (options.paths && options.paths.length > 0) {
    lines.push(
      `local paths = { ${options.paths.map(luaString).join(', ')} }`,
      'local requests, n = {}, 0',
      'init = function(args) for i, p in ipairs(paths) do requests[i] = wrk.format(nil, p) end end',
      'request = function() n = n % #requests + 1; return requests[n] end',
    );
  }
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'\\n{"wrk":{"requests":%d,"durationUs":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"p50Us":%d,"p99Us":%d,"cpuS":%.3f}}\\n\',',
    '    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout,',
    '    latency:percentile(50), latency:percentile(99), os.clock()))',
    'end',
  );
  return `${lines.join('\n')}\n`;
}

interface WrkReport {
  requests: number;
  durationUs: number;
  status: number;
  connect: number;
  read: number;
  write: number;
  timeout: number;
  p50Us: number;
  p99Us: number;
  cpuS: number;
}

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${file} ${args.join(' ')}: ${err.message} ${stderr}`.trim()));
      else resolve(stdout);
    });
  });
}

/**
 * One wrk run (C, multi-threaded, a fraction of a core per 30,000 requests a second, so the
 * server and not the generator is what a rate measures): every connection sends its next
 * request as soon as it has its answer. The timeout is 10 s, so a slow answer is a slow
 * answer, not an error.
 */
export async function wrkLoad(options: WrkOptions): Promise<LoadResult> {
  if (!wrkAvailable()) throw new Error(WRK_MISSING);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-bench-wrk-'));
  try {
    const script = path.join(dir, 'script.lua');
    writeFileSync(script, wrkScript(options));
    const threads = Math.max(1, Math.min(options.threads ?? 2, options.connections));
    const stdout = await run(WRK, [
      `-t${threads}`,
      `-c${options.connections}`,
      `-d${options.durationSec}s`,
      '--timeout',
      '10s',
      '-s',
      script,
      options.url,
    ]);
    const line = stdout.split('\n').find((l) => l.startsWith('{"wrk":'));
    if (!line) throw new Error(`wrk gave no report: ${stdout.slice(-500)}`);
    const report = (JSON.parse(line) as { wrk: WrkReport }).wrk;
    const seconds = report.durationUs / 1e6 || options.durationSec;
    return {
      reqPerSec: (report.requests - report.status) / seconds,
      requests: report.requests,
      p50Ms: report.p50Us / 1000,
      p99Ms: report.p99Us / 1000,
      non2xx: report.status,
      errors: report.connect + report.read + report.write + report.timeout,
      generatorCpuMs: report.cpuS * 1000,
      samples: [],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
