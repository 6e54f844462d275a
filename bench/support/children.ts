import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Child {
  url: string;
  stop(): Promise<void>;
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
