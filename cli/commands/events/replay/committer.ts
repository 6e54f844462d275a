import type { Batch } from './batches.js';
import type { Position, SaveCheckpoint } from './checkpoint.js';
import type { Clock } from './clock.js';
import type { Delivery } from './deliver.js';
import type { RejectedLine } from './rejects.js';
import type { SentPart, StopReason, Stopped, StopRun } from './stop.js';
import type { Totals } from './totals.js';

/** How the request of one batch ended. */
export type Outcome =
  | { kind: 'delivered'; delivery: Delivery; /** Events sent to the daemon: none on a dry run. */ sent: number }
  | { kind: 'stopped'; stop: StopRun }
  | { kind: 'interrupted' }
  | { kind: 'failed'; error: unknown };

/** How often the checkpoint is rewritten at most while batches keep coming (and always at the end). */
export const CHECKPOINT_EVERY_MS = 1000;

export interface CommitterDeps {
  /** Where the run starts, and its counts so far (a resume carries on with the checkpoint's). */
  from: Position;
  totals: Totals;
  /** Rejected lines go here; a write is on disk when it resolves. */
  rejects: { write(rows: readonly RejectedLine[]): Promise<void> };
  /** Absent on a dry run, which keeps no checkpoint. */
  save?: SaveCheckpoint;
  clock: Clock;
  /** Told after each batch is recorded (the progress line). */
  onCommit?: (at: Position, totals: Totals) => void;
}

/**
 * Records the answers of batches sent several at once in line order, whatever order they come
 * back in: an answer waits until every batch before it is recorded. Recording a batch writes its
 * rejects (its own and the daemon's, in line order, flushed), then adds its counts, then moves
 * the checkpoint past it (saved at most once a second, and at the end of the file), so a
 * checkpoint never passes a line whose reject a crash could lose. The first stop or failure in
 * line order ends the recording; answers after it are dropped, and `--resume` sends those lines again.
 * A batch's buffers go back to the pool once it is recorded or dropped.
 */
export class InOrderCommitter {
  private readonly waiting = new Map<number, { batch: Batch; outcome: Outcome }>();
  private next = 0;
  private at: Position;
  private readonly startLines: number;
  private dirty = false;
  private savedAt = Number.NEGATIVE_INFINITY;
  private stoppedAt: Stopped | undefined;
  private failed: { error: unknown } | undefined;
  /** An answer that will end the run has come back, though earlier batches may still be out. */
  private endingSeen = false;
  /** Recording runs one call at a time, in the order they were asked for. */
  private recording: Promise<void> = Promise.resolve();

  constructor(private readonly deps: CommitterDeps) {
    this.at = { ...deps.from };
    this.startLines = deps.totals.lines;
  }

  /** Every line up to here is recorded, and the checkpoint (once saved) says so. */
  get acknowledged(): Position {
    return { ...this.at };
  }

  get stopped(): Stopped | undefined {
    return this.stoppedAt;
  }

  /** An unexpected error, which the run rethrows once its files are saved and closed. */
  get failure(): { error: unknown } | undefined {
    return this.failed;
  }

  /** Nothing more is recorded: the run stopped or failed. */
  get ended(): boolean {
    return this.stoppedAt !== undefined || this.failed !== undefined;
  }

  /**
   * Nothing more should be sent: the run ended, or a stop or failure has come back and will end
   * it when its turn comes (every batch before it is out already; any after it would be dropped).
   */
  get ending(): boolean {
    return this.ended || this.endingSeen;
  }

  /** Batches recorded (or dropped after the end) so far: the sequence number of the next one. */
  get recorded(): number {
    return this.next;
  }

  /** The daemon has acknowledged a batch of this run. */
  get progressed(): boolean {
    return this.at.line > this.deps.from.line || this.deps.totals.lines > this.startLines;
  }

  /** Hands in how the request of a batch ended; `commitReady` records it when its turn comes. */
  accept(batch: Batch, outcome: Outcome): void {
    this.waiting.set(batch.seq, { batch, outcome });
    if (outcome.kind !== 'delivered') this.endingSeen = true;
  }

  /**
   * Records the answers that are next in line order; the first stop or failure ends the run there.
   * Calls queue behind one another, so the sending loop can ask without waiting (a checkpoint's
   * flush to disk then never holds the next batch back). It never rejects: an error writing the
   * rejects or the checkpoint ends the run as a failure, which the run rethrows.
   */
  commitReady(): Promise<void> {
    this.recording = this.recording
      .then(() => this.recordReady())
      .catch((error: unknown) => {
        this.failed ??= { error };
      });
    return this.recording;
  }

