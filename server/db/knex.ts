import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { DatabaseConfig } from '../config.js';
import { migrationSource } from './migrations/index.js';
import { keepStatements } from './statementCache.js';
import './tables.js';

export type Db = Knex;
export type Trx = Knex.Transaction;
export type Engine = DatabaseConfig['client'];

interface SqliteConnection {
  pragma(source: string, options?: { simple: boolean }): unknown;
  prepare(sql: string): unknown;
  /** The database file's path (better-sqlite3's `Database#name`). */
  name: string;
}

interface MysqlConnection {
  query(sql: string, callback: (err: Error | null, rows?: unknown) => void): void;
}

/**
 * On a Galera node, a read waits until the node has applied every write set the cluster had
 * committed when the read began (wsrep_sync_wait's READ bit): otherwise a daemon on node 2 may
 * not yet see what a daemon on node 1 has just answered 200 for, such as a new affiliate or
 * key. Plain MySQL and MariaDB (no wsrep_on, or off) are left as they are.
 */
function causalReadsOnGalera(conn: MysqlConnection, done: (err: Error | null, conn: MysqlConnection) => void): void {
  conn.query("SHOW VARIABLES LIKE 'wsrep_on'", (err, rows) => {
    const on = !err && Array.isArray(rows) && (rows[0] as { Value?: string } | undefined)?.Value === 'ON';
    if (!on) return done(null, conn);
    conn.query('SET SESSION wsrep_sync_wait = @@session.wsrep_sync_wait | 1', (setErr) => done(setErr, conn));
  });
}

/**
 * Knex's own warnings, less those it prints when another process holds the migration lock or
 * applied the migrations first: migrateToLatest waits and lists again, so it is no news, and the
 * daemon's log stays JSON.
 */
const log: Knex.Config['log'] = {
  warn(message: string) {
    if (
      /^Can't take lock to run migrations|^If you are sure migrations are not running|applied meanwhile by another daemon$/.test(
        message,
      )
    ) {
      return;
    }
    console.warn(message);
  },
};

