import path from 'node:path';
import { request } from 'undici';
import { freePort } from '../../test/helpers/http.js';
import { type Child, childEnv, profileFlags, ROOT, startChild } from './child.js';

export const CLI = path.join(ROOT, 'dist/cli/main.js');

/**
 * Rate limits out of the way: a million requests a second per bucket. Everything else is the
 * daemon's default, bcrypt's 10 rounds included.
 */
export const RAISED_LIMITS = {
  RATE_LIMIT_EVENTS_PER_MIN: '1000000',
  RATE_LIMIT_SDK_PER_MIN: '1000000',
  RATE_LIMIT_DEFAULT_PER_MIN: '1000000',
  RATE_LIMIT_WINDOW_MS: '1000',
};

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await request(`${url}/health`);
    await res.body.dump();
    return res.statusCode === 200;
  } catch {
    return false;
  }
}

/**
 * The real daemon, `affiliated serve` from dist/ (`npm run bench` builds first), in a child
 * process on `databaseUrl`, on a loopback port, ready once `GET /health` answers 200. Its log
 * goes to a file that the parent does not read. Under BENCH_CPU_PROF it writes a CPU profile.
 */
export async function startDaemonChild(
  databaseUrl: string,
  options: { logLevel?: string; env?: Record<string, string>; profile?: string } = {},
): Promise<Child> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return startChild({
    // `profile` names the CPU profile's folder when BENCH_CPU_PROF is set.
    args: [...profileFlags(options.profile ?? 'daemon'), CLI, 'serve'],
    env: childEnv({
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: options.logLevel ?? 'info',
      ...RAISED_LIMITS,
      ...options.env,
    }),
    find: async () => ((await healthy(url)) ? url : undefined),
  });
}
