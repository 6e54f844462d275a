import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { DatabaseConfig } from '../config.js';
import { migrationSource } from './migrations/index.js';
import './tables.js';

export type Db = Knex;
export type Trx = Knex.Transaction;
export type Engine = DatabaseConfig['client'];

interface SqliteConnection {
  pragma(source: string): unknown;
}

/** Knex options for either engine; also used by `knexfile.ts` for the knex CLI. */
export function knexOptions(database: DatabaseConfig): Knex.Config {
  const migrations: Knex.MigratorConfig = { migrationSource, tableName: 'knex_migrations' };
  if (database.client === 'sqlite') {
    return {
      client: 'better-sqlite3',
      connection: { filename: database.filename },
      useNullAsDefault: true,
      migrations,
      pool: {
        min: 1,
        max: 1,
        // docs/reliability.md: WAL, synchronous=FULL so a 200 means durable, and cascades on.
        afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: SqliteConnection) => void) {
          try {
            conn.pragma('journal_mode = WAL');
            conn.pragma('synchronous = FULL');
            conn.pragma('foreign_keys = ON');
            conn.pragma('busy_timeout = 5000');
            done(null, conn);
          } catch (err) {
            done(err as Error, conn);
          }
        },
      },
    };
  }
  return {
    client: 'mysql2',
    connection: {
      uri: database.url,
      charset: 'utf8mb4',
      timezone: 'Z',
      // SUM() answers DECIMAL; we only sum integer centavos, so numbers are exact.
      decimalNumbers: true,
      supportBigNumbers: true,
      bigNumberStrings: false,
    } as Knex.MySql2ConnectionConfig,
    migrations,
    pool: { min: 0, max: 10 },
  };
}

export function createDb(database: DatabaseConfig): Db {
  if (database.client === 'sqlite' && database.filename !== ':memory:') {
    fs.mkdirSync(path.dirname(database.filename), { recursive: true });
  }
  return knexFactory(knexOptions(database));
}

export function engineOf(db: Db): Engine {
  return db.client.config.client === 'mysql2' ? 'mysql' : 'sqlite';
}

/** Unique-index violations of both engines. */
export function isUniqueViolation(err: unknown): err is Error & { message: string } {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: string }).code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A row names a parent row that does not exist (a foreign key refused it), on either engine. */
export function isForeignKeyViolation(err: unknown): err is Error {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: string }).code;
  return (
    code === 'ER_NO_REFERENCED_ROW_2' || code === 'ER_NO_REFERENCED_ROW' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY'
  );
}

/**
 * The engine's own words about a unique violation (`UNIQUE constraint failed: t.a, t.b` or
 * `Duplicate entry '…' for key 't_a_unique'`), without the SQL Knex puts in front of them,
 * which names every column of the statement.
 */
export function violatedIndex(err: Error): string {
  const sqlMessage = (err as { sqlMessage?: string }).sqlMessage;
  if (sqlMessage) return sqlMessage.slice(sqlMessage.lastIndexOf(' for key '));
  return err.message.slice(err.message.lastIndexOf(' - ') + 3);
}

/** The server is down, restarting, unreachable or out of connections; SQLite is locked past busy_timeout. */
const UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_CON_COUNT_ERROR',
  'SQLITE_BUSY',
]);

/** A database that cannot answer now and may later: the request is answered 503, not 500. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: string }).code;
  return (code !== undefined && UNAVAILABLE.has(code)) || err.name === 'KnexTimeoutError';
}

/**
 * Thrown by work whose conditional update found the row changed by another transaction that it
 * had no lock to wait for (a Galera node, or a read taken before the lock): like a deadlock, the
 * whole transaction runs again and reads what is there now.
 */
export class TransactionOvertaken extends Error {
  override name = 'TransactionOvertaken';
}

/** InnoDB deadlock / lock wait: safe to retry the whole transaction. */
export function isRetryableTxError(err: unknown): boolean {
  if (err instanceof TransactionOvertaken) return true;
  const code = (err as { code?: string } | undefined)?.code;
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT' || code === 'SQLITE_BUSY';
}

/**
 * For work whose correctness rests on row locks and conditional updates alone (the conversion
 * and payout transitions): READ COMMITTED on MySQL, where InnoDB takes no gap locks, so
 * approvals inserting index entries and payouts scanning them do not deadlock one another.
 * An UPDATE still re-reads the latest committed row and re-checks its condition. SQLite
 * transactions are serialisable whatever is asked.
 */
export function inLockingTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  return inTransaction(db, work, 8, engineOf(db) === 'mysql' ? { isolationLevel: 'read committed' } : {});
}

/** Runs `work` in a transaction, retrying a few times when the engine picked it as a deadlock victim. */
export async function inTransaction<T>(
  db: Db,
  work: (trx: Trx) => Promise<T>,
  attempts = 5,
  config: Knex.TransactionConfig = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work, config);
    } catch (err) {
      if (attempt >= attempts || !isRetryableTxError(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20));
    }
  }
}