/** Knex options for either engine; also used by `knexfile.ts` for the knex CLI. */
export function knexOptions(database: DatabaseConfig): Knex.Config {
  const migrations: Knex.MigratorConfig = { migrationSource, tableName: 'knex_migrations' };
  if (database.client === 'sqlite') {
    return {
      client: 'better-sqlite3',
      log,
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
            keepStatements(conn);
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
    log,
    connection: {
      uri: database.url,
      charset: 'utf8mb4',
      timezone: 'Z',
      // SUM() answers DECIMAL; we only sum integer centavos, so numbers are exact.
      decimalNumbers: true,
      supportBigNumbers: true,
      bigNumberStrings: false,
    } as Knex.MySql2ConnectionConfig,
    // DDL commits on its own on MySQL, so a transaction around migrations holds nothing; without
    // one, knex takes its migration lock in a transaction of its own, which commits (or, on a
    // Galera cluster where another node took the lock first, is refused) before any migration
    // runs. Inside the migrations' transaction, the first DDL would commit the lock implicitly,
    // and a daemon refused there would release the lock another daemon holds.
    migrations: { ...migrations, disableTransactions: true },
    pool: { min: 0, max: 10, afterCreate: causalReadsOnGalera },
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
  // Straight from better-sqlite3 (server/db/prepared.ts) the message has no SQL before it.
  const sql = err.message.lastIndexOf(' - ');
  return sql === -1 ? err.message : err.message.slice(sql + 3);
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
  // "Got error … during COMMIT": a Galera node that lost the cluster as it committed. The
  // transaction may or may not be in the cluster, so it is not run again: 503, and the client's
  // retry is deduped by its event_id (docs/scaling.md, "When a node dies").
  'ER_ERROR_DURING_COMMIT',
  'SQLITE_BUSY',
]);

interface DriverError {
  code?: string;
  errno?: number;
  sqlMessage?: string;
  /** mysql2: the connection is unusable (lost, reset, closed under the pool's feet). */
  fatal?: boolean;
}

/**
 * Thrown by work whose conditional update found the row changed by another transaction that it
 * had no lock to wait for (a Galera node, or a read taken before the lock): like a deadlock, the
 * whole transaction runs again and reads what is there now.
 */
export class TransactionOvertaken extends Error {
  override name = 'TransactionOvertaken';
}

/**
 * A Galera node that is not in the primary component (it lost quorum) or has not finished
 * joining (state transfer) refuses every statement on a table with 1047 "WSREP has not yet
 * prepared node for application use", before running it.
 */
export function isNodeNotReady(err: unknown): boolean {
  const e = (err ?? {}) as DriverError;
  return e.errno === 1047 && /WSREP/.test(e.sqlMessage ?? '');
}

/**
 * A database that cannot answer now and may later: the request is answered 503, not 500.
 * Besides the codes above, any error mysql2 marks fatal: the connection is gone, for instance
 * "Can't add new command when connection is in closed state" (no code) when the pool handed
 * out a connection whose server had just died.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code, fatal } = err as DriverError;
  return (
    (code !== undefined && UNAVAILABLE.has(code)) ||
    fatal === true ||
    err.name === 'KnexTimeoutError' ||
    isNodeNotReady(err)
  );
}

/**
 * Refusals after which the whole transaction may simply run again: nothing of it was kept.
 * - ER_LOCK_DEADLOCK (1213): InnoDB chose it as a deadlock victim, or Galera refused it at
 *   commit because a transaction on another node wrote the same rows first (certification),
 *   or aborted it to apply such a transaction (brute-force abort);
 * - ER_LOCK_WAIT_TIMEOUT (1205): a row lock, or Galera's causal read (wsrep_sync_wait), waited too long;
 * - ER_CHECKREAD (1020): MariaDB 11.6+ with innodb_snapshot_isolation (its default from 11.8)
 *   found a row changed since the transaction's snapshot;
 * - ER_TRANSACTION_ROLLBACK_DURING_COMMIT (3101): MySQL Group Replication's certification failure;
 * - 1047 from a Galera node not ready (see isNodeNotReady): refused before it ran;
 * - SQLITE_BUSY: the file stayed locked past busy_timeout.
 */
const RETRYABLE = new Set([
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_CHECKREAD',
  'ER_TRANSACTION_ROLLBACK_DURING_COMMIT',
  'SQLITE_BUSY',
]);

export function isRetryableTxError(err: unknown): boolean {
  if (err instanceof TransactionOvertaken) return true;
  const code = (err as DriverError | undefined)?.code;
  return (code !== undefined && RETRYABLE.has(code)) || isNodeNotReady(err);
}

/**
 * For work whose correctness rests on row locks and conditional updates alone (the conversion
 * and payout transitions): READ COMMITTED on MySQL, where InnoDB takes no gap locks, so
 * approvals inserting index entries and payouts scanning them do not deadlock one another.
 * An UPDATE still re-reads the latest committed row and re-checks its condition. SQLite
 * transactions are serialisable whatever is asked.
 */
export function inLockingTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  return inTransaction(
    db,
    work,
    DEFAULT_ATTEMPTS,
    engineOf(db) === 'mysql' ? { isolationLevel: 'read committed' } : {},
  );
}

/** Runs of one transaction, at most: enough for a burst of commits racing for one row on a cluster. */
export const DEFAULT_ATTEMPTS = 8;
const BACKOFF_BASE_MS = 10;
const BACKOFF_CAP_MS = 400;

/**
 * The wait before run `attempt + 1`: random between 0 and 10 ms × 2^(attempt − 1), at most
 * 400 ms ("full jitter"), so transactions that collided once do not collide again in step.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1)));
}

/**
 * Runs `work` in a transaction and, when the database takes it back whole (isRetryableTxError:
 * a deadlock, a Galera certification conflict, a node not ready), runs it again from the
 * start, up to `attempts` runs with jittered backoff, so its caller gets the answer it would
 * have had alone. `work` must therefore be safe to run again: it reads what it needs inside
 * the transaction. The last refusal is thrown (answered 503: the client may retry).
 * On SQLite its commit's fsync runs in the thread pool (`syncedAside`), and it resolves once
 * the commit is on the disk.
 */
