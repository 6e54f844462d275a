import { CommanderError } from 'commander';
import { HttpError } from '../server/errors.js';
import { ApiError, ConnectionError } from '../shared/client/errors.js';
import { errorBody } from '../shared/errors.js';
import { clientOf } from './client.js';
import { AlreadyReported, CommandFailed, Declined, UsageError } from './errors.js';
import { commandPath } from './help.js';
import { commandHint } from './hints.js';
import type { Io } from './io.js';
import { note, printJson } from './output.js';
import { connectionProblem, fileProblem, planLimitFix } from './problems.js';
import { buildProgram } from './program.js';

/**
 * Runs one command line against an `Io` and turns every error into a message and an exit code
 * (0 success, 1 failed, 2 usage). The bin calls it with the process's streams; tests call it
 * in-process with their own.
 */
export async function runCli(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  // The command that ran, so a usage error can name its --help.
  let active = program;
  program.hook('preAction', (_root, command) => {
    active = command;
  });
  const json = argv.includes('--json');
  const fail = (code: number, body: object, text: string) => {
    if (json) printJson(io, body);
    // Server messages and names may hold control characters: note() shows them, never obeys them.
    note(io, text);
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
    if (err instanceof UsageError) {
      const hint = `(see \`${commandPath(active)} --help\`)`;
      return fail(2, { error: err.message }, `error: ${err.message}\n${hint}`);
    }
    if (err instanceof ConnectionError) {
      const text = connectionProblem(err.baseUrl ?? '', err.code, err.reason ?? err.message);
      return fail(1, { error: text, code: err.code }, `error: ${text}`);
    }
    // By name: server/config.ts loads zod, which `affiliated --help` must not wait for.
    const name = (err as Error | undefined)?.name;
    if (name === 'ConfigError' || name === 'StartupError') {
      return fail(1, { error: (err as Error).message }, `error: ${(err as Error).message}`);
    }
    if (err instanceof Declined) return fail(1, { error: err.message }, err.message);
    if (err instanceof CommandFailed) {
      return fail(
        1,
        { error: err.message, details: err.details },
        [`error: ${err.message}`, ...err.details].join('\n'),
      );
    }
    // A rule refused locally (operator commands) or by the daemon (client commands): the
    // spec's error body with --json; the daemon's status is printed too.
    if (err instanceof HttpError) return failWithBody(err.status, err.messages, 'error');
    if (err instanceof ApiError) {
      const message = err.messages.length === 1 ? (err.messages[0] ?? '') : err.messages;
      const code = failWithBody(err.statusCode, message, `error ${err.statusCode}`);
      // A single request is not repeated (docs/cli.md "Rate limit"): say when it may be.
      if (err.statusCode === 429) note(io, retryLater(err.retryAfterSeconds ?? err.rateLimit.resetSeconds));
      if (json) return code;
      const hint = commandHint(err.messages, commandPath(active).replace(/^affiliated /, ''), active.args);
      if (hint) note(io, hint);
      if (err.statusCode === 403) {
        const fix = planLimitFix(err.messages.join(' '), await campaignOf(io));
        if (fix) note(io, fix);
      }
      return code;
    }
    // Knex prefixes driver errors with the SQL (and its values): keep only the driver's words.
    const code = (err as { code?: string }).code;
    const file = (err as { path?: string }).path;
    if (file !== undefined && code !== undefined) {
      const text = fileProblem(err, file);
      return fail(1, { error: text, code }, `error: ${text}`);
    }
    const reason = String((err as Error).message ?? err)
      .split(' - ')
      .pop();
    return fail(1, { error: reason, code }, `error: ${reason}${code ? ` (${code})` : ''}`);
  }
}

/** When a rate-limited command may run again, from the 429's Retry-After (or the window's reset). */
function retryLater(seconds: number | undefined): string {
  const when = seconds === undefined ? 'in a minute' : `in ${Math.max(1, seconds)} s`;
  return `The daemon's rate limit refused this request: run it again ${when}. Commands that page (--all, payouts export, refunds list) wait on their own.`;
}

/** The public id of the key's campaign, for the fix of a plan-limit refusal; best effort. */
async function campaignOf(io: Io): Promise<string | undefined> {
  try {
    return (await clientOf(io)?.campaign.get())?.publicId;
  } catch {
    return undefined;
  }
}
