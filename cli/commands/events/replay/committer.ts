import type { Batch } from './batches.js';
import type { Position, SaveCheckpoint } from './checkpoint.js';
import type { Clock } from './clock.js';
import type { Delivery } from './deliver.js';
import type { RejectedLine } from './rejects.js';
import type { StopReason, Stopped, StopRun } from './stop.js';
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

  /** The daemon has acknowledged a batch of this run. */
  get progressed(): boolean {
    return this.at.line > this.deps.from.line || this.deps.totals.lines > this.startLines;
  }

  /** Hands in how the request of a batch ended; `commitReady` records it when its turn comes. */
  accept(batch: Batch, outcome: Outcome): void {
    this.waiting.set(batch.seq, { batch, outcome });
  }

  /** Records the answers that are next in line order; the first stop or failure ends the run there. */
  async commitReady(): Promise<void> {
    for (let ready = this.waiting.get(this.next); ready; ready = this.waiting.get(this.next)) {
      this.waiting.delete(this.next++);
      if (this.ended) continue;
      const { batch, outcome } = ready;
      if (outcome.kind === 'delivered') await this.commit(batch, outcome.delivery, outcome.sent);
      else if (outcome.kind === 'stopped') {
        const { reason, message, statusCode, messages } = outcome.stop;
        this.stop(reason, message, batch.firstLine, statusCode, messages);
      } else if (outcome.kind === 'interrupted') this.stop('interrupted', 'interrupted', batch.firstLine);
      else this.failed = { error: outcome.error };
    }
  }

  /** Ends the run at `line` (0: the line after the checkpoint); the first reason given is the one kept. */
  stop(reason: StopReason, message: string, line: number, statusCode?: number, messages: string[] = []): void {
    this.stoppedAt ??= {
      reason,
      message,
      statusCode: statusCode ?? null,
      messages,
      line: line || this.at.line + 1,
      checkpointLine: this.at.line,
    };
  }

  /**
   * Saves what was recorded since the last timed save (a run that stops between two of them).
   * A failure to save is not reported: the checkpoint saved before stands, and still holds.
   */
  async flush(): Promise<void> {
    if (this.dirty) await this.save(false).catch(() => {});
  }

  /** Rejects first (flushed), then the counts, then perhaps the checkpoint: a crash loses no row. */
  private async commit(batch: Batch, delivery: Delivery, sent: number): Promise<void> {
    const { totals, rejects, clock } = this.deps;
    const raws = new Map(batch.events.map((e) => [e.line, e.raw ?? '']));
    const serverRejects = delivery.rejected.map((r) => ({ ...r, raw: raws.get(r.line) ?? '' }));
    const rows = [...batch.localRejects, ...serverRejects].sort((a, b) => a.line - b.line);
    await rejects.write(rows);
    totals.lines += batch.lines;
    totals.sent += sent;
    totals.accepted += delivery.accepted;
    for (const skip of delivery.skipped) totals.skipped[skip.reason]++;
    totals.rejected += rows.length;
    this.at = { line: batch.lastLine, bytes: batch.end };
    this.dirty = true;
    if (batch.last || clock.now() - this.savedAt >= CHECKPOINT_EVERY_MS) await this.save(batch.last);
    this.deps.onCommit?.(this.acknowledged, totals);
  }

  private async save(done: boolean): Promise<void> {
    if (!this.deps.save) return;
    this.savedAt = this.deps.clock.now();
    this.dirty = false;
    await this.deps.save(this.acknowledged, this.deps.totals, done);
  }
}
