import type { Db, Trx } from './knex.js';
import { engineOf } from './knex.js';

interface SqliteStatement {
  all(bindings: unknown[]): unknown[];
  run(bindings: unknown[]): unknown;
}
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  transaction(work: () => void): () => void;
}
interface MysqlConnection {
  execute(sql: string, bindings: unknown[], done: (err: Error | null, rows: unknown) => void): void;
}

/** Statements prepared on each SQLite connection, by SQL text; they live as long as it does. */
const sqliteStatements = new WeakMap<object, Map<string, SqliteStatement>>();

/**
 * Runs a read on one of Knex's pooled connections as a prepared statement, for the hottest
 * reads (get by id spent a fifth of its time compiling and preparing SQL). SQLite: the
 * statement is prepared once per connection and reused. MySQL/MariaDB: mysql2's `execute`,
 * which prepares on the server once per connection and then sends only the bindings.
 * Knex still owns the pool, so transactions, timeouts and broken connections behave as for
 * any other query. `sql` must be a constant: it is the cache key.
 */
export async function preparedRead<T>(db: Db, sql: string, bindings: unknown[]): Promise<T[]> {
  const connection: unknown = await db.client.acquireConnection();
  try {
    if (engineOf(db) === 'sqlite') return statementOf(connection as SqliteConnection, sql).all(bindings) as T[];
    return await new Promise<T[]>((resolve, reject) => {
      (connection as MysqlConnection).execute(sql, bindings, (err, rows) => (err ? reject(err) : resolve(rows as T[])));
    });
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/** The statement of `sql` on this SQLite connection, prepared once: it lives as long as the connection. */
function statementOf(conn: SqliteConnection, sql: string): SqliteStatement {
  let statements = sqliteStatements.get(conn);
  if (!statements) {
    statements = new Map();
    sqliteStatements.set(conn, statements);
  }
  let statement = statements.get(sql);
  if (!statement) {
    statement = conn.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
}

/** A binding as Knex hands it to better-sqlite3: a date as its milliseconds, a boolean as 0 or 1. */
const sqliteValue = (value: unknown) =>
  value instanceof Date ? value.valueOf() : typeof value === 'boolean' ? Number(value) : value;

/**
 * SQLite only: one single-row statement, prepared once per connection, run for each row of
 * `rows` on the transaction's connection, all or none (a savepoint inside the transaction). A
 * multi-row INSERT is a new SQL text for every number of rows, so SQLite parsed and planned each
 * one again: on the click path (a few dozen rows a flush) that cost more than the rows' writes.
 * `sql` must be a constant of the caller: it is the cache key.
 */
export async function preparedRuns(trx: Trx, sql: string, rows: readonly unknown[][]): Promise<void> {
  const conn = (await trx.client.acquireConnection()) as SqliteConnection;
  try {
    const statement = statementOf(conn, sql);
    conn.transaction(() => {
      for (const bindings of rows) statement.run(bindings.map(sqliteValue));
    })();
  } finally {
    await trx.client.releaseConnection(conn);
  }
}
