#!/usr/bin/env node
import { processIo } from './io.js';
import { runCli } from './run.js';

/** The bin: read `.env`, then run the command line with the process's streams. */
async function main(argv: string[]): Promise<number> {
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
