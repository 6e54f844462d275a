import type { Db } from './knex.js';
import { engineOf } from './knex.js';

interface SqliteStatement {
  all(bindings: unknown[]): unknown[];
}
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
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
    if (engineOf(db) === 'sqlite') {
      const conn = connection as SqliteConnection;
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
      return statement.all(bindings) as T[];
    }
    return await new Promise<T[]>((resolve, reject) => {
      (connection as MysqlConnection).execute(sql, bindings, (err, rows) => (err ? reject(err) : resolve(rows as T[])));
    });
  } finally {
    await db.client.releaseConnection(connection);
  }
}
