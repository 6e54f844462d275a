import { CommanderError } from 'commander';
import { ConfigError } from '../server/config.js';
import { HttpError, StartupError } from '../server/errors.js';
import { ApiError } from '../shared/client/errors.js';
import { errorBody } from '../shared/errors.js';
import { AlreadyReported, CommandFailed, UsageError } from './errors.js';
import type { Io } from './io.js';
import { buildProgram } from './program.js';

/**
 * Runs one command line against an `Io` and turns every error into a message and an exit code
 * (0 success, 1 failed, 2 usage). The bin calls it with the process's streams; tests call it
 * in-process with their own.
 */
export async function runCli(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  const json = argv.includes('--json');
  const fail = (code: number, body: object, text: string) => {
    if (json) io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    io.stderr.write(`${text}\n`);
    return code;
  };
  const failWithBody = (status: number, message: string | string[], prefix: string) => {
    const lines = Array.isArray(message) ? message : [message];
    return fail(1, errorBody(status, message), `${prefix}: ${lines.join('\n  ')}`);
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
    // A rule refused locally (operator commands) or by the daemon (client commands): the
    // spec's error body with --json; the daemon's status is printed too.
    if (err instanceof HttpError) return failWithBody(err.status, err.messages, 'error');
    if (err instanceof ApiError) {
      const message = err.messages.length === 1 ? (err.messages[0] ?? '') : err.messages;
      return failWithBody(err.statusCode, message, `error ${err.statusCode}`);
    }
    // Knex prefixes driver errors with the SQL (and its values): keep only the driver's words.
    const code = (err as { code?: string }).code;
    const reason = String((err as Error).message ?? err)
      .split(' - ')
      .pop();
    return fail(1, { error: reason, code }, `error: ${reason}${code ? ` (${code})` : ''}`);
  }
}