export function inTransaction<T>(
  db: Db,
  work: (trx: Trx) => Promise<T>,
  attempts = DEFAULT_ATTEMPTS,
  config: Knex.TransactionConfig = {},
): Promise<T> {
  if (config.connection === undefined && !db.isTransaction && engineOf(db) === 'sqlite') {
    return retried(db, attempts, () => syncedAside(db, work));
  }
  return retried(db, attempts, () => db.transaction(work, config));
}

/**
 * `run` (one transaction) again while the database takes it back whole, up to `attempts` runs
 * with jittered backoff; no connection is held while it waits.
 */
async function retried<T>(db: Db, attempts: number, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (!isRetryableTxError(err)) throw err;
      const retry = attempt < attempts;
      retryWatchers.get(db)?.(retryReason(err), retry);
      if (!retry) throw err;
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
    }
  }
}

interface SqlitePool {
  acquireConnection(): Promise<SqliteConnection>;
  releaseConnection(conn: SqliteConnection): Promise<unknown>;
}

/**
 * `inTransaction` for work that is simply done again when its commit is lost (the webhook
 * fan-out: its deliveries and the cursor that says they exist commit together). On SQLite the
 * commit skips its fsync (synchronous=NORMAL for this transaction only, on the daemon's one
 * connection, held from before BEGIN to after COMMIT so nothing else commits without it):
 * better-sqlite3 waits for an fsync on the daemon's only thread, so every fan-out chunk held
 * back every request for as long as the disk took. In WAL mode the file stays consistent on a
 * power cut, and the next ordinary commit's fsync makes this one durable too. MySQL: as
 * `inTransaction`.
 */
export async function inTransactionWithoutSync<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  if (engineOf(db) !== 'sqlite') return inTransaction(db, work);
  return retried(db, DEFAULT_ATTEMPTS, async () => (await unsyncedOnSqlite(db, work)).result);
}

/**
 * `work` in a transaction on SQLite's one connection, held from before BEGIN to after COMMIT so
 * nothing else commits meanwhile, with synchronous=NORMAL for it alone: the commit writes the
 * write-ahead log without waiting for its fsync. Answers the result and the connection's log.
 * A file in another journal mode keeps no such log (the daemon warns at start): its commit
 * stays synchronous=FULL, synced by SQLite itself, since nothing would sync it afterwards.
 */
async function unsyncedOnSqlite<T>(
  db: Db,
  work: (trx: Trx) => Promise<T>,
): Promise<{ result: T; wal: WalFile | null }> {
  const pool = db.client as SqlitePool;
  const connection = await pool.acquireConnection();
  let wal: WalFile | null = null;
  try {
    wal = walFileOf(connection);
    if (wal !== null) connection.pragma('synchronous = NORMAL');
    const result = await db.transaction(work, { connection });
    return { result, wal };
  } finally {
    if (wal !== null) connection.pragma('synchronous = FULL');
    await pool.releaseConnection(connection);
  }
}

/**
 * Each connection's write-ahead log, opened once (a descriptor for its life), or null when it
 * keeps none (an in-memory database). The log stays the same file while the connection is open:
 * SQLite removes it only when its last connection closes, after checkpointing it into the
 * database file and syncing that; a new connection (after a broken one) opens it anew.
 */
interface WalFile {
  path: string;
  fd?: number;
  /** The fdatasync running now, if any. */
  syncing?: Promise<void>;
  /** The one to start once it ends, shared by every commit made while it runs. */
  next?: Promise<void>;
}
const walFiles = new WeakMap<SqliteConnection, WalFile | null>();

function walFileOf(conn: SqliteConnection): WalFile | null {
  let wal = walFiles.get(conn);
  if (wal === undefined) {
    wal = conn.pragma('journal_mode', { simple: true }) === 'wal' ? { path: `${conn.name}-wal` } : null;
    walFiles.set(conn, wal);
  }
  return wal;
}

