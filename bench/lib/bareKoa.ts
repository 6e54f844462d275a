import path from 'node:path';
import { type Child, childEnv, ROOT, startChild } from './child.js';

const SERVER = path.join(ROOT, 'bench/lib/bareKoaServer.ts');

/** The bare Koa baseline (bareKoaServer.ts) in a child process of its own, like the daemon. */
export function startBareKoa(): Promise<Child> {
  return startChild({
    args: ['--import', 'tsx', SERVER],
    env: childEnv({}),
    // `--import tsx` is resolved from the working directory.
    cwd: ROOT,
    find: (log) => /\{"url":"([^"]+)"\}/.exec(log)?.[1],
  });
}

/** Runs `work` with bare Koa started, and stops it whatever happens. */
export async function withBareKoa<T>(work: (koa: Child) => Promise<T>): Promise<T> {
  const koa = await startBareKoa();
  try {
    return await work(koa);
  } finally {
    await koa.stop();
  }
}
