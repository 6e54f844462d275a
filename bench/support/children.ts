import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Child {
  url: string;
  /** CPU time (user + system) the process has used so far, in ms; NaN where /proc is missing. */
  cpuMs(): number;
  stop(): Promise<void>;
}

/** utime + stime of /proc/<pid>/stat, in clock ticks of 10 ms (Linux's USER_HZ). */
function cpuMsOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** Starts `bench/support/<script>` under tsx and waits for its `listening <url>` line. */
async function start(script: string, env: Record<string, string>, nodeFlags: string[] = []): Promise<Child> {
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', here(script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening (\S+)/.exec(seen);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before listening`)));
  });
  return {
    url,
    cpuMs: () => cpuMsOf(child.pid),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export const startBareKoa = () => start('./bareKoa.ts', {});

/** The daemon on `databaseUrl`, rate limits raised out of the way; `nodeFlags` e.g. `--cpu-prof`. */
export const startDaemonChild = (
  databaseUrl: string,
  env: Record<string, string> = {},
  nodeFlags: string[] = [],
) =>
  start(
    './daemon.ts',
    {
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_DEFAULT_PER_MIN: '1000000',
      RATE_LIMIT_EVENTS_PER_MIN: '1000000',
      RATE_LIMIT_SDK_PER_MIN: '1000000',
      AUTO_APPROVE_INTERVAL_MS: '0',
      ...env,
    },
    nodeFlags,
  );
