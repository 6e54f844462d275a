import type { ApiClient } from '../../../../shared/client/index.js';
import { UsageError } from '../../../errors.js';
import type { Io } from '../../../io.js';
import { fingerprintOf, writeCheckpoint } from './checkpoint.js';
import { type Clock, realClock } from './clock.js';
import { type Delivery, deliver, type PendingEvent } from './deliver.js';
import { judgeLine, readLines } from './lines.js';
import { Pacer } from './pacer.js';
import { Progress } from './progress.js';
import { type RejectedLine, RejectsFile } from './rejects.js';
import { checkFile, startingPoint } from './start.js';
import { type StopReason, StopRun } from './stop.js';
import { emptyTotals, type Totals } from './totals.js';
import { retryingTransport, type Transport } from './transport.js';

export interface ReplayOptions {
  file: string;
  rejects?: string;
  checkpoint?: string;
  batchSize: number;
  resume?: boolean;
  dryRun?: boolean;
}

export interface ReplayDeps {
  io: Io;
  /** Absent on a dry run, which needs no daemon and no key. */
  client: ApiClient | undefined;
  /** Fires on Ctrl-C: the batch in flight finishes, the checkpoint is saved, the run ends. */
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
  requests: number;
  rateLimitWaits: number;
  retries: { rateLimited: number; serverErrors: number; networkErrors: number };
  stopped: Stopped | null;
  /** Peak resident memory of this process, for checking that memory stays flat. */
  maxRssBytes: number;
}

/** Well under the daemon's 2 MiB body limit (product §3.6), so a batch of large events still fits. */
const MAX_BATCH_BODY_BYTES = 1024 * 1024;

interface Chunk {
  events: PendingEvent[];
  raw: Map<number, string>;
  rejects: RejectedLine[];
  bodyBytes: number;
  firstLine: number;
}

const newChunk = (): Chunk => ({ events: [], raw: new Map(), rejects: [], bodyBytes: 0, firstLine: 0 });

/**
 * `events replay FILE` (issue 5): streams the file, validates each line with the server's
 * schema, sends batches with stable event ids, splits refused batches, paces itself by the
 * rate-limit headers, retries what is worth retrying, and checkpoints after every batch.
 */
export async function replay(deps: ReplayDeps, options: ReplayOptions): Promise<ReplaySummary> {
  const { io, client, signal } = deps;
  const clock = deps.clock ?? realClock;
  const began = clock.now();
  if (options.dryRun && options.resume) throw new UsageError('--dry-run and --resume do not go together');
  if (!options.dryRun && !client) throw new UsageError('a replay needs the daemon (or --dry-run)');
  const fileBytes = await checkFile(options.file);
  const rejectsPath = options.rejects ?? `${options.file}.rejects.ndjson`;
  const checkpointPath = options.checkpoint ?? `${options.file}.checkpoint.json`;
  const start = await startingPoint(io, options, checkpointPath);
  const identity = start ?? (await fingerprintOf(options.file));

  const totals = start ? structuredClone(start.totals) : emptyTotals();
  const rejects = await RejectsFile.open(rejectsPath, start?.rejectsBytes);
  const progress = new Progress(io, clock, fileBytes, start?.bytes ?? 0, totals.lines);
  const pacer = new Pacer(clock, (ms) =>
    progress.status(`waiting ${Math.ceil(ms / 1000)} s for the rate limit`),
  );
  const transport: Transport | undefined = client
    ? retryingTransport(client, pacer, clock, (text) => progress.say(text))
    : undefined;
  const startLine = start?.line ?? 0;
  let line = startLine;
  let bytes = start?.bytes ?? 0;
  let acknowledged = startLine;
  let chunk = newChunk();
  let stopped: Stopped | undefined;

  const stop = (reason: StopReason, message: string, statusCode?: number, messages: string[] = []) => {
    stopped = {
      reason,
      message,
      statusCode: statusCode ?? null,
      messages,
      line: chunk.firstLine || line,
      checkpointLine: acknowledged,
    };
  };

  /** Sends the chunk, writes its rejects, then moves the checkpoint to `upTo`. False: the run stops. */
  const flush = async (upTo: number, done: boolean): Promise<boolean> => {
    if (signal.aborted) {
      stop('interrupted', 'interrupted');
      return false;
    }
    let delivery: Delivery = { accepted: 0, skipped: [], rejected: [] };
    if (transport && !options.dryRun && chunk.events.length > 0) {
      try {
        // Waiting for the rate-limit window is not "in flight": Ctrl-C may cut it short.
        await pacer.ready(signal);
      } catch {
        stop('interrupted', 'interrupted');
        return false;
      }
      try {
        delivery = await deliver(chunk.events, transport);
      } catch (err) {
        if (!(err instanceof StopRun)) throw err;
        stop(err.reason, err.message, err.statusCode, err.messages);
        return false;
      }
    }
    const serverRejects = delivery.rejected.map((r) => ({ ...r, raw: chunk.raw.get(r.line) ?? '' }));
    const rejected = [...chunk.rejects, ...serverRejects].sort((a, b) => a.line - b.line);
    await rejects.write(rejected);
    totals.lines += chunk.rejects.length + chunk.events.length;
    if (!options.dryRun) totals.sent += chunk.events.length;
    totals.accepted += delivery.accepted;
    for (const skip of delivery.skipped) totals.skipped[skip.reason]++;
    totals.rejected += rejected.length;
    acknowledged = upTo;
    if (!options.dryRun) {
      await writeCheckpoint(checkpointPath, {
        version: 1,
        file: options.file,
        fingerprint: identity.fingerprint,
        fingerprintBytes: identity.fingerprintBytes,
        line: upTo,
        bytes,
        rejectsBytes: rejects.bytes,
        totals,
        done,
        updatedAt: new Date(clock.now()).toISOString(),
      });
    }
    chunk = newChunk();
    progress.update(line, bytes, totals, true);
    return true;
  };

  try {
    for await (const raw of readLines(options.file)) {
      if (signal.aborted) {
        stop('interrupted', 'interrupted');
        break;
      }
      if (raw.line <= startLine) continue;
      line = raw.line;
      bytes += raw.bytes;
      const judged = judgeLine(raw.line, raw.text);
      if (judged.kind === 'blank') continue;
      if (chunk.firstLine === 0) chunk.firstLine = raw.line;
      if (judged.kind === 'rejected') {
        chunk.rejects.push({ line: raw.line, reasons: judged.reasons, raw: raw.text });
      } else {
        chunk.events.push({ line: raw.line, event: judged.event });
        chunk.raw.set(raw.line, raw.text);
        chunk.bodyBytes += raw.bytes + 64;
      }
      const full =
        chunk.events.length >= options.batchSize ||
        chunk.rejects.length >= options.batchSize ||
        chunk.bodyBytes >= MAX_BATCH_BODY_BYTES;
      if (full && !(await flush(raw.line, false))) break;
      progress.update(line, bytes, totals);
    }
    if (!stopped) await flush(line, true);
  } finally {
    progress.finish();
    await rejects.close();
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
    lastLine: line,
    rejectsFile: rejects.bytes > 0 ? rejectsPath : null,
    checkpointFile: options.dryRun ? null : checkpointPath,
    requests: transport?.stats.requests ?? 0,
    rateLimitWaits: pacer.waits,
    retries: {
      rateLimited: transport?.stats.rateLimited ?? 0,
      serverErrors: transport?.stats.serverErrors ?? 0,
      networkErrors: transport?.stats.networkErrors ?? 0,
    },
    stopped: stopped ?? null,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}
