import { BatchEvents, BodyPool, MAX_BATCH_BODY_BYTES } from './body.js';
import { judge } from './judge.js';
import { LineReader } from './lines.js';
import type { RejectedLine } from './rejects.js';

export { MAX_BATCH_BODY_BYTES } from './body.js';

/** A run of consecutive lines: the events to send in one request and the lines refused here. */
export interface Batch {
  seq: number;
  events: BatchEvents;
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
  /** Check each line against the event schema here (a dry run); otherwise the daemon does. */
  schema?: boolean;
  /** Where batch bodies are written; a batch gives its buffer back once it is recorded. */
  pool?: BodyPool;
}

/**
 * The file as batches, read only as fast as they are taken: at most one batch is built ahead of
 * those in flight, and no state is kept for lines already sent, so memory does not grow with
 * the file. A batch holds its events as the request body, written from the lines' own text (see
 * judge.ts and body.ts). A batch ends at `batchSize` events or before an event that would take
 * its body past MAX_BATCH_BODY_BYTES (an event larger than that goes alone). The last batch
 * (perhaps empty) carries `last`.
 */
export async function* readBatches(options: BatchOptions): AsyncGenerator<Batch> {
  const pool = options.pool ?? new BodyPool();
  let seq = 0;
  const reader = await LineReader.open(options.file, options.fromByte, options.fromLine);
  const fresh = (): Batch => ({
    seq: seq++,
    events: new BatchEvents(pool),
    localRejects: [],
    lines: 0,
    firstLine: 0,
    lastLine: reader.line,
    end: reader.end,
    last: false,
  });
  const judging = { campaign: options.campaign, schema: options.schema };
  try {
    let batch = fresh();
    do {
      while (reader.next()) {
        const { line, text } = reader;
        const judged = judge(line, text, judging);
        if (judged.kind === 'event') {
          const added = judged.json.length - text.length;
          // The line's bytes bound what its text takes in the body (its line break, the comma).
          const full = batch.events.count > 0 && batch.events.bodyBytes + reader.bytes + added > MAX_BATCH_BODY_BYTES;
          if (full) {
            yield batch;
            batch = fresh();
          }
          batch.events.add(line, judged.json, added, reader.end - reader.bytes, judged.conversion);
        } else if (judged.kind === 'rejected') {
          batch.localRejects.push({ line, reasons: judged.reasons, raw: text });
        }
        batch.lastLine = line;
        batch.end = reader.end;
        if (judged.kind === 'blank') continue;
        batch.lines++;
        if (batch.firstLine === 0) batch.firstLine = line;
        if (batch.events.count >= options.batchSize || batch.localRejects.length >= options.batchSize) {
          yield batch;
          batch = fresh();
        }
      }
    } while (await reader.fill());
    batch.last = true;
    yield batch;
  } finally {
    await reader.close();
  }
}
