import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(root, 'dist/cli/main.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The built CLI as a child the test can signal; `done` settles with what it printed. */
export function spawnCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {},
): { child: ChildProcessWithoutNullStreams; done: Promise<CliResult>; output: () => CliResult } {
  const env: Record<string, string | undefined> = { ...process.env, CI: 'true', ...options.env };
  // The test runner's TypeScript loader is not part of the product.
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [CLI, ...args], { env, cwd: options.cwd ?? root });
  const result: CliResult = { code: null, signal: null, stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => {
    result.stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    result.stderr += chunk;
  });
  child.stdin.end(options.input ?? '');
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ ...result, code, signal }));
  });
  return { child, done, output: () => result };
}

/** The real, built CLI as a child process, run to its end (`npm test` builds first). */
export function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {},
): Promise<CliResult> {
  return spawnCli(args, options).done;
}

/** `affiliated serve` as a child; resolves once it logs the address it listens on. */
export async function startServe(
  options: { env?: Record<string, string | undefined>; cwd?: string } = {},
): Promise<{ url: string; child: ChildProcessWithoutNullStreams; done: Promise<CliResult> }> {
  const served = spawnCli(['serve'], {
    env: { PORT: '0', LOG_LEVEL: 'info', ...options.env },
    cwd: options.cwd,
  });
  const url = await new Promise<string>((resolve, reject) => {
    served.child.stderr.on('data', () => {
      const match = /"msg":"listening","url":"([^"]+)"/.exec(served.output().stderr);
      if (match?.[1]) resolve(match[1]);
    });
    served.done.then((r) => reject(new Error(`serve exited ${r.code}: ${r.stderr}`)), reject);
  });
  return { url, child: served.child, done: served.done };
}

export function parseJson<T = any>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\n--- stderr:\n${result.stderr}`);
  }
}

/**
 * The environment of a client command run: a throwaway config file, and the daemon and key
 * given (or none). Nothing from the developer's own shell (AFFILIATED_*) leaks into the run.
 */
export function clientEnv(
  configFile: string,
  connection: { baseUrl?: string; apiKey?: string } = {},
): Record<string, string | undefined> {
  return {
    AFFILIATED_CONFIG: configFile,
    AFFILIATED_BASE_URL: connection.baseUrl,
    AFFILIATED_API_KEY: connection.apiKey,
    AFFILIATED_PROFILE: undefined,
  };
}

/**
 * The CLI run in this process through its `Io` seam (no terminal, CI set), against a daemon the
 * test started: the same commands and exit codes as the bin, without a Node start-up per call.
 */
export async function runCliInProcess(
  args: string[],
  options: { env?: Record<string, string | undefined> } = {},
): Promise<CliResult> {
  const { runCli: run } = await import('../../cli/run.js');
  const { PassThrough } = await import('node:stream');
  const capture = () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (chunk) => {
      text += chunk;
    });
    return { stream, text: () => text };
  };
  const stdout = capture();
  const stderr = capture();
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', ...options.env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const code = await run(['node', 'affiliated', ...args], {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env,
    interactive: false,
  });
  return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() };
}