/** One fdatasync of the log from libuv's thread pool: fsync reaches the file, whoever wrote it. */
function startSync(wal: WalFile): Promise<void> {
  wal.fd ??= fs.openSync(wal.path, 'r+');
  const { fd } = wal;
  const syncing = new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
  wal.syncing = syncing;
  const done = () => {
    if (wal.syncing === syncing) wal.syncing = undefined;
  };
  syncing.then(done, done);
  return syncing;
}

/**
 * The log's pages written so far on the disk. A sync already running may have started before
 * the caller's commit, so the caller waits for the next one, started when it ends; every commit
 * made meanwhile shares that one (group commit of the fsyncs). Opened after a commit, when the
 * log surely exists.
 */
function syncLog(wal: WalFile): Promise<void> {
  if (wal.next) return wal.next;
  if (!wal.syncing) return startSync(wal);
  const after = () => {
    wal.next = undefined;
    return startSync(wal);
  };
  wal.next = wal.syncing.then(after, after);
  return wal.next;
}

/**
 * One transaction whose SQLite commit does not wait for the disk on the daemon's only thread:
 * it commits with synchronous=NORMAL (the write-ahead log written, not yet synced, on the
 * daemon's one connection held from before BEGIN to after COMMIT), then fsyncs the log from
 * the thread pool before it resolves. better-sqlite3 otherwise waits for the disk on the
 * daemon's only thread at every commit, and no request is read meanwhile. Resolved means on the
 * disk as with synchronous=FULL; a power cut before it loses only what nobody was answered for
 * yet. Meanwhile other transactions may commit, and share the next fsync (docs/architecture.md,
 * "Commits on SQLite").
 */
async function syncedAside<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  const { result, wal } = await unsyncedOnSqlite(db, work);
  // No log (an in-memory database, another journal mode): the commit needed no fsync of ours.
  if (wal !== null) await syncLog(wal);
  return result;
}

/**
 * Why the database took a transaction back, as metrics name it (docs/operations.md): a Galera
 * certification conflict arrives as a deadlock (1213), so `deadlock` counts both.
 */
export type RetryReason =
  | 'deadlock'
  | 'lock_wait_timeout'
  | 'snapshot_conflict'
  | 'group_replication_conflict'
  | 'node_not_ready'
  | 'overtaken'
  | 'sqlite_busy';

const REASON_OF_CODE: Readonly<Record<string, RetryReason>> = {
  ER_LOCK_DEADLOCK: 'deadlock',
  ER_LOCK_WAIT_TIMEOUT: 'lock_wait_timeout',
  ER_CHECKREAD: 'snapshot_conflict',
  ER_TRANSACTION_ROLLBACK_DURING_COMMIT: 'group_replication_conflict',
  SQLITE_BUSY: 'sqlite_busy',
};

/** The reason of an error isRetryableTxError accepted. */
export function retryReason(err: unknown): RetryReason {
  if (err instanceof TransactionOvertaken) return 'overtaken';
  if (isNodeNotReady(err)) return 'node_not_ready';
  return REASON_OF_CODE[(err as DriverError | undefined)?.code ?? ''] ?? 'deadlock';
}

/** `retried`: false when this was the last run and the refusal goes to the caller. */
export type RetryWatcher = (reason: RetryReason, retried: boolean) => void;

/** Per database handle, so that several daemons in one process (tests) count their own. */
const retryWatchers = new WeakMap<Db, RetryWatcher>();

/** Tells `watcher` of every transaction `inTransaction` runs again, or gives up, on `db` (metrics). */
export function watchTransactionRetries(db: Db, watcher: RetryWatcher): void {
  retryWatchers.set(db, watcher);
}

/** The connection pool's use now (metrics): connections lent out, idle, and acquisitions waiting. */
export interface PoolUse {
  used: number;
  free: number;
  pending: number;
  max: number;
}

interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  max: number;
}

/** Knex's pool (tarn) as it is now; all zero before the first query and after `destroy`. */
export function poolUse(db: Db): PoolUse {
  const pool = (db.client as { pool?: TarnPool }).pool;
  if (!pool) return { used: 0, free: 0, pending: 0, max: 0 };
  return { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires(), max: pool.max };
}
