import { CommandFailed, Declined, UsageError } from './errors.js';
import type { Io } from './io.js';
import { note, visible } from './output.js';

/**
 * Prompts appear only on a terminal and only for what a flag did not give (docs/cli.md);
 * elsewhere a missing value is a usage error naming the flag. They draw on stderr so stdout
 * stays clean. A cancelled prompt (Ctrl-C, Ctrl-D) is a cancel, not a crash.
 */
async function ask<T>(io: Io, flag: string, question: Record<string, unknown>): Promise<T> {
  if (!io.interactive) throw new UsageError(`${flag} is required when not running interactively`);
  const { default: inquirer } = await import('inquirer');
  const prompt = inquirer.createPromptModule({ output: io.stderr });
  try {
    // A question may quote an affiliate's name: shown, never obeyed, like every human writer's text.
    const message = visible(String(question.message));
    const answers = (await prompt([{ ...question, message, name: 'value' }] as never)) as { value: T };
    return answers.value;
  } catch (err) {
    if ((err as Error).name === 'ExitPromptError' || (err as Error).name === 'AbortPromptError') {
      throw new Declined('Cancelled.');
    }
    throw err;
  }
}

export const askText = (
  io: Io,
  flag: string,
  message: string,
  validate?: (v: string) => true | string,
  defaultValue?: string,
) => ask<string>(io, flag, { type: 'input', message, validate, default: defaultValue });

export const askSecret = (io: Io, flag: string, message: string, validate?: (v: string) => true | string) =>
  ask<string>(io, flag, { type: 'password', mask: '*', message, validate });

/** A choice is a value, or a value with the words shown for it (a plan with its limits). */
export const askChoice = (
  io: Io,
  flag: string,
  message: string,
  choices: Array<string | { name: string; value: string }>,
  defaultChoice?: string,
) => ask<string>(io, flag, { type: 'select', message, choices, default: defaultChoice });

export const confirm = (io: Io, flag: string, message: string) =>
  ask<boolean>(io, flag, { type: 'confirm', message, default: false });

/**
 * The question before a command that deletes: skipped with `--yes`, required off a terminal, and
 * a "no" is Declined (`Not deleted.`). `question` is asked for only when a person will read it,
 * so what it fetches (the row it names) is not fetched for scripts.
 */
export async function confirmOrDecline(
  io: Io,
  flags: { yes?: boolean },
  question: string | (() => Promise<string>),
  declined = 'Not deleted.',
): Promise<void> {
  if (flags.yes) return;
  if (!io.interactive) throw new UsageError('--yes is required when not running interactively');
  const text = typeof question === 'string' ? question : await question();
  if (!(await confirm(io, '--yes', text))) throw new Declined(declined);
}

/** Tries a person gets to type a new password the same way twice. */
const PASSWORD_TRIES = 3;

/**
 * A new password is typed twice: it is hidden, so a typo cannot be seen, and the affiliate could
 * not log in with what was saved. Two that differ are asked again, up to three times.
 */
export async function askNewPassword(
  io: Io,
  flag: string,
  message: string,
  validate: (v: string) => true | string,
): Promise<string> {
  for (let attempt = 1; attempt <= PASSWORD_TRIES; attempt++) {
    const first = await askSecret(io, flag, message, validate);
    const again = await askSecret(io, flag, `${message} (again, to confirm)`);
    if (first === again) return first;
    note(io, 'The two passwords differ; type it again.');
  }
  throw new CommandFailed(`The passwords differed ${PASSWORD_TRIES} times; nothing was saved.`);
}
