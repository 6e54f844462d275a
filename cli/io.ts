/**
 * Everything an action touches outside itself, passed in so tests can run actions without a
 * terminal (docs/architecture.md, "Where things go": a command's action gets its `Io`).
 */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** A person is there to answer prompts: stdin and stderr are terminals and CI is not set. */
  interactive: boolean;
}

export function processIo(): Io {
  const ci = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY) && !ci,
  };
}
