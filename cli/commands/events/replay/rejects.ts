import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CommandFailed } from '../../../errors.js';
import { type RejectsState, TAIL_BYTES, tailHash } from './checkpoint.js';

export interface RejectedLine {
  line: number;
  reasons: string[];
  /** The line as it was in the file, so it can be fixed and replayed. */
  raw: string;
}

const START_OVER =
  'start over without --resume (events already stored are skipped by their event_id, and the rejects are written again)';

/**
 * What a rejects file holds past the checkpoint, when that is rows this replay wrote just before
 * it stopped (rows are flushed before the checkpoint moves past them, so a crash in between
 * leaves them): whole rows, or a last one cut short, for lines after the checkpoint, in order.
 * Anything else was written by someone else and is never cut.
 */
function isOwnTail(text: string, afterLine: number): boolean {
  const rows = text.split('\n');
  const torn = rows.pop() ?? '';
  let last = afterLine;
  for (const row of rows) {
    let parsed: Partial<RejectedLine>;
    try {
      parsed = JSON.parse(row) as Partial<RejectedLine>;
    } catch {
      return false;
    }
    if (typeof parsed.line !== 'number' || parsed.line <= last || !Array.isArray(parsed.reasons)) return false;
    last = parsed.line;
  }
  return torn === '' || torn.startsWith('{"line":');
}

/**
 * Checks the rejects file against what the checkpoint recorded. Returns how many bytes this
 * replay wrote past the checkpoint (to cut); throws CommandFailed, naming what changed and what
 * to do, when the file is not as the run left it.
 */
export async function checkRejects(state: RejectsState, afterLine: number, checkpointPath: string): Promise<number> {
  const file = state.path;
  let size: number;
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) throw new CommandFailed(`${file} (the rejects file) is not a file any more; ${START_OVER}.`);
    size = stat.size;
  } catch (err) {
    if (err instanceof CommandFailed) throw err;
    if (state.bytes === 0) return 0;
    throw new CommandFailed(
      `the rejects file ${file} is gone, but ${checkpointPath} says it held ${state.bytes} bytes of rejected ` +
        `lines. Put it back to resume, or ${START_OVER}.`,
    );
  }
  if (size < state.bytes) {
    throw new CommandFailed(
      `the rejects file ${file} changed since the run stopped: it has ${size} bytes, ${checkpointPath} ` +
        `recorded ${state.bytes} (was it truncated, or rewritten by a --dry-run or another replay?). ` +
        `Nothing was cut. Put the file back to resume, or ${START_OVER}.`,
    );
  }
  if ((await tailHash(file, state.bytes)) !== state.tail) {
    throw new CommandFailed(
      `the rejects file ${file} changed since the run stopped: its rows up to byte ${state.bytes} are not ` +
        `the ones ${checkpointPath} recorded (was it rewritten by a --dry-run or another replay?). ` +
        `Nothing was cut. Put the file back to resume, or ${START_OVER}.`,
    );
  }
  if (size === state.bytes) return 0;
  const extra = await fs.readFile(file).then((b) => b.subarray(state.bytes).toString('utf8'));
  if (!isOwnTail(extra, afterLine)) {
    throw new CommandFailed(
      `the rejects file ${file} has ${size - state.bytes} bytes after the checkpoint that this replay did ` +
        `not write (rows for lines up to ${afterLine}, or not rejects at all). Nothing was cut. Move it ` +
        `away and put back the file as the run left it, or ${START_OVER}.`,
    );
  }
  return size - state.bytes;
}

/**
 * The rejects file: one JSON object a line, `{ line, reasons, raw }`, in line order. It is
 * created on the first rejected line only. Every write is flushed to disk before it returns,
 * so a checkpoint written afterwards never names rows that a crash could lose.
 */
export class RejectsFile {
  private handle: fs.FileHandle | undefined;
  private size: number;
  private tail: Buffer;
  private tailDigest: string | undefined;

  private constructor(
    readonly path: string,
    size: number,
    tail: Buffer,
  ) {
    this.size = size;
    this.tail = tail;
  }

  /** A fresh run: the file must not exist, or be the previous run's own (checked by the caller). */
  static async fresh(file: string, replaceable: boolean): Promise<RejectsFile> {
    const absolute = path.resolve(file);
    const stat = await fs.stat(absolute).catch(() => undefined);
    if (stat && stat.size > 0) {
      if (!replaceable) {
        throw new CommandFailed(
          `${file} already exists and is not the rejects file of the last replay of this file (no ` +
            'checkpoint names it as it is now), so it is left alone. Move it away, or pass ' +
            '--rejects with another path.',
        );
      }
      await fs.rm(absolute, { force: true });
    }
    return new RejectsFile(absolute, 0, Buffer.alloc(0));
  }

  /** A resume: the caller checked the file (checkRejects); this replay's own rows past it are cut. */
  static async resume(state: RejectsState, cutBytes: number): Promise<RejectsFile> {
    if (cutBytes > 0) await fs.truncate(state.path, state.bytes);
    const tail = Buffer.alloc(Math.min(TAIL_BYTES, state.bytes));
    if (tail.length > 0) {
      const handle = await fs.open(state.path, 'r');
      try {
        await handle.read(tail, 0, tail.length, state.bytes - tail.length);
      } finally {
        await handle.close();
      }
    }
    return new RejectsFile(state.path, state.bytes, tail);
  }

  get bytes(): number {
    return this.size;
  }

  /** Appends the rows and flushes them to disk. */
  async write(lines: readonly RejectedLine[]): Promise<void> {
    if (lines.length === 0) return;
    const data = Buffer.from(lines.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    this.handle ??= await fs.open(this.path, 'a');
    await this.handle.write(data);
    await this.handle.sync();
    this.size += data.length;
    const joined = Buffer.concat([this.tail, data]);
    this.tail = joined.subarray(Math.max(0, joined.length - TAIL_BYTES));
    this.tailDigest = undefined;
  }

  state(): RejectsState {
    this.tailDigest ??= createHash('sha256').update(this.tail).digest('hex');
    return { path: this.path, bytes: this.size, tail: this.tailDigest };
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }
}
