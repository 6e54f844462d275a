import type { ApiClient } from '../../../../shared/client/index.js';
import { UsageError } from '../../../errors.js';
import type { Io } from '../../../io.js';
import { type Batch, readBatches } from './batches.js';
import { beforeHash, fingerprintOf, writeCheckpoint } from './checkpoint.js';
import { type Clock, realClock } from './clock.js';
import { type Delivery, deliver } from './deliver.js';
import { Pacer } from './pacer.js';
import { Progress } from './progress.js';
import { checkFile, pathsOf, startingPoint } from './start.js';
import { type StopReason, StopRun } from './stop.js';
import { emptyTotals, type Totals } from './totals.js';
import { preflight, retryingTransport, type Transport } from './transport.js';

export interface ReplayOptions {
  file: string;
  rejects?: string;
  checkpoint?: string;
  batchSize: number;
  /** Batches in flight at once (default 3). */
  concurrency?: number;
  resume?: boolean;
  dryRun?: boolean;
}

export const DEFAULT_CONCURRENCY = 3;

export interface ReplayDeps {
  io: Io;
  /** Absent on a dry run, which needs no daemon and no key. */
  client: ApiClient | undefined;
  /** Fires on Ctrl-C: the batches in flight finish, the checkpoint is saved, the run ends. */
  signal: AbortSignal;
  clock?: Clock;
}

export interface Stopped {
  reason: StopReason;
  message: string;
  statusCode: number | null;
  messages: string[];
  /** The first line of the batch that was not acknowledged. */
  line: number;
  /** Every line up to this one is done; `--resume` continues after it. */
  checkpointLine: number;
}

export interface ReplaySummary extends Totals {
  durationMs: number;
  file: string;
  dryRun: boolean;
  resumedFromLine: number;
  lastLine: number;
  rejectsFile: string | null;
  checkpointFile: string | null;
  concurrency: number;
  requests: number;
  rateLimitWaits: number;
  /** Time this run spent waiting for the rate limit's window to reset (or a 429's Retry-After). */
  rateLimitWaitMs: number;
  /** `X-RateLimit-Limit` as the daemon said it: `/v1/events` requests a window, per key. */
  rateLimit: number | null;
  retries: { rateLimited: number; serverErrors: number; networkErrors: number };
  stopped: Stopped | null;
  /** Peak resident memory of this process, for checking that memory stays flat. */
  maxRssBytes: number;
}

/** How often the checkpoint is rewritten at most while batches keep coming (and always at the end). */
const CHECKPOINT_EVERY_MS = 1000;

type Outcome =
  | { batch: Batch; delivery: Delivery }
  | { batch: Batch; stop: StopRun }
  | { batch: Batch; interrupted: true }
  | { batch: Batch; error: unknown };

/**
 * `events replay FILE`: streams the file, validates each line with the server's schema, sends
 * batches with stable event ids, several at once (`--concurrency`), paces itself by the
 * rate-limit headers, retries what is worth retrying, and checkpoints. Answers may come back in
 * any order; they are recorded in line order, and the checkpoint only moves past a batch once it
 * and every batch before it are acknowledged and their rejects are on disk.
 */
