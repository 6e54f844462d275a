import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (bench/lib/ is two levels down). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Child {
  readonly url: string;
  readonly pid: number;
  /** CPU time (user + system) the process has used so far, in ms; NaN where /proc is missing. */
  cpuMs(): number;
  /** SIGTERM, then SIGKILL if it has not exited within 10 s. */
  stop(): Promise<void>;
}

/**
 * The environment of a child: this process's, without the TypeScript loader the bench runs
 * under (NODE_OPTIONS) and without the developer's REDIS_URL or DATABASE_URL.
 */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  if (!('REDIS_URL' in extra)) delete env.REDIS_URL;
  if (!('DATABASE_URL' in extra)) delete env.DATABASE_URL;
  return env;
}

/** utime + stime of /proc/PID/stat, in clock ticks of 10 ms (Linux's USER_HZ). */
function cpuMsOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * Node flags that make a child write a CPU profile into BENCH_CPU_PROF/LABEL when it exits
 * (open it in Chrome DevTools or speedscope); none when BENCH_CPU_PROF is unset.
 */
export function profileFlags(label: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(dir, label)}`] : [];
}

function stopper(child: ChildProcess, cleanup: () => void): () => Promise<void> {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    cleanup();
  };
}

/**
 * Starts `node ARGS` and resolves with its URL once `find` gives one. `find` is given what the
 * child has written so far (stdout and stderr, kept in a file so the parent spends nothing
 * reading a busy daemon's request log) and is asked again every 50 ms. Rejects if the child exits first or takes
 * longer than `timeoutMs`.
 */
export async function startChild(options: {
  args: string[];
  env: NodeJS.ProcessEnv;
  find: (log: string) => Promise<string | undefined> | string | undefined;
  cwd?: string;
  timeoutMs?: number;
}): Promise<Child> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-bench-child-'));
  const logFile = path.join(dir, 'log');
  const fd = openSync(logFile, 'w');
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd ?? dir,
    env: options.env,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const stop = stopper(child, cleanup);
  const readLog = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const url = await options.find(readLog());
    if (url) return { url, pid: child.pid ?? 0, cpuMs: () => cpuMsOf(child.pid), stop };
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      const log = readLog().slice(-2000);
      await stop();
      throw new Error(`${options.args.join(' ')} did not start:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
