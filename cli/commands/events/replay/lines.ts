import { promises as fs } from 'node:fs';

const NEWLINE = 0x0a;
const CR = 0x0d;
/** One read: a few hundred lines of a typical export, into the one buffer the reader keeps. */
export const READ_BYTES = 64 * 1024;

/**
 * The file, one line at a time, with exact byte offsets (CRLF and multi-byte text included), so
 * a checkpoint can name the byte a resume starts at and fingerprint what came before it.
 *
 * `next()` moves to the next line of what has been read, synchronously (awaiting once a line
 * cost more than the rest of the reading); `fill()` reads on when it says there is none. One
 * buffer is read into again and again, and a line's text is made only when it is reached, so
 * between reads the reader holds that buffer and nothing else (but a line that spans reads,
 * however long).
 */
export class LineReader {
  /** Physical line number of the current line, from 1, counting blank lines, as an editor shows it. */
  line: number;
  /** The current line, without its line break (and without a byte-order mark on line 1). */
  text = '';
  /** Byte offset just past the current line and its line break: where a resume starts reading. */
  end: number;
  /** Bytes the current line takes in the file, its line break included. */
  bytes = 0;

  private readonly buffer = Buffer.allocUnsafe(READ_BYTES);
  private chunk = this.buffer.subarray(0, 0);
  /** Where in `chunk` the next line starts; `chunk` starts at byte `chunkAt` of the file. */
  private start = 0;
  private chunkAt: number;
  private carry: Buffer | undefined;
  private atEnd = false;
  private finished = false;

  private constructor(
    private readonly handle: fs.FileHandle,
    fromByte: number,
    fromLine: number,
  ) {
    this.line = fromLine;
    this.end = fromByte;
    this.chunkAt = fromByte;
  }

  static async open(file: string, fromByte = 0, fromLine = 0): Promise<LineReader> {
    return new LineReader(await fs.open(file, 'r'), fromByte, fromLine);
  }

  /** Moves to the next line read so far; false when `fill()` must read more first. */
  next(): boolean {
    const at = this.start < this.chunk.length ? this.chunk.indexOf(NEWLINE, this.start) : -1;
    if (at !== -1) {
      if (this.carry) {
        const whole = Buffer.concat([this.carry, this.chunk.subarray(this.start, at)]);
        this.carry = undefined;
        this.take(whole, 0, whole.length, whole.length + 1);
      } else {
        this.take(this.chunk, this.start, at, at + 1 - this.start);
      }
      this.start = at + 1;
      return true;
    }
    if (this.atEnd && !this.finished) {
      // The last line, without a line break.
      this.finished = true;
      const rest = this.restOfChunk();
      if (rest.length > 0) {
        this.take(rest, 0, rest.length, rest.length);
        return true;
      }
    }
    return false;
  }

  /** Reads on; false once the file is read to its end and every line was given. */
  async fill(): Promise<boolean> {
    if (this.atEnd) return !this.finished;
    // The buffer is read into again: a line it ends in the middle of is copied out first.
    const rest = this.restOfChunk();
    this.carry = rest.length > 0 ? rest : undefined;
    this.chunkAt += this.chunk.length;
    const { bytesRead } = await this.handle.read(this.buffer, 0, READ_BYTES, this.chunkAt);
    this.chunk = this.buffer.subarray(0, bytesRead);
    this.start = 0;
    if (bytesRead === 0) this.atEnd = true;
    return true;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  /** What follows the last line break read, the carried part included (a copy: the buffer is reused). */
  private restOfChunk(): Buffer {
    const tail = this.chunk.subarray(this.start);
    if (this.carry) return Buffer.concat([this.carry, tail]);
    return Buffer.from(tail);
  }

  private take(bytes: Buffer, start: number, stop: number, length: number): void {
    this.line++;
    this.bytes = length;
    this.end += length;
    const last = stop > start && bytes[stop - 1] === CR ? stop - 1 : stop;
    const text = bytes.toString('utf8', start, last);
    this.text = this.line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}
