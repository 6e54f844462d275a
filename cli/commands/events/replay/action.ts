import type { ApiClient } from '../../../../shared/client/index.js';
import { AlreadyReported } from '../../../errors.js';
import type { Io } from '../../../io.js';
import { count, type GlobalOptions, plural } from '../../../output.js';
import { planLimitFix } from '../../../problems.js';
import { printSummary, type ReplaySummary } from './report.js';
import { type ReplayOptions, replay } from './run.js';

/** Ctrl-C (or SIGTERM) once: finish the batch in flight and save; twice: the default, quit now. */
function interruptSignal(io: Io): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onSignal = () => {
    io.stderr.write('\nStopping after the batches in flight (Ctrl-C again to quit at once)...\n');
    controller.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    release: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/**
 * The way out of a stop the operator can lift: the plan's monthly conversion limit (403), as
 * `events send` says it, and what of the refused batch fitted and was sent (limit.ts). The
 * campaign is asked of the daemon, best effort.
 */
async function fixFor(summary: ReplaySummary, client: ApiClient | undefined): Promise<string | undefined> {
  const stopped = summary.stopped;
  if (stopped?.statusCode !== 403) return undefined;
  const campaign = await client?.campaign.get().then(
    (own) => own.publicId,
    () => undefined,
  );
  const fix = planLimitFix(stopped.messages.join(' '), campaign);
  const sent = stopped.sentOfBatch ?? 0;
  if (sent === 0) return fix;
  const fitted =
    `The replay sent what fit: the first ${plural(sent, 'event')} of that batch (lines up to ` +
    `${count(stopped.checkpointLine)}); line ${count(stopped.line)} holds the first conversion past the limit.`;
  return fix === undefined ? fitted : `${fix}\n${fitted}`;
}

/**
 * `events replay FILE`: runs the replay and reports it. Exit 0 when every line was accepted or
 * skipped, 1 when a line was rejected or the run stopped early; the summary is already out, so
 * main.ts prints nothing more.
 */
export async function runReplay(
  io: Io,
  client: ApiClient | undefined,
  options: GlobalOptions,
  flags: ReplayOptions,
): Promise<void> {
  const interrupt = interruptSignal(io);
  try {
    const summary = await replay({ io, client, signal: interrupt.signal }, flags);
    printSummary(io, summary, Boolean(options.json), await fixFor(summary, client));
    if (summary.stopped || summary.rejected > 0) throw new AlreadyReported('replay incomplete');
  } finally {
    interrupt.release();
  }
}
