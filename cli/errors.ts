/** A mistake in how the command was called: exit code 2 (docs/cli.md). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The operation failed for a reason already explained to the user: exit code 1. */
export class CommandFailed extends Error {
  override name = 'CommandFailed';
  constructor(
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

/**
 * The person answered no (or cancelled a prompt): exit code 1, and the answer is said as it is
 * (`Not deleted.`), not as an error.
 */
export class Declined extends Error {
  override name = 'Declined';
}

/** The command already printed its outcome (e.g. a replay summary): exit code 1, nothing more printed. */
export class AlreadyReported extends Error {
  override name = 'AlreadyReported';
}
