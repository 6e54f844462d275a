import { type ChildProcess, spawn } from 'node:child_process';
import { CLI } from '../../helpers/cli.js';
import { recorder } from './recorder.js';

export interface ServedDaemon {
  url: string;
  port: number;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  /** SIGKILL (a crash) or SIGTERM (a shutdown), then wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** What every daemon of the suite runs with: logs at debug (all of them scanned), no rate limit. */
export function daemonEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'debug',
    BCRYPT_ROUNDS: '4',
    RATE_LIMIT_DEFAULT_PER_MIN: '1000000',
    RATE_LIMIT_EVENTS_PER_MIN: '1000000',
    RATE_LIMIT_SDK_PER_MIN: '1000000',
    ...extra,
  };
}

/**
 * `affiliated serve` as a child process (the real, built daemon), on `port` (0: any). Its
 * stderr goes line by line to the recorder. Resolves once it listens. `cli` is another build's
 * CLI (the previous release, for the rolling upgrade).
 */
export async function serve(env: Record<string, string>, port = 0, cli = CLI): Promise<ServedDaemon> {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env, PORT: String(port) };
  delete childEnv.NODE_OPTIONS;
  const child = spawn(process.execPath, [cli, 'serve'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  // Nothing should be printed on stdout, but whatever is gets scanned too.
  child.stdout?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) recorder.log(line);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let pending = '';
  let all = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      all += text;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        recorder.log(line);
        const match = /"msg":"listening","url":"([^"]+)"/.exec(line);
        if (match?.[1]) resolve(match[1]);
      }
    });
    exited.then(() => reject(new Error(`serve exited before listening: ${all.slice(-2000)}`)));
  });
  return {
    url,
    port: Number(new URL(url).port),
    child,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
