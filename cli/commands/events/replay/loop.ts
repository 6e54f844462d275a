import type { Batch } from './batches.js';
import type { InOrderCommitter, Outcome } from './committer.js';
import { type Delivery, emptyDelivery, type PendingEvent } from './deliver.js';
import { StopRun } from './stop.js';

/** Sends the events of one batch; resolves with what the daemon made of each. */
export type SendBatch = (events: readonly PendingEvent[], signal: AbortSignal) => Promise<Delivery>;

export interface LoopOptions {
  /** Batches in flight at once, once the daemon has acknowledged one. */
  concurrency: number;
  /** Ctrl-C: nothing more goes out; the batches in flight finish and are recorded. */
  signal: AbortSignal;
  /** Absent on a dry run: every line is judged, none is sent. */
  send?: SendBatch;
}

/** How the request of a batch ended, as the committer takes it: the promise never rejects. */
async function outcomeOf(batch: Batch, options: LoopOptions): Promise<Outcome> {
  try {
    if (!options.send || batch.events.length === 0) return { kind: 'delivered', delivery: emptyDelivery(), sent: 0 };
    const delivery = await options.send(batch.events, options.signal);
    return { kind: 'delivered', delivery, sent: batch.events.length };
  } catch (err) {
    if (err instanceof StopRun) return { kind: 'stopped', stop: err };
    if ((err as Error).name === 'AbortError') return { kind: 'interrupted' };
    return { kind: 'failed', error: err };
  }
}

/**
 * Sends the batches as the reader yields them, several at once, and hands every answer to the
 * committer as it comes back (it records them in line order). The first stop or failure the
 * committer records, or Ctrl-C, ends the sending; the batches in flight finish and are recorded.
 * Returns the last line read.
 */
export async function sendBatches(
  batches: AsyncIterable<Batch>,
  committer: InOrderCommitter,
  options: LoopOptions,
): Promise<number> {
  const inFlight = new Map<number, Promise<void>>();
  let lastLine = committer.acknowledged.line;
  let interruptedAt: number | undefined;
  const settleOne = async () => {
    await Promise.race(inFlight.values());
    await committer.commitReady();
  };
  for await (const batch of batches) {
    lastLine = batch.lastLine;
    // One batch alone until the daemon has acknowledged one: a wrong key or a daemon that is down
    // is then met by one request, not by a volley.
    const room = committer.progressed ? options.concurrency : 1;
    while (inFlight.size >= room && !committer.ended) await settleOne();
    if (options.signal.aborted) interruptedAt = batch.firstLine;
    if (committer.ended || interruptedAt !== undefined) break;
    // Registered before it can settle (a batch with nothing to send settles at once).
    inFlight.set(
      batch.seq,
      outcomeOf(batch, options).then((outcome) => {
        committer.accept(batch, outcome);
        inFlight.delete(batch.seq);
      }),
    );
    // Record whatever has come back, so finished batches never pile up behind the reader.
    await committer.commitReady();
  }
  while (inFlight.size > 0) await settleOne();
  await committer.commitReady();
  if (interruptedAt !== undefined) committer.stop('interrupted', 'interrupted', interruptedAt);
  return lastLine;
}
