import { promises as fs } from 'node:fs';
import { UsageError } from '../../../errors.js';
import type { Io } from '../../../io.js';
import { note } from '../../../output.js';
import { type Checkpoint, fingerprintOf, readCheckpoint } from './checkpoint.js';

export interface StartOptions {
  file: string;
  resume?: boolean;
  dryRun?: boolean;
}

/** The file's size; an unreadable path is a usage error (exit 2), not a failed run. */
export async function checkFile(file: string): Promise<number> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) throw new UsageError(`${file} is not a file`);
    return stat.size;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** Where a run starts: line 0, or the checkpoint with `--resume`. */
export async function startingPoint(
  io: Io,
  options: StartOptions,
  checkpointPath: string,
): Promise<Checkpoint | undefined> {
  if (options.dryRun) return undefined;
  const previous = await readCheckpoint(checkpointPath);
  if (!options.resume) {
    if (previous && !previous.done) {
      note(
        io,
        `Starting at line 1; a previous run stopped after line ${previous.line} (--resume continues there).`,
      );
    }
    // A stale checkpoint must not outlive the run that starts over.
    await fs.rm(checkpointPath, { force: true });
    return undefined;
  }
  if (!previous) {
    note(io, `No checkpoint at ${checkpointPath}: starting at line 1.`);
    return undefined;
  }
  const now = await fingerprintOf(options.file, previous.fingerprintBytes);
  if (now.fingerprint !== previous.fingerprint || now.fingerprintBytes !== previous.fingerprintBytes) {
    throw new UsageError(
      `${checkpointPath} belongs to another file (the start of ${options.file} differs); run without --resume ` +
        'to start over: events already stored are skipped by their event_id',
    );
  }
  return previous;
}
