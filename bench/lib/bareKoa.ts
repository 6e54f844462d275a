import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Child, childEnv, profileFlags, ROOT, startChild } from './child.js';

const SERVER = path.join(ROOT, 'bench/lib/bareKoaServer.ts');

export interface BareKoaOptions {
  /** What it answers each GET, by path: the daemon's own answers, so both serialise the same JSON. */
  getBodies?: Record<string, unknown>;
  /** The folder name of its CPU profile under BENCH_CPU_PROF. */
  profile?: string;
  /** Answer every GET with a 302 to this address instead. */
  redirectTo?: string;
}

/** The bare Koa baseline (bareKoaServer.ts) in a child process of its own, like the daemon. */
export function startBareKoa({ getBodies, profile = 'bareKoa', redirectTo }: BareKoaOptions = {}): Promise<Child> {
  const dir = getBodies ? mkdtempSync(path.join(os.tmpdir(), 'affiliated-bench-koa-')) : undefined;
  const file = dir ? path.join(dir, 'bodies.json') : undefined;
  if (file) writeFileSync(file, JSON.stringify(getBodies));
  // The child reads the file once it starts; the folder goes once it has answered.
  const started = startChild({
    args: [...profileFlags(profile), '--import', 'tsx', SERVER],
    env: childEnv({
      ...(file ? { BARE_KOA_GET_BODIES: file } : {}),
      ...(redirectTo ? { BARE_KOA_REDIRECT: redirectTo } : {}),
    }),
    // `--import tsx` is resolved from the working directory.
    cwd: ROOT,
    find: (log) => /\{"url":"([^"]+)"\}/.exec(log)?.[1],
  });
  return dir ? started.finally(() => rmSync(dir, { recursive: true, force: true })) : started;
}

/** Runs `work` with bare Koa started, and stops it whatever happens. */
export async function withBareKoa<T>(work: (koa: Child) => Promise<T>, options?: BareKoaOptions): Promise<T> {
  const koa = await startBareKoa(options);
  try {
    return await work(koa);
  } finally {
    await koa.stop();
  }
}
