#!/usr/bin/env node
import { processIo } from './io.js';
import { runCli } from './run.js';

/**
 * Exit status when the reader of stdout went away (`affiliated ... | head -1`): 128 + SIGPIPE,
 * what a shell reports for a Unix tool the closed pipe stopped, so `set -o pipefail` sees the
 * same as with `cat`. Nothing is printed: nobody is reading.
 */
const CLOSED_PIPE_EXIT = 141;

/**
 * A closed pipe ends the command quietly. Node ignores SIGPIPE and reports EPIPE as an error
 * event of the stream, which unhandled is a crash with a stack trace; every other stream error
 * stays what it is.
 */
function endQuietlyOnClosedPipe(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(CLOSED_PIPE_EXIT);
  });
  // A closed stderr (`2>&1 | head`) leaves nothing to tell; the command goes on for stdout's sake.
  process.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

/** The bin: read `.env`, then run the command line with the process's streams. */
async function main(argv: string[]): Promise<number> {
  endQuietlyOnClosedPipe();
  // A `.env` in the working directory is read; variables already set win.
  try {
    process.loadEnvFile();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      process.stderr.write(`error: cannot read .env: ${(err as Error).message}\n`);
      return 1;
    }
  }
  return runCli(argv, processIo());
}

main(process.argv).then((code) => {
  process.exitCode = code;
});
