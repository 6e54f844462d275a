import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { processCpuMs } from './cpu.js';

export interface MeasuredRun {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  /** The child's peak resident set size, in MB (2^20 bytes). */
  peakRssMb: number;
  /** CPU time (user + system) the child spent, in ms. */
  cpuMs: number;
  /** Its resident set size every 250 ms: how memory moved along the run. */
  rssTrace: Array<{ atMs: number; mb: number }>;
}

const TIME = '/usr/bin/time';
const TRACE_MS = 250;

/** A field (in kB) of /proc/PID/status; 0 once the process is gone. */
function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return Number(match?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** The node process: the child itself, or GNU time's own child when time wraps it. */
function nodePid(childPid: number, viaTime: boolean): number {
  if (!viaTime) return childPid;
  try {
    return Number(readFileSync(`/proc/${childPid}/task/${childPid}/children`, 'utf8').trim().split(' ')[0]) || 0;
  } catch {
    return 0;
  }
}

/** "Maximum resident set size (kbytes): 123" and the like, from GNU time's `-v` report. */
function timeField(report: string, label: string): number | undefined {
  const escaped = label.replace(/[()]/g, '\\$&');
  const all = [...report.matchAll(new RegExp(`${escaped}: ([\\d.]+)`, 'g'))];
  const value = all.at(-1)?.[1];
  return value === undefined ? undefined : Number(value);
}

/**
 * Runs `node ARGS` to its end and reports its peak RSS and CPU time: from GNU time's `-v`
 * report when /usr/bin/time is there (exact: the kernel's high-water mark and rusage), else by
 * polling /proc/PID/status (VmHWM) and /proc/PID/stat. Either way its RSS is sampled along the
 * run, which tells memory that grows with the input from memory that is merely large.
 */
export async function runWithPeakRss(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<MeasuredRun> {
  const viaTime = existsSync(TIME);
  const started = process.hrtime.bigint();
  const elapsedMs = () => Number(process.hrtime.bigint() - started) / 1e6;
  const child = viaTime
    ? spawn(TIME, ['-v', process.execPath, ...args], { env, cwd })
    : spawn(process.execPath, args, { env, cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  let pid = 0;
  let polledKb = 0;
  let polledCpuMs = 0;
  const rssTrace: MeasuredRun['rssTrace'] = [];
  const poll = setInterval(() => {
    pid ||= nodePid(child.pid ?? 0, viaTime);
    if (!pid) return;
    polledKb = Math.max(polledKb, statusKb(pid, 'VmHWM'));
    const cpu = processCpuMs(pid);
    if (Number.isFinite(cpu)) polledCpuMs = cpu;
    const rss = statusKb(pid, 'VmRSS');
    if (rss > 0) rssTrace.push({ atMs: elapsedMs(), mb: rss / 1024 });
  }, TRACE_MS);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exit) => resolve(exit));
  });
  clearInterval(poll);
  const wallMs = elapsedMs();
  let peakKb = polledKb;
  let cpuMs = polledCpuMs;
  if (viaTime) {
    peakKb = timeField(stderr, 'Maximum resident set size (kbytes)') ?? polledKb;
    const user = timeField(stderr, 'User time (seconds)');
    const system = timeField(stderr, 'System time (seconds)');
    if (user !== undefined && system !== undefined) cpuMs = (user + system) * 1000;
    stderr = stderr.replace(/\n?\tCommand being timed:[\s\S]*$/, '');
  }
  return { code, stdout, stderr, wallMs, peakRssMb: peakKb / 1024, cpuMs, rssTrace };
}

/**
 * How memory moved along a run: the RSS at each quarter of it, and whether it kept growing
 * over the second half (the end more than 10 % above the middle: something holds what it has
 * read) or levelled off (a fixed cost: the program, its buffers, the heap V8 chose to keep).
 * The first half is left out of the verdict: start-up and the first batches fill it.
 */
export function memoryShape(run: Pick<MeasuredRun, 'rssTrace' | 'wallMs'>): string {
  const at = (fraction: number) => {
    const t = fraction * run.wallMs;
    const sample = run.rssTrace.reduce<MeasuredRun['rssTrace'][number] | undefined>(
      (best, s) => (best === undefined || Math.abs(s.atMs - t) < Math.abs(best.atMs - t) ? s : best),
      undefined,
    );
    return sample?.mb ?? Number.NaN;
  };
  const quarters = [0.25, 0.5, 0.75, 0.98].map(at);
  if (quarters.some((mb) => !Number.isFinite(mb))) return 'RSS not sampled (the run was too short)';
  const [, middle = 0, , last = 0] = quarters;
  const verdict = last > middle * 1.1 ? 'still growing over the second half' : 'level over the second half';
  return `RSS at each quarter of the run: ${quarters.map((mb) => Math.round(mb)).join(', ')} MB, ${verdict}`;
}
