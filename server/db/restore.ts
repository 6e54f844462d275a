import fs from 'node:fs';
import readline from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { DatabaseConfig } from '../config.js';
import { BACKUP_FORMAT, BACKUP_VERSION, type BackupHeader, decodeValue } from './backupFormat.js';
import type { Db } from './knex.js';
import { BUILD_SCHEMA, migrateToLatest } from './migrate.js';
import { KNOWN_MIGRATIONS, migrationSourceOf } from './migrations/index.js';

/** A backup file or a database a restore will not take, with what to do. */
export class RestoreRefused extends Error {
  override name = 'RestoreRefused';
}

export type RestoreProgress = (step: { done: number; total: number; table: string }) => void;

/** The lines of a backup file, parsed; a file that is not gzip'd JSON lines is refused. */
async function* backupLines(file: string): AsyncGenerator<unknown> {
  if (!fs.existsSync(file)) throw new RestoreRefused(`${file} does not exist`);
  const input = fs.createReadStream(file).pipe(createGunzip());
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of lines) yield JSON.parse(line) as unknown;
  } catch {
    throw new RestoreRefused(
      `${file} is not an affiliated backup, or it is damaged: make a new one with \`affiliated db backup\``,
    );
  } finally {
    lines.close();
    input.destroy();
  }
}

function checkHeader(file: string, line: unknown): BackupHeader {
  const header = line as Partial<BackupHeader> | undefined;
  if (header?.format !== BACKUP_FORMAT || !Array.isArray(header.migrations) || !Array.isArray(header.tables)) {
    throw new RestoreRefused(`${file} is not an affiliated backup: make one with \`affiliated db backup\``);
  }
  if (header.version !== BACKUP_VERSION) {
    throw new RestoreRefused(
      `${file} is a backup in format ${String(header.version)}, which this build does not read: restore it with the release that made it`,
    );
  }
  const known = new Set(KNOWN_MIGRATIONS);
  if (header.migrations.some((name) => !known.has(name))) {
    throw new RestoreRefused(
      `${file} holds schema ${String(header.schema)}, newer than this build's ${BUILD_SCHEMA}: restore it with the release that made it, or a newer one`,
    );
  }
  return header as BackupHeader;
}

/** The header alone, to check a backup before anything is written. */
export async function readBackupHeader(file: string): Promise<BackupHeader> {
  for await (const line of backupLines(file)) return checkHeader(file, line);
  throw new RestoreRefused(`${file} is empty: it is not an affiliated backup`);
}

async function tablesOf(db: Db, engine: 'sqlite' | 'mysql'): Promise<string[]> {
  if (engine === 'sqlite') {
    const rows = await db.raw<Array<{ name: string }>>(
      "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name",
    );
    return rows.map((row) => row.name);
  }
  const [listed] = await db.raw<[Array<Record<string, string>>]>("SHOW FULL TABLES WHERE Table_type = 'BASE TABLE'");
  return (listed ?? []).map((row) => String(Object.values(row)[0])).sort();
}

/** Only into an empty database: a restore over data would mix two histories. */
async function refuseNotEmpty(db: Db, engine: 'sqlite' | 'mysql', label: string): Promise<void> {
  const tables = await tablesOf(db, engine);
  if (tables.length === 0) return;
  const shown = tables.slice(0, 5).join(', ') + (tables.length > 5 ? `, … (${tables.length} tables)` : '');
  throw new RestoreRefused(
    `${label} is not empty: it has the tables ${shown}. Restore only into an empty database: a new SQLite path, or a new MySQL database (CREATE DATABASE)`,
  );
}

/** A query or a raw statement, to run on a chosen connection. */
interface Connectable {
  connection(connection: unknown): Promise<unknown>;
}
type On = (query: Connectable) => Promise<unknown>;

