#!/usr/bin/env node
import { CommanderError } from 'commander';
import { ConfigError } from '../server/config.js';
import { HttpError, StartupError } from '../server/errors.js';
import { errorBody } from '../shared/errors.js';
import { AlreadyReported, CommandFailed, UsageError } from './errors.js';
import { processIo } from './io.js';
import { buildProgram } from './program.js';

/** The bin: parse, run, and one catch that turns every error into a message and an exit code. */
async function main(argv: string[]): Promise<number> {
  // product §1: a `.env` in the working directory is read; variables already set win.
  try {
    process.loadEnvFile();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      process.stderr.write(`error: cannot read .env: ${(err as Error).message}\n`);
      return 1;
    }
  }
  const io = processIo();
  const program = buildProgram(io);
  const json = argv.includes('--json');
  const fail = (code: number, body: object, text: string) => {
    if (json) io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    io.stderr.write(`${text}\n`);
    return code;
  };
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander already printed its message; help and version are successes.
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof AlreadyReported) return 1;
    if (err instanceof UsageError) return fail(2, { error: err.message }, `error: ${err.message}`);
    if (err instanceof ConfigError || err instanceof StartupError) {
      return fail(1, { error: err.message }, `error: ${err.message}`);
    }
    if (err instanceof CommandFailed) {
      return fail(1, { error: err.message, details: err.details }, [err.message, ...err.details].join('\n'));
    }
    if (err instanceof HttpError) {
      const messages = Array.isArray(err.messages) ? err.messages : [err.messages];
      return fail(1, errorBody(err.status, err.messages), `error: ${messages.join('\n  ')}`);
    }
    const apiError = err as { name?: string; statusCode?: number; messages?: string[] };
    if (apiError.name === 'ApiError' && apiError.statusCode !== undefined) {
      const messages = apiError.messages ?? [];
      return fail(
        1,
        errorBody(apiError.statusCode, messages.length === 1 ? (messages[0] ?? '') : messages),
        `error ${apiError.statusCode}: ${messages.join('\n  ')}`,
      );
    }
    // Knex prefixes driver errors with the SQL (and its values): keep only the driver's words.
    const code = (err as { code?: string }).code;
    const reason = String((err as Error).message ?? err)
      .split(' - ')
      .pop();
    return fail(1, { error: reason, code }, `error: ${reason}${code ? ` (${code})` : ''}`);
  }
}

main(process.argv).then((code) => {
  process.exitCode = code;
});