export async function replay(deps: ReplayDeps, options: ReplayOptions): Promise<ReplaySummary> {
  const { io, client, signal } = deps;
  const clock = deps.clock ?? realClock;
  const began = clock.now();
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (options.dryRun && options.resume) throw new UsageError('--dry-run and --resume do not go together');
  if (!options.dryRun && !client) throw new UsageError('a replay needs the daemon (or --dry-run)');
  const fileBytes = await checkFile(options.file);
  const paths = pathsOf(options);
  const start = await startingPoint(io, options);
  const rejects = start.rejects;
  const checkpoint = start.checkpoint;
  const identity = checkpoint ?? (await fingerprintOf(options.file));

  const totals = checkpoint ? structuredClone(checkpoint.totals) : emptyTotals();
  const startTotalsLines = totals.lines;
  const startLine = checkpoint?.line ?? 0;
  const startByte = checkpoint?.bytes ?? 0;
  const progress = new Progress(io, clock, fileBytes, startByte, totals.lines);
  const pacer = new Pacer(clock, (until) => progress.waiting(until));
  const transport: Transport | undefined =
    client && !options.dryRun ? retryingTransport(client, pacer, clock, (text) => progress.say(text)) : undefined;
  let acknowledged = startLine;
  let acknowledgedBytes = startByte;
  let lastLine = startLine;
  let stopped: Stopped | undefined;
  let lastCheckpointAt = Number.NEGATIVE_INFINITY;
  let failure: unknown;

  const stop = (reason: StopReason, message: string, line: number, statusCode?: number, messages: string[] = []) => {
    stopped ??= {
      reason,
      message,
      statusCode: statusCode ?? null,
      messages,
      line: line || acknowledged + 1,
      checkpointLine: acknowledged,
    };
  };

  let dirty = false;
  const saveCheckpoint = async (done: boolean) => {
    if (options.dryRun) return;
    lastCheckpointAt = clock.now();
    dirty = false;
    await writeCheckpoint(paths.checkpoint, {
      version: 2,
      file: options.file,
      fingerprint: identity.fingerprint,
      fingerprintBytes: identity.fingerprintBytes,
      line: acknowledged,
      bytes: acknowledgedBytes,
      before: await beforeHash(options.file, acknowledgedBytes),
      rejects: rejects.state(),
      totals,
      done,
      updatedAt: new Date(clock.now()).toISOString(),
    });
  };

  /** Rejects first (flushed), then the counts, then perhaps the checkpoint: a crash loses no row. */
  const commit = async (batch: Batch, delivery: Delivery) => {
    const raws = new Map(batch.events.map((e) => [e.line, e.raw ?? '']));
    const serverRejects = delivery.rejected.map((r) => ({ ...r, raw: raws.get(r.line) ?? '' }));
    const rows = [...batch.localRejects, ...serverRejects].sort((a, b) => a.line - b.line);
    await rejects.write(rows);
    totals.lines += batch.lines;
    if (!options.dryRun) totals.sent += batch.events.length;
    totals.accepted += delivery.accepted;
    for (const skip of delivery.skipped) totals.skipped[skip.reason]++;
    totals.rejected += rows.length;
    acknowledged = batch.lastLine;
    acknowledgedBytes = batch.end;
    dirty = true;
    if (batch.last || clock.now() - lastCheckpointAt >= CHECKPOINT_EVERY_MS) await saveCheckpoint(batch.last);
    progress.update(acknowledged, acknowledgedBytes, totals, true);
  };

  const results = new Map<number, Outcome>();
  const inFlight = new Map<number, Promise<void>>();
  let nextSeq = 0;
  let interruptedAt: number | undefined;

  const launch = (batch: Batch) => {
    const work = async (): Promise<Outcome> => {
      try {
        const delivery =
          transport && batch.events.length > 0
            ? await deliver(batch.events, transport, signal)
            : { accepted: 0, skipped: [], rejected: [] };
        return { batch, delivery };
      } catch (err) {
        if (err instanceof StopRun) return { batch, stop: err };
        if ((err as Error).name === 'AbortError') return { batch, interrupted: true };
        return { batch, error: err };
      }
    };
    // Registered before it can settle (a batch with nothing to send settles at once).
    inFlight.set(
      batch.seq,
      work().then((outcome) => {
        results.set(batch.seq, outcome);
        inFlight.delete(batch.seq);
      }),
    );
  };

  /** Records the answers that are next in line order; the first failure ends the run there. */
  const commitReady = async () => {
    for (let outcome = results.get(nextSeq); outcome; outcome = results.get(nextSeq)) {
      results.delete(nextSeq++);
      if (stopped || failure) continue;
      const first = outcome.batch.firstLine;
      if ('delivery' in outcome) {
        await commit(outcome.batch, outcome.delivery);
      } else if ('stop' in outcome) {
        const s = outcome.stop;
        stop(s.reason, s.message, first, s.statusCode, s.messages);
      } else if ('interrupted' in outcome) stop('interrupted', 'interrupted', first);
      else failure = outcome.error;
    }
  };

  const settleOne = async () => {
    await Promise.race(inFlight.values());
    await commitReady();
  };

  try {
    if (transport && client) {
      let campaign: string | undefined;
      try {
        campaign = (await preflight(client)).campaign;
      } catch (err) {
        if (!(err instanceof StopRun)) throw err;
        stop(err.reason, err.message, startLine + 1);
      }
      if (!stopped) await send(campaign);
    } else {
      await send(undefined);
    }
  } finally {
    progress.finish();
    // A stop between two timed checkpoints still saves every batch acknowledged so far.
    if (dirty) await saveCheckpoint(false).catch(() => {});
    await rejects.close();
  }
  if (failure) throw failure;

  async function send(campaign: string | undefined) {
    const batches = readBatches({
      file: options.file,
      fromByte: startByte,
      fromLine: startLine,
      batchSize: options.batchSize,
      campaign,
    });
    for await (const batch of batches) {
      lastLine = batch.lastLine;
      // One batch alone until the daemon has acknowledged one: a wrong key or a daemon that is down
      // is then met by one request, not by a volley.
      const room = acknowledged > startLine || totals.lines > startTotalsLines ? concurrency : 1;
      while (inFlight.size >= room && !stopped && !failure) await settleOne();
      // Ctrl-C: nothing more goes out; the batches in flight finish and are recorded.
      if (signal.aborted) interruptedAt = batch.firstLine;
      if (stopped || failure || interruptedAt !== undefined) break;
      launch(batch);
      // Record whatever has come back, so finished batches never pile up behind the reader.
      await commitReady();
    }
    while (inFlight.size > 0) await settleOne();
    await commitReady();
    if (interruptedAt !== undefined) stop('interrupted', 'interrupted', interruptedAt);
  }

  return {
    lines: totals.lines,
    sent: totals.sent,
    accepted: totals.accepted,
    skipped: totals.skipped,
    rejected: totals.rejected,
    durationMs: Math.round(clock.now() - began),
    file: options.file,
    dryRun: Boolean(options.dryRun),
    resumedFromLine: startLine,
    lastLine: stopped ? acknowledged : lastLine,
    rejectsFile: rejects.bytes > 0 ? paths.rejects : null,
    checkpointFile: options.dryRun ? null : paths.checkpoint,
    concurrency,
    requests: transport?.stats.requests ?? 0,
    rateLimitWaits: pacer.waits,
    rateLimitWaitMs: Math.round(pacer.waitedMs),
    rateLimit: pacer.limit ?? null,
    retries: {
      rateLimited: transport?.stats.rateLimited ?? 0,
      serverErrors: transport?.stats.serverErrors ?? 0,
      networkErrors: transport?.stats.networkErrors ?? 0,
    },
    stopped: stopped ?? null,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}
