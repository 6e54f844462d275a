import type { PendingEvent } from './deliver.js';
import { judgeLine, readLines } from './lines.js';
import type { RejectedLine } from './rejects.js';

/** Well under the daemon's 2 MiB body limit (spec §10.6), so a batch of large events still fits. */
export const MAX_BATCH_BODY_BYTES = 1024 * 1024;

/** A run of consecutive lines: the events to send in one request and the lines refused here. */
export interface Batch {
  seq: number;
  events: PendingEvent[];
  localRejects: RejectedLine[];
  /** Non-blank lines in the batch. */
  lines: number;
  /** 0 when the batch holds only blank lines. */
  firstLine: number;
  /** The last line the batch covers, blank lines included: the checkpoint moves here. */
  lastLine: number;
  /** Byte offset just past `lastLine`. */
  end: number;
  /** The end of the file: the checkpoint is marked done. */
  last: boolean;
}

export interface BatchOptions {
  file: string;
  fromByte: number;
  fromLine: number;
  batchSize: number;
  /** The key's campaign, when the daemon said it (lines for another one are rejected here). */
  campaign?: string;
}

/**
 * The file as batches, read only as fast as they are taken: at most one batch is built ahead of
 * those in flight, and no state is kept for lines already sent, so memory does not grow with
 * the file. The last batch (perhaps empty) carries `last`.
 */
export async function* readBatches(options: BatchOptions): AsyncGenerator<Batch> {
  let seq = 0;
  let lastLine = options.fromLine;
  let end = options.fromByte;
  const fresh = (): Batch => ({
    seq: seq++,
    events: [],
    localRejects: [],
    lines: 0,
    firstLine: 0,
    lastLine,
    end,
    last: false,
  });
  let batch = fresh();
  let bodyBytes = 0;
  for await (const raw of readLines(options.file, options.fromByte, options.fromLine)) {
    lastLine = raw.line;
    end = raw.end;
    batch.lastLine = lastLine;
    batch.end = end;
    const judged = judgeLine(raw.line, raw.text, options.campaign);
    if (judged.kind === 'blank') continue;
    batch.lines++;
    if (batch.firstLine === 0) batch.firstLine = raw.line;
    if (judged.kind === 'rejected') {
      batch.localRejects.push({ line: raw.line, reasons: judged.reasons, raw: raw.text });
    } else {
      batch.events.push({ line: raw.line, event: judged.event, raw: raw.text });
      bodyBytes += raw.text.length + 64;
    }
    if (
      batch.events.length >= options.batchSize ||
      batch.localRejects.length >= options.batchSize ||
      bodyBytes >= MAX_BATCH_BODY_BYTES
    ) {
      yield batch;
      batch = fresh();
      bodyBytes = 0;
    }
  }
  batch.last = true;
  yield batch;
}
