import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { Totals } from './totals.js';

/** What `--resume` needs: the last line every earlier line of which was acknowledged. */
export interface Checkpoint {
  version: 1;
  /** The replayed file as given, and a fingerprint of its start, to refuse resuming another file. */
  file: string;
  fingerprint: string;
  /** How many leading bytes the fingerprint covers (less than 64 KiB for a small file). */
  fingerprintBytes: number;
  line: number;
  bytes: number;
  /** Size of the rejects file at this line: a resume cuts it back so no rejected line appears twice. */
  rejectsBytes: number;
  totals: Totals;
  done: boolean;
  updatedAt: string;
}

const FINGERPRINT_BYTES = 64 * 1024;

/**
 * sha256 of the first 64 KiB (or of `length` bytes, to compare with a checkpoint): cheap on any
 * size, and unchanged when lines are appended to the file.
 */
export async function fingerprintOf(
  file: string,
  length = FINGERPRINT_BYTES,
): Promise<{ fingerprint: string; fingerprintBytes: number }> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    const fingerprint = createHash('sha256').update(buffer.subarray(0, bytesRead)).digest('hex');
    return { fingerprint, fingerprintBytes: bytesRead };
  } finally {
    await handle.close();
  }
}

export async function readCheckpoint(path: string): Promise<Checkpoint | undefined> {
  let text: string;
  try {
    text = await fs.readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<Checkpoint>;
  if (parsed.version !== 1 || typeof parsed.line !== 'number' || parsed.totals === undefined)
    return undefined;
  return parsed as Checkpoint;
}

/** Through a temporary file and a rename, so a crash leaves the old checkpoint or the new one. */
export async function writeCheckpoint(path: string, checkpoint: Checkpoint): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await fs.writeFile(temp, `${JSON.stringify(checkpoint, null, 2)}\n`);
  await fs.rename(temp, path);
}
