import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { CommandFailed, UsageError } from '../../../errors.js';
import type { Io } from '../../../io.js';
import { note } from '../../../output.js';
import { beforeHash, type Checkpoint, fingerprintOf, readCheckpoint } from './checkpoint.js';
import { checkRejects, RejectsFile } from './rejects.js';

export interface StartOptions {
  file: string;
  resume?: boolean;
  dryRun?: boolean;
}

/** Where a run's files go: the dry run has its own rejects file and no checkpoint. */
export function pathsOf(options: StartOptions & { rejects?: string; checkpoint?: string }) {
  return {
    rejects: options.rejects ?? `${options.file}.${options.dryRun ? 'dry-run.' : ''}rejects.ndjson`,
    defaultRejects: options.rejects === undefined,
    checkpoint: options.checkpoint ?? `${options.file}.checkpoint.json`,
  };
}

/** The file's size; an unreadable path is a usage error (exit 2) said as a sentence, not a code. */
export async function checkFile(file: string): Promise<number> {
  const absolute = path.resolve(file);
  let size: number;
  try {
    const stat = await fs.stat(file);
    if (stat.isDirectory()) {
      throw new UsageError(`${file} is a folder, not a file: give the path of the NDJSON file to replay.`);
    }
    if (!stat.isFile()) throw new UsageError(`${file} is not a regular file: give the path of an NDJSON file.`);
    size = stat.size;
    await fs.access(file, constants.R_OK);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new UsageError(
        `file not found: ${file} (looked for ${absolute}). Check the name and the folder you run from.`,
      );
    }
    if (code === 'ENOTDIR') {
      throw new UsageError(`file not found: a part of ${file} is a file, not a folder. Check the path.`);
    }
    if (code === 'EACCES' || code === 'EPERM') {
      throw new UsageError(
        `cannot read ${file}: permission denied. Check its permissions (ls -l ${file}) or run as its owner.`,
      );
    }
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  return size;
}

export interface Start {
  /** The checkpoint a resume continues from; none for a run from line 1. */
  checkpoint?: Checkpoint;
  rejects: RejectsFile;
}

const startOver = (checkpointPath: string) =>
  `run without --resume to start over (events already stored are skipped by their event_id), or delete ${checkpointPath}`;

/**
 * Where a run starts, and its rejects file. A dry run never touches a real run's files; a fresh
 * run replaces only the rejects file its own last run left; `--resume` refuses, and says what
 * changed, when the input, the checkpoint or the rejects file is not as the run left it.
 */
export async function startingPoint(
  io: Io,
  options: StartOptions & { rejects?: string; checkpoint?: string },
): Promise<Start> {
  const paths = pathsOf(options);
  const rejectsAbsolute = path.resolve(paths.rejects);
  const previous = await readCheckpoint(paths.checkpoint);
  const ownRejects = previous.kind === 'ok' && previous.checkpoint.rejects.path === rejectsAbsolute;

  if (options.dryRun) {
    if (ownRejects && !previous.checkpoint.done) {
      throw new UsageError(
        `${paths.rejects} is the rejects file of the unfinished replay checkpointed in ${paths.checkpoint}; ` +
          'a dry run never writes a real run’s files: leave --rejects out (the dry run then writes ' +
          `${options.file}.dry-run.rejects.ndjson) or give another path.`,
      );
    }
    return { rejects: await RejectsFile.fresh(paths.rejects, paths.defaultRejects || ownRejects) };
  }

  if (!options.resume) {
    let replaceable = false;
    if (previous.kind === 'ok') {
      const last = previous.checkpoint;
      if (!last.done) {
        note(io, `Starting at line 1; a previous run stopped after line ${last.line} (--resume continues there).`);
      }
      replaceable =
        ownRejects &&
        (await checkRejects(last.rejects, last.line, paths.checkpoint).then(
          () => true,
          () => false,
        ));
    }
    const rejects = await RejectsFile.fresh(paths.rejects, replaceable);
    // A stale checkpoint must not outlive the run that starts over.
    await fs.rm(paths.checkpoint, { force: true });
    return { rejects };
  }

  if (previous.kind === 'none') {
    note(io, `No checkpoint at ${paths.checkpoint}: starting at line 1.`);
    return { rejects: await RejectsFile.fresh(paths.rejects, false) };
  }
  if (previous.kind === 'unreadable') {
    throw new CommandFailed(
      `cannot resume: ${paths.checkpoint} cannot be used (${previous.why}). ${startOver(paths.checkpoint)}.`,
    );
  }
  const checkpoint = previous.checkpoint;
  await checkInput(options.file, checkpoint, paths.checkpoint);
  if (!ownRejects) {
    throw new CommandFailed(
      `cannot resume: ${paths.checkpoint} wrote its rejects to ${checkpoint.rejects.path}, not ${rejectsAbsolute}. ` +
        `Pass --rejects ${checkpoint.rejects.path}, or ${startOver(paths.checkpoint)}.`,
    );
  }
  const cut = await checkRejects(checkpoint.rejects, checkpoint.line, paths.checkpoint);
  if (cut > 0) {
    note(
      io,
      `Cut ${cut} bytes of rejects the stopped run wrote after its checkpoint (lines after ${checkpoint.line}); ` +
        'those lines are judged again now.',
    );
  }
  return { checkpoint, rejects: await RejectsFile.resume(checkpoint.rejects, cut) };
}

/** The input must still hold, byte for byte, what the checkpoint covered (lines may be appended). */
async function checkInput(file: string, checkpoint: Checkpoint, checkpointPath: string): Promise<void> {
  const refuse = (what: string) => new CommandFailed(`cannot resume: ${what}. ${startOver(checkpointPath)}.`);
  const size = (await fs.stat(file)).size;
  const head = await fingerprintOf(file, checkpoint.fingerprintBytes);
  if (head.fingerprint !== checkpoint.fingerprint || head.fingerprintBytes !== checkpoint.fingerprintBytes) {
    throw refuse(
      `${checkpointPath} belongs to another file (the start of ${file} differs from the file it was made for)`,
    );
  }
  if (size < checkpoint.bytes) {
    throw refuse(
      `${file} is shorter (${size} bytes) than where the run stopped (byte ${checkpoint.bytes}, line ${checkpoint.line}): it was cut or replaced`,
    );
  }
  if ((await beforeHash(file, checkpoint.bytes)) !== checkpoint.before) {
    throw refuse(
      `${file} changed before line ${checkpoint.line}, where the run stopped (lines were edited, added or removed)`,
    );
  }
}
