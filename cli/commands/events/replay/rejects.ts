import { promises as fs } from 'node:fs';

export interface RejectedLine {
  line: number;
  reasons: string[];
  /** The line as it was in the file, so it can be fixed and replayed. */
  raw: string;
}

/**
 * The rejects file: one JSON object a line, `{ line, reasons, raw }`, in line order. It is
 * created on the first rejected line only; a fresh run removes the old one, a resume cuts it
 * back to the size the checkpoint recorded.
 */
export class RejectsFile {
  private handle: fs.FileHandle | undefined;
  private size: number;

  private constructor(
    readonly path: string,
    size: number,
  ) {
    this.size = size;
  }

  static async open(path: string, resumeAtBytes: number | undefined): Promise<RejectsFile> {
    if (resumeAtBytes === undefined) {
      await fs.rm(path, { force: true });
      return new RejectsFile(path, 0);
    }
    try {
      await fs.truncate(path, resumeAtBytes);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      return new RejectsFile(path, 0);
    }
    return new RejectsFile(path, resumeAtBytes);
  }

  get bytes(): number {
    return this.size;
  }

  async write(lines: readonly RejectedLine[]): Promise<void> {
    if (lines.length === 0) return;
    const text = lines.map((entry) => `${JSON.stringify(entry)}\n`).join('');
    this.handle ??= await fs.open(this.path, 'a');
    await this.handle.write(text);
    this.size += Buffer.byteLength(text);
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }
}
