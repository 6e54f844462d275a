import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { Clock } from './clock.js';
import type { Totals } from './totals.js';

/**
 * What `--resume` needs: the last line every earlier line of which is done, and enough about
 * the input and the rejects file to tell that neither changed since (a resume that trusted a
 * rewritten rejects file once cut rows in half and lost the server's rejects).
 */
export interface Checkpoint {
  version: 2;
  /** The replayed file as given, and a fingerprint of its start, to refuse resuming another file. */
  file: string;
  fingerprint: string;
  /** How many leading bytes the fingerprint covers (less than 64 KiB for a small file). */
  fingerprintBytes: number;
  line: number;
  /** Byte offset just past `line`: where a resume starts reading. */
  bytes: number;
  /** sha256 of the (up to) 16 KiB just before `bytes`: the lines a resume continues after. */
  before: string;
  rejects: RejectsState;
  totals: Totals;
  done: boolean;
  updatedAt: string;
}

/** A place in the input: a line, and the byte just past it (where a resume starts reading). */
export interface Position {
  line: number;
  bytes: number;
}

/** The rejects file as this run left it at the checkpoint. */
export interface RejectsState {
  /** Absolute path. */
  path: string;
  bytes: number;
  /** sha256 of its last (up to) 4 KiB: a file rewritten with other rows does not match. */
  tail: string;
}

const FINGERPRINT_BYTES = 64 * 1024;
export const BEFORE_BYTES = 16 * 1024;
export const TAIL_BYTES = 4 * 1024;

/** sha256 of bytes [start, end) of a file (fewer when the file is shorter). */
export async function hashRange(path: string, start: number, end: number): Promise<string> {
  const length = Math.max(0, end - start);
  const hash = createHash('sha256');
  if (length === 0) return hash.digest('hex');
  const handle = await fs.open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, start);
    return hash.update(buffer.subarray(0, bytesRead)).digest('hex');
  } finally {
    await handle.close();
  }
}

/**
 * sha256 of the first 64 KiB (or of `length` bytes, to compare with a checkpoint): cheap on any
 * size, and unchanged when lines are appended to the file.
 */
export async function fingerprintOf(
  file: string,
  length = FINGERPRINT_BYTES,
): Promise<{ fingerprint: string; fingerprintBytes: number }> {
  const stat = await fs.stat(file);
  const fingerprintBytes = Math.min(length, stat.size);
  return { fingerprint: await hashRange(file, 0, fingerprintBytes), fingerprintBytes };
}

export const beforeHash = (file: string, bytes: number) => hashRange(file, Math.max(0, bytes - BEFORE_BYTES), bytes);
export const tailHash = (file: string, bytes: number) => hashRange(file, Math.max(0, bytes - TAIL_BYTES), bytes);

export type CheckpointRead =
  { kind: 'none' } | { kind: 'ok'; checkpoint: Checkpoint } | { kind: 'unreadable'; why: string };

export async function readCheckpoint(path: string): Promise<CheckpointRead> {
  let text: string;
  try {
    text = await fs.readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    return { kind: 'unreadable', why: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  }
  let parsed: Partial<Checkpoint>;
  try {
    parsed = JSON.parse(text) as Partial<Checkpoint>;
  } catch {
    return { kind: 'unreadable', why: 'it is not valid JSON' };
  }
  if (parsed.version !== 2) {
    return { kind: 'unreadable', why: 'it was written by another version of affiliated' };
  }
  if (
    typeof parsed.line !== 'number' ||
    typeof parsed.bytes !== 'number' ||
    typeof parsed.rejects?.bytes !== 'number' ||
    parsed.totals === undefined
  ) {
    return { kind: 'unreadable', why: 'fields are missing' };
  }
  return { kind: 'ok', checkpoint: parsed as Checkpoint };
}

/**
 * Through a temporary file, flushed to disk, and a rename: a crash leaves the old checkpoint or
 * the new one, never half of one, and never one that names rejects not yet on disk (the rejects
 * file is flushed before this is called).
 */
export async function writeCheckpoint(path: string, checkpoint: Checkpoint): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  const handle = await fs.open(temp, 'w');
  try {
    await handle.writeFile(`${JSON.stringify(checkpoint, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temp, path);
}

/** Saves a run's checkpoint at a position, with its counts; `done` once the whole file is. */
export type SaveCheckpoint = (at: Position, totals: Totals, done: boolean) => Promise<void>;

/** The checkpoint of one run: its input's identity, and the rejects file as it stands at each save. */
export function checkpointSaver(
  path: string,
  input: { file: string; fingerprint: string; fingerprintBytes: number },
  rejects: { state(): RejectsState },
  clock: Clock,
): SaveCheckpoint {
  return async (at, totals, done) =>
    writeCheckpoint(path, {
      version: 2,
      file: input.file,
      fingerprint: input.fingerprint,
      fingerprintBytes: input.fingerprintBytes,
      line: at.line,
      bytes: at.bytes,
      before: await beforeHash(input.file, at.bytes),
      rejects: rejects.state(),
      totals,
      done,
      updatedAt: new Date(clock.now()).toISOString(),
    });
}
