import { stat } from 'node:fs/promises';
import type { Db } from '../db/knex.js';
import { CONTRACT_MIGRATIONS, KNOWN_MIGRATIONS } from '../db/migrations/index.js';

/** One round trip to the database; throws when it cannot answer. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.raw('select 1');
}

/** What makes a commit durable on each engine (docs/reliability.md). */
export type DurabilitySettings =
  | { engine: 'sqlite'; journalMode: string; synchronous: number }
  | { engine: 'mysql'; flushLogAtTrxCommit: number; logBin: boolean; syncBinlog: number };

export async function durabilitySettings(db: Db): Promise<DurabilitySettings> {
  if (db.client.config.client === 'mysql2') {
    const [rows] = (await db.raw(
      'SELECT @@innodb_flush_log_at_trx_commit AS flush, @@log_bin AS log_bin, @@sync_binlog AS sync_binlog',
    )) as [{ flush: number | string; log_bin: number | string; sync_binlog: number | string }[]];
    const row = rows[0];
    return {
      engine: 'mysql',
      flushLogAtTrxCommit: Number(row?.flush),
      logBin: Number(row?.log_bin) === 1,
      syncBinlog: Number(row?.sync_binlog),
    };
  }
  const [journal] = (await db.raw('PRAGMA journal_mode')) as { journal_mode: string }[];
  const [synchronous] = (await db.raw('PRAGMA synchronous')) as { synchronous: number }[];
  return { engine: 'sqlite', journalMode: journal?.journal_mode ?? '', synchronous: Number(synchronous?.synchronous) };
}

/** Knex's own record of applied migrations; empty on a database no daemon has migrated yet. */
/** The migrations this build knows, in order, and which of them are contract steps (docs/operations.md#upgrades). */
export function knownMigrations(): { known: readonly string[]; contract: ReadonlySet<string> } {
  return { known: KNOWN_MIGRATIONS, contract: CONTRACT_MIGRATIONS };
}

export async function appliedMigrations(db: Db): Promise<string[]> {
  try {
    return await db('knex_migrations').orderBy('id').pluck<string[]>('name');
  } catch (err) {
    const code = (err as { code?: string }).code;
    // No migrations table: nothing was ever applied.
    if (code === 'ER_NO_SUCH_TABLE' || (code === 'SQLITE_ERROR' && /no such table/.test((err as Error).message))) {
      return [];
    }
    throw err;
  }
}

/**
 * Whether the SQLite file the daemon opened is gone from its path (deleted or moved while the
 * daemon ran): the open connection still answers, but into a file nobody will find again.
 * Always false on MySQL/MariaDB and for `:memory:`.
 */
export async function databaseFileGone(db: Db): Promise<boolean> {
  const filename = (db.client.config.connection as { filename?: string } | undefined)?.filename;
  if (db.client.config.client !== 'better-sqlite3' || !filename || filename === ':memory:') return false;
  try {
    await stat(filename);
    return false;
  } catch {
    return true;
  }
}
