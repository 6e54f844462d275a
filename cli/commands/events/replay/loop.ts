import type { Batch } from './batches.js';
import type { InOrderCommitter, Outcome } from './committer.js';
import type { BatchEvents } from './body.js';
import { type Delivery, emptyDelivery } from './deliver.js';
import { StopRun } from './stop.js';

/** Sends the events of one batch; resolves with what the daemon made of each. */
export type SendBatch = (events: BatchEvents, signal: AbortSignal) => Promise<Delivery>;

export interface LoopOptions {
  /** Batches in flight at once, once the daemon has acknowledged one. */
  concurrency: number;
  /** Ctrl-C: nothing more goes out; the batches in flight finish and are recorded. */
  signal: AbortSignal;
  /** Absent on a dry run: every line is judged, none is sent. */
  send?: SendBatch;
}

/**
 * Batches sent but not yet recorded, per batch in flight: answers that came back behind a slower
 * batch wait for it (the committer records in line order), and beyond this many the next batch
 * waits too, so memory stays bounded however long the slow one takes.
 */
export const UNRECORDED_PER_SLOT = 2;

/** How the request of a batch ended, as the committer takes it: the promise never rejects. */
async function outcomeOf(batch: Batch, options: LoopOptions): Promise<Outcome> {
  try {
    if (!options.send || batch.events.count === 0) return { kind: 'delivered', delivery: emptyDelivery(), sent: 0 };
    const delivery = await options.send(batch.events, options.signal);
    return { kind: 'delivered', delivery, sent: batch.events.count };
  } catch (err) {
    if (err instanceof StopRun) return { kind: 'stopped', stop: err };
    if ((err as Error).name === 'AbortError') return { kind: 'interrupted' };
    return { kind: 'failed', error: err };
  }
}

/** Resolves the waits of the sending loop whenever a batch comes back or is recorded. */
class Wakeup {
  private waiters: (() => void)[] = [];

  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * Sends the batches as the reader yields them, several at once, and hands every answer to the
 * committer as it comes back (it records them in line order, without holding the sending up).
 * A batch goes out when there is a free slot (`concurrency` in flight) and fewer than
 * UNRECORDED_PER_SLOT × `concurrency` batches are sent and not yet recorded. The first stop or
 * failure that comes back, or Ctrl-C, ends the sending; the batches in flight finish and are
 * recorded. Returns the last line read.
 */
export async function sendBatches(
  batches: AsyncIterable<Batch>,
  committer: InOrderCommitter,
  options: LoopOptions,
): Promise<number> {
  const wakeup = new Wakeup();
  const onAbort = () => wakeup.notify();
  options.signal.addEventListener('abort', onAbort, { once: true });
  /** Each batch sent until it is recorded; `inFlight` of them are still waiting for an answer. */
  const unrecorded = new Set<Promise<void>>();
  let inFlight = 0;
  let lastLine = committer.acknowledged.line;
  let interruptedAt: number | undefined;
  const hasRoom = (seq: number) => {
    // One batch alone until the daemon has acknowledged one: a wrong key or a daemon that is down
    // is then met by one request, not by a volley.
    const slots = committer.progressed ? options.concurrency : 1;
    return inFlight < slots && seq - committer.recorded < slots * UNRECORDED_PER_SLOT;
  };
  try {
    for await (const batch of batches) {
      lastLine = batch.lastLine;
      while (!hasRoom(batch.seq) && !committer.ending && !options.signal.aborted) await wakeup.next();
      if (options.signal.aborted) interruptedAt = batch.firstLine;
      if (committer.ending || interruptedAt !== undefined) break;
      inFlight++;
      const done = outcomeOf(batch, options).then(async (outcome) => {
        inFlight--;
        committer.accept(batch, outcome);
        wakeup.notify();
        await committer.commitReady();
        unrecorded.delete(done);
        wakeup.notify();
      });
      unrecorded.add(done);
    }
    await Promise.all(unrecorded);
  } finally {
    options.signal.removeEventListener('abort', onAbort);
  }
  await committer.commitReady();
  if (interruptedAt !== undefined) committer.stop('interrupted', 'interrupted', interruptedAt);
  return lastLine;
}