/** One connection for the whole load, so the foreign-key setting holds for every statement. */
async function withLoadConnection<T>(db: Db, engine: 'sqlite' | 'mysql', work: (on: On) => Promise<T>): Promise<T> {
  const connection: unknown = await db.client.acquireConnection();
  const on: On = (query) => query.connection(connection);
  try {
    // Rows arrive table by table, in name order: a child's before its parent's.
    await on(db.raw(engine === 'sqlite' ? 'PRAGMA foreign_keys = OFF' : 'SET SESSION FOREIGN_KEY_CHECKS = 0'));
    if (engine === 'sqlite') await on(db.raw('BEGIN'));
    const result = await work(on);
    if (engine === 'sqlite') await on(db.raw('COMMIT'));
    return result;
  } catch (err) {
    if (engine === 'sqlite') await on(db.raw('ROLLBACK')).catch(() => undefined);
    throw err;
  } finally {
    await on(db.raw(engine === 'sqlite' ? 'PRAGMA foreign_keys = ON' : 'SET SESSION FOREIGN_KEY_CHECKS = 1')).catch(
      () => undefined,
    );
    await db.client.releaseConnection(connection);
  }
}

const ROWS_PER_INSERT = 200;

/**
 * `affiliated db restore FILE`: into an empty database of the backup's engine, the schema the
 * backup had (its migrations), then its rows, then this build's later migrations. Answers the
 * header and the rows restored.
 */
export async function restoreDatabase(
  db: Db,
  database: DatabaseConfig,
  file: string,
  label: string,
  progress: RestoreProgress = () => undefined,
): Promise<{ header: BackupHeader; rows: number; migrated: string[] }> {
  const header = await readBackupHeader(file);
  if (header.engine !== database.client) {
    throw new RestoreRefused(
      `${file} is a ${header.engine === 'sqlite' ? 'SQLite' : 'MySQL/MariaDB'} backup: restore it into a database of that engine (DATABASE_URL=${header.engine === 'sqlite' ? 'sqlite:PATH' : 'mysql://...'})`,
    );
  }
  await refuseNotEmpty(db, database.client, label);
  await db.migrate.latest({ migrationSource: migrationSourceOf(header.migrations) });
  const total = header.tables.reduce((sum, table) => sum + table.rows, 0);
  const expected = new Map(header.tables.map((table) => [table.name, table.rows]));
  const damaged = (why: string) =>
    new RestoreRefused(`${file} is damaged (${why}): restore another backup, into a new empty database`);
  let done = 0;
  try {
    await withLoadConnection(db, database.client, async (on) => {
      // The migrations seed some rows (the built-in plans): the backup's replace them.
      for (const { name } of header.tables) await on(db(name).delete());
      let table: { name: string; columns: string[]; rows: number } | undefined;
      let batch: Record<string, unknown>[] = [];
      let finished = false;
      const flush = async () => {
        if (table && batch.length > 0) await on(db(table.name).insert(batch));
        batch = [];
      };
      let first = true;
      for await (const line of backupLines(file)) {
        if (first) {
          first = false;
          continue;
        }
        if (finished) throw damaged('lines after its end');
        if (Array.isArray(line)) {
          if (!table || line.length !== table.columns.length) throw damaged('a row outside a table');
          const row: Record<string, unknown> = {};
          table.columns.forEach((column, i) => (row[column] = decodeValue(line[i])));
          batch.push(row);
          table.rows++;
          if (++done % 1000 === 0) progress({ done, total, table: table.name });
          if (batch.length >= ROWS_PER_INSERT) await flush();
          continue;
        }
        const mark = line as { table?: string; columns?: string[]; end?: string | true; rows?: number };
        if (typeof mark.table === 'string' && Array.isArray(mark.columns) && expected.has(mark.table)) {
          table = { name: mark.table, columns: mark.columns, rows: 0 };
        } else if (typeof mark.end === 'string' && table?.name === mark.end) {
          await flush();
          if (table.rows !== mark.rows || expected.get(table.name) !== table.rows)
            throw damaged(`${table.name}'s row count`);
          table = undefined;
        } else if (mark.end === true && mark.rows === done && done === total) {
          finished = true;
        } else {
          throw damaged('an unexpected line');
        }
      }
      if (!finished) throw damaged('it ends before its last line: cut short');
    });
  } finally {
    progress({ done, total, table: '' });
  }
  const migrated = await migrateToLatest(db);
  return { header, rows: done, migrated };
}
