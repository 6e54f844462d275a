import type { ApiClient } from '../../../../shared/client/index.js';
import { UsageError } from '../../../errors.js';
import type { Io } from '../../../io.js';
import { readBatches } from './batches.js';
import { BodyPool } from './body.js';
import { checkpointSaver, fingerprintOf, type Position } from './checkpoint.js';
import { type Clock, realClock } from './clock.js';
import { InOrderCommitter } from './committer.js';
import { collectOldGeneration, holdYoungGeneration } from './heap.js';
import { deliverWithinLimit } from './limit.js';
import { sendBatches } from './loop.js';
import { Pacer } from './pacer.js';
import { Progress } from './progress.js';
import type { ReplaySummary } from './report.js';
import { checkFile, pathsOf, startingPoint } from './start.js';
import { StopRun } from './stop.js';
import { emptyTotals } from './totals.js';
import { preflight, retryingTransport } from './transport.js';

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

/**
 * `events replay FILE`: streams the file, judges of each line what the daemon could not name
 * (judge.ts; a dry run checks the whole schema), sends the lines' own text in batches with
 * stable event ids, several at once (`--concurrency`), paces itself by the rate-limit headers,
 * retries what is worth retrying, and checkpoints. The parts: where the run starts (start.ts),
 * the file's lines (lines.ts), the batches (batches.ts) and their bodies (body.ts), the sending
 * loop (loop.ts), and the committer that records the answers in line order and moves the
 * checkpoint (committer.ts).
 */
export async function replay(deps: ReplayDeps, options: ReplayOptions): Promise<ReplaySummary> {
  const { io, client, signal } = deps;
  const clock = deps.clock ?? realClock;
  const began = clock.now();
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (options.dryRun && options.resume) throw new UsageError('--dry-run and --resume do not go together');
  if (!options.dryRun && !client) throw new UsageError('a replay needs the daemon (or --dry-run)');
  const fileBytes = await checkFile(options.file);
  holdYoungGeneration();
  const paths = pathsOf(options);
  const { checkpoint, rejects } = await startingPoint(io, options);
  const from: Position = { line: checkpoint?.line ?? 0, bytes: checkpoint?.bytes ?? 0 };
  const totals = checkpoint ? structuredClone(checkpoint.totals) : emptyTotals();
  const identity = checkpoint ?? (await fingerprintOf(options.file));
  const input = { file: options.file, fingerprint: identity.fingerprint, fingerprintBytes: identity.fingerprintBytes };

  const progress = new Progress(io, clock, fileBytes, from.bytes, totals.lines);
  const pacer = new Pacer(clock, (until) => progress.waiting(until));
  const transport =
    client && !options.dryRun ? retryingTransport(client, pacer, clock, (text) => progress.say(text)) : undefined;
  const committer = new InOrderCommitter({
    from,
    totals,
    rejects,
    save: options.dryRun ? undefined : checkpointSaver(paths.checkpoint, input, rejects, clock),
    clock,
    onCommit: (at, counts) => progress.update(at.line, at.bytes, counts, true),
  });

  let lastLine = from.line;
  const stopCollecting = collectOldGeneration();
  try {
    let campaign: string | undefined;
    if (client && transport) {
      try {
        campaign = (await preflight(client)).campaign;
      } catch (err) {
        if (!(err instanceof StopRun)) throw err;
        committer.stop(err.reason, err.message, from.line + 1);
      }
    }
    if (!committer.ended) {
      const batches = readBatches({
        file: options.file,
        fromByte: from.bytes,
        fromLine: from.line,
        batchSize: options.batchSize,
        campaign,
        // Without a daemon, the dry run is the only judge of the event schema.
        schema: Boolean(options.dryRun),
        pool: new BodyPool(options.batchSize),
      });
      lastLine = await sendBatches(batches, committer, {
        concurrency,
        signal,
        send: transport && ((events, abort) => deliverWithinLimit(events, transport, abort)),
      });
    }
  } finally {
    stopCollecting();
    progress.finish();
    // A stop between two timed checkpoints still saves every batch acknowledged so far.
    await committer.flush();
    await rejects.close();
  }
  if (committer.failure) throw committer.failure.error;

  const stopped = committer.stopped;
  return {
    lines: totals.lines,
    sent: totals.sent,
    accepted: totals.accepted,
    skipped: totals.skipped,
    rejected: totals.rejected,
    durationMs: Math.round(clock.now() - began),
    file: options.file,
    dryRun: Boolean(options.dryRun),
    resumedFromLine: from.line,
    lastLine: stopped ? committer.acknowledged.line : lastLine,
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
