import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import Database from 'better-sqlite3';
import type { DatabaseConfig } from '../config.js';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  type BackupHeader,
  type BackupKey,
  type BackupLine,
  encodeValue,
  SKIPPED_TABLES,
} from './backupFormat.js';
import type { Db, Engine } from './knex.js';

/** How far a backup is: the SQLite copy's pages first, then rows written of all rows. */
export type BackupProgress = (step: { stage: 'copy' | 'rows'; done: number; total: number; table?: string }) => void;

export interface BackupResult {
  header: BackupHeader;
  rows: number;
}

/** Rows of one table, as arrays in `columns` order. */
type TableRows = AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>;

interface Snapshot {
  migrations: string[];
  tables: Array<{ name: string; rows: number }>;
  rows(table: string): TableRows;
  columns(table: string): Promise<string[]> | string[];
}

const header = (engine: Engine, key: BackupKey) => ({
  format: BACKUP_FORMAT,
  version: BACKUP_VERSION,
  engine,
  createdAt: new Date().toISOString(),
  key,
});

/**
 * Writes the backup file: to FILE.partial (mode 0600: it may hold the webhook key and always
 * holds the data), renamed to FILE once complete, so a failed backup never leaves a file that
 * looks whole. Refuses to overwrite a file.
 */
async function writeBackup(
  file: string,
  head: ReturnType<typeof header>,
  snapshot: Snapshot,
  progress: BackupProgress,
): Promise<BackupResult> {
  if (fs.existsSync(file)) throw new Error(`${file} exists already: choose a new file name`);
  const partial = `${file}.partial`;
  const out = fs.createWriteStream(partial, { mode: 0o600 });
  const gzip = createGzip();
  gzip.pipe(out);
  const write = async (line: BackupLine) => {
    if (!gzip.write(`${JSON.stringify(line)}\n`)) await once(gzip, 'drain');
  };
  const full: BackupHeader = {
    ...head,
    schema: snapshot.migrations.at(-1) ?? '',
    migrations: snapshot.migrations,
    tables: snapshot.tables,
  };
  const total = snapshot.tables.reduce((sum, table) => sum + table.rows, 0);
  let done = 0;
  try {
    await write(full);
    for (const { name } of snapshot.tables) {
      const columns = await snapshot.columns(name);
      await write({ table: name, columns });
      let rows = 0;
      for await (const row of snapshot.rows(name)) {
        await write(columns.map((column) => encodeValue(row[column])));
        rows++;
        if (++done % 1000 === 0) progress({ stage: 'rows', done, total, table: name });
      }
      await write({ end: name, rows });
    }
    await write({ end: true, tables: snapshot.tables.length, rows: done });
    gzip.end();
    await once(out, 'close');
    fs.renameSync(partial, file);
  } catch (err) {
    gzip.destroy();
    out.destroy();
    fs.rmSync(partial, { force: true });
    throw err;
  }
  progress({ stage: 'rows', done, total });
  return { header: full, rows: done };
}

/**
 * SQLite: the online backup API copies the database page by page while daemons write; the copy
 * is the database as it was at one instant (SQLite restarts the copy when a write lands in pages
 * already copied). The file is then written from that copy.
 */
