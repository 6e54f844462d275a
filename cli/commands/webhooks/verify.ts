import { readFile } from 'node:fs/promises';
import { verifySignature } from '../../../shared/webhooks/signature.js';
import { AlreadyReported, UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import { fileProblem } from '../../problems.js';
import { type GlobalOptions, note, printJson, printLine } from '../../output.js';

/**
 * `webhooks verify`: checks a captured request the way a receiver should (docs/webhooks.md),
 * so someone writing a receiver can compare. Exit 0 when the signature holds, 1 when not.
 */
export async function verify(
  io: Io,
  options: GlobalOptions,
  flags: { secret: string; header: string[]; body: string; maxAge?: number },
): Promise<void> {
  const headers = new Map(
    flags.header.map((line) => {
      const at = line.indexOf(':');
      return [line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim()] as const;
    }),
  );
  let body: string;
  try {
    body = await readFile(flags.body, 'utf8');
  } catch (err) {
    throw new UsageError(`--body: ${fileProblem(err, flags.body)}`);
  }
  let result: ReturnType<typeof verifySignature>;
  try {
    result = verifySignature(
      flags.secret,
      {
        id: headers.get('webhook-id'),
        timestamp: headers.get('webhook-timestamp'),
        signature: headers.get('webhook-signature'),
      },
      body,
      { toleranceSeconds: flags.maxAge },
    );
  } catch (err) {
    throw new UsageError(`--secret: ${(err as Error).message}`);
  }
  const summary = {
    valid: result.ok,
    webhookId: headers.get('webhook-id') ?? null,
    ageSeconds: result.ageSeconds ?? null,
  };
  if (options.json) printJson(io, result.ok ? summary : { ...summary, reason: result.reason });
  else if (result.ok) printLine(io, `Valid: signed by this secret ${result.ageSeconds} s ago.`);
  else note(io, `Not valid: ${result.reason}.`);
  if (!result.ok) throw new AlreadyReported();
}
