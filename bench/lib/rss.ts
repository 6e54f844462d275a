import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

export interface MeasuredRun {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  /** The child's peak resident set size, in MB (2^20 bytes). */
  peakRssMb: number;
}

const TIME = '/usr/bin/time';

/** VmHWM (the peak RSS so far) of a running process, in kB; 0 once it is gone. */
function highWaterKb(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return Number(match?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Runs `node ARGS` to its end and reports its peak RSS: from GNU time's `-v` report when
 * /usr/bin/time is there, else by polling /proc/PID/status (VmHWM) every 50 ms.
 */
export async function runWithPeakRss(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<MeasuredRun> {
  const viaTime = existsSync(TIME);
  const started = process.hrtime.bigint();
  const child = viaTime
    ? spawn(TIME, ['-v', process.execPath, ...args], { env, cwd })
    : spawn(process.execPath, args, { env, cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  let polledKb = 0;
  const poll = viaTime
    ? undefined
    : setInterval(() => {
        polledKb = Math.max(polledKb, highWaterKb(child.pid ?? 0));
      }, 50);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exit) => resolve(exit));
  });
  if (poll) clearInterval(poll);
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  let peakKb = polledKb;
  if (viaTime) {
    const reports = [...stderr.matchAll(/Maximum resident set size \(kbytes\): (\d+)/g)];
    peakKb = Number(reports.at(-1)?.[1] ?? 0);
    stderr = stderr.replace(/\n?\tCommand being timed:[\s\S]*$/, '');
  }
  return { code, stdout, stderr, wallMs, peakRssMb: peakKb / 1024 };
}