async function backupSqlite(filename: string, file: string, key: BackupKey, progress: BackupProgress) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'affiliated-backup-'));
  const copyFile = path.join(dir, 'snapshot.sqlite3');
  try {
    const source = new Database(filename, { fileMustExist: true, timeout: 5000 });
    try {
      await source.backup(copyFile, {
        progress: ({ totalPages, remainingPages }) => {
          progress({ stage: 'copy', done: totalPages - remainingPages, total: totalPages });
          return 1000;
        },
      });
    } finally {
      source.close();
    }
    const copy = new Database(copyFile, { readonly: true });
    try {
      const listed = copy
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .all() as Array<{ name: string; sql: string | null }>;
      // A full-text index (a virtual table and its shadow tables) is rebuilt from its rows' triggers on restore.
      const virtual = listed.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql ?? '')).map((t) => t.name);
      const names = listed
        .map((t) => t.name)
        .filter((name) => !virtual.some((v) => name === v || name.startsWith(`${v}_`)));
      const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
      const hasMigrations = names.includes('knex_migrations');
      const snapshot: Snapshot = {
        migrations: hasMigrations
          ? (copy.prepare('SELECT name FROM knex_migrations ORDER BY id').pluck().all() as string[])
          : [],
        tables: names
          .filter((name) => !SKIPPED_TABLES.has(name))
          .map((name) => ({
            name,
            rows: Number(
              copy
                .prepare(`SELECT COUNT(*) FROM ${quoted(name)}`)
                .pluck()
                .get(),
            ),
          })),
        columns: (table) =>
          (copy.prepare(`PRAGMA table_info(${quoted(table)})`).all() as Array<{ name: string }>).map((c) => c.name),
        rows: (table) => copy.prepare(`SELECT * FROM ${quoted(table)}`).iterate() as Iterable<Record<string, unknown>>,
      };
      return await writeBackup(file, header('sqlite', key), snapshot, progress);
    } finally {
      copy.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The mysql2 connection knex pools, as much of it as the backup uses. */
interface MysqlConnection {
  query(sql: string, values: unknown[], done: (err: Error | null, rows: unknown) => void): void;
  query(sql: string, values: unknown[]): { stream(): NodeJS.ReadableStream };
}

/**
 * MySQL/MariaDB: one transaction on one connection, REPEATABLE READ, opened WITH CONSISTENT
 * SNAPSHOT and READ ONLY: every table is read from the database as it was at that instant,
 * streamed, while daemons go on writing (InnoDB, as every table here is).
 */
async function backupMysql(db: Db, file: string, key: BackupKey, progress: BackupProgress) {
  const connection = (await db.client.acquireConnection()) as MysqlConnection;
  const query = <T>(sql: string, values: unknown[] = []) =>
    new Promise<T>((resolve, reject) =>
      connection.query(sql, values, (err, rows) => (err ? reject(err) : resolve(rows as T))),
    );
  try {
    await query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
    const listed = await query<Array<Record<string, string>>>("SHOW FULL TABLES WHERE Table_type = 'BASE TABLE'");
    const names = listed.map((row) => String(Object.values(row)[0])).sort();
    const migrations = names.includes('knex_migrations')
      ? (await query<Array<{ name: string }>>('SELECT name FROM knex_migrations ORDER BY id')).map((row) => row.name)
      : [];
    const tables: Array<{ name: string; rows: number }> = [];
    for (const name of names.filter((table) => !SKIPPED_TABLES.has(table))) {
      const [row] = await query<Array<{ n: number | string }>>('SELECT COUNT(*) AS n FROM ??', [name]);
      tables.push({ name, rows: Number(row?.n ?? 0) });
    }
    const snapshot: Snapshot = {
      migrations,
      tables,
      columns: async (table) =>
        (await query<Array<{ Field: string }>>('SHOW COLUMNS FROM ??', [table])).map((c) => c.Field),
      rows: (table) => connection.query('SELECT * FROM ??', [table]).stream() as AsyncIterable<Record<string, unknown>>,
    };
    return await writeBackup(file, header('mysql', key), snapshot, progress);
  } finally {
    await query('ROLLBACK').catch(() => undefined);
    await db.client.releaseConnection(connection);
  }
}

/** `affiliated db backup FILE`: online, consistent, on either engine. */
export async function backupDatabase(
  db: Db,
  database: DatabaseConfig,
  file: string,
  key: BackupKey,
  progress: BackupProgress = () => undefined,
): Promise<BackupResult> {
  if (database.client === 'sqlite') {
    if (database.filename === ':memory:') throw new Error('a database in memory cannot be backed up');
    return backupSqlite(database.filename, file, key, progress);
  }
  return backupMysql(db, file, key, progress);
}
