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
