import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { DatabaseConfig } from '../config.js';
import { StartupError } from '../errors.js';

/** What `affiliated serve` holds while it runs; `release` lets another daemon start on the file. */
export interface DatabaseClaim {
  release(): void;
}

const NOTHING_HELD: DatabaseClaim = { release: () => undefined };

/** The file beside a SQLite database whose lock says a daemon serves it. */
export const lockFileOf = (filename: string): string => `${filename}-daemon.lock`;

/**
 * A SQLite file serves one daemon: each daemon batches its writes through its own single writer,
 * and two would only queue behind each other's locks. So `affiliated serve` claims the file
 * first, and a second daemon on it stops at start with a message instead of running quietly.
 *
 * The claim is an exclusive lock that SQLite takes on a small file beside the database and keeps
 * for the life of the process. The operating system drops it when the process ends, however it
 * ends (a crash, `kill -9`), so no stale claim is ever left to clean up. Operator commands
 * (`campaigns create`, `keys create`, ...) do not claim it: they work beside a running daemon.
 * MySQL and MariaDB serve several daemons, so nothing is claimed there.
 */
export function claimDatabase(database: DatabaseConfig): DatabaseClaim {
  if (database.client !== 'sqlite' || database.filename === ':memory:') return NOTHING_HELD;
  const file = lockFileOf(database.filename);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // No busy timeout: a claim held elsewhere is an answer, not something to wait for.
  const lock = new Database(file, { timeout: 0 });
  try {
    // Nothing is ever written to it: a journal in memory, so no second file beside it.
    lock.pragma('journal_mode = MEMORY');
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    lock.close();
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
    throw new StartupError(
      `another daemon already serves the SQLite database ${database.filename}: a SQLite file serves one daemon. ` +
        'Use that one (affiliated status shows its address), stop it first, or, to run several daemons, ' +
        'put them on one MySQL/MariaDB database (DATABASE_URL=mysql://...)',
    );
  }
  return { release: () => lock.close() };
}