  private async recordReady(): Promise<void> {
    for (let ready = this.waiting.get(this.next); ready; ready = this.waiting.get(this.next)) {
      this.waiting.delete(this.next++);
      const { batch, outcome } = ready;
      try {
        if (!this.ended) await this.record(batch, outcome);
      } finally {
        batch.events.release();
      }
    }
  }

  /** How a batch's answer ends: recorded, or the stop or failure that ends the run there. */
  private async record(batch: Batch, outcome: Outcome): Promise<void> {
    if (outcome.kind === 'delivered') {
      try {
        await this.commit(batch, outcome.delivery, outcome.sent);
      } catch (error) {
        this.failed = { error };
      }
    } else if (outcome.kind === 'stopped') {
      const { reason, message, statusCode, messages, partial } = outcome.stop;
      if (partial) {
        try {
          await this.commitPart(batch, partial);
        } catch (error) {
          this.failed = { error };
          return;
        }
      }
      const line = partial ? batch.events.lineOf(partial.events) : batch.firstLine;
      this.stop(reason, message, line, statusCode, messages, partial?.events);
    } else if (outcome.kind === 'interrupted') this.stop('interrupted', 'interrupted', batch.firstLine);
    else this.failed = { error: outcome.error };
  }

  /** Ends the run at `line` (0: the line after the checkpoint); the first reason given is the one kept. */
  stop(
    reason: StopReason,
    message: string,
    line: number,
    statusCode?: number,
    messages: string[] = [],
    sentOfBatch = 0,
  ): void {
    this.stoppedAt ??= {
      reason,
      message,
      statusCode: statusCode ?? null,
      messages,
      line: line || this.at.line + 1,
      checkpointLine: this.at.line,
      ...(sentOfBatch > 0 ? { sentOfBatch } : {}),
    };
  }

  /**
   * Saves what was recorded since the last timed save (a run that stops between two of them).
   * A failure to save is not reported: the checkpoint saved before stands, and still holds.
   */
  async flush(): Promise<void> {
    await this.recording;
    if (this.dirty) await this.save(false).catch(() => {});
  }

  /** Rejects first (flushed), then the counts, then perhaps the checkpoint: a crash loses no row. */
  private async commit(batch: Batch, delivery: Delivery, sent: number): Promise<void> {
    const rows = rejectedRows(batch, delivery);
    await this.commitLines(rows, batch.lines, sent, delivery, { line: batch.lastLine, bytes: batch.end }, batch.last);
  }

  /**
   * The lines of a batch before the first event it did not send (the monthly limit's stop,
   * limit.ts): the checkpoint moves to just before that event's line.
   */
  private async commitPart(batch: Batch, part: SentPart): Promise<void> {
    const stopLine = batch.events.lineOf(part.events);
    const rows = rejectedRows(batch, part.delivery).filter((row) => row.line < stopLine);
    const lines = part.events + batch.localRejects.filter((row) => row.line < stopLine).length;
    const at = { line: stopLine - 1, bytes: batch.events.fromOf(part.events) };
    await this.commitLines(rows, lines, part.events, part.delivery, at, false);
  }

  private async commitLines(
    rows: RejectedLine[],
    lines: number,
    sent: number,
    delivery: Delivery,
    at: Position,
    last: boolean,
  ): Promise<void> {
    const { totals, rejects, clock } = this.deps;
    await rejects.write(rows);
    totals.lines += lines;
    totals.sent += sent;
    totals.accepted += delivery.accepted;
    for (const skip of delivery.skipped) totals.skipped[skip.reason]++;
    totals.rejected += rows.length;
    this.at = at;
    this.dirty = true;
    if (last || clock.now() - this.savedAt >= CHECKPOINT_EVERY_MS) await this.save(last);
    this.deps.onCommit?.(this.acknowledged, totals);
  }

  private async save(done: boolean): Promise<void> {
    if (!this.deps.save) return;
    this.savedAt = this.deps.clock.now();
    this.dirty = false;
    await this.deps.save(this.acknowledged, this.deps.totals, done);
  }
}

/** A batch's rejected lines, its own and the daemon's, in line order, each with its text. */
function rejectedRows(batch: Batch, delivery: Delivery): RejectedLine[] {
  if (delivery.rejected.length === 0) return batch.localRejects;
  const indexOf = new Map<number, number>();
  for (let index = 0; index < batch.events.count; index++) indexOf.set(batch.events.lineOf(index), index);
  const serverRejects = delivery.rejected.map((r) => {
    const index = indexOf.get(r.line);
    return { ...r, raw: index === undefined ? '' : batch.events.rawOf(index) };
  });
  return [...batch.localRejects, ...serverRejects].sort((a, b) => a.line - b.line);
}
