/** What the cache needs of a better-sqlite3 connection. */
interface Preparing {
  prepare(sql: string): unknown;
}

/**
 * Statements kept per connection. The texts that repeat are the hot paths' (a payout's
 * transition, a delivery's claim, an intake flush's statements); lists of changing length
 * make new texts, and the least recently used go first.
 */
const KEPT = 1_000;

/**
 * Makes `conn.prepare` answer the statement already prepared for the same SQL text. Knex's
 * better-sqlite3 client prepares every query it runs, and SQLite's parsing and planning took
 * as long as running the statements (a payout run's profile: `prepare` beside `_query`).
 * A kept statement is reused only by one query at a time: the daemon's pool holds one
 * connection, and Knex runs `all` or `run` to the end before the next query. SQLite prepares
 * a kept statement again by itself when the schema changes (a migration).
 */
export function keepStatements(conn: Preparing): void {
  const prepare = conn.prepare.bind(conn);
  const kept = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    let statement = kept.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      if (kept.size >= KEPT) kept.delete(kept.keys().next().value as string);
    } else {
      // Most recently used last: the first key is the one to let go.
      kept.delete(sql);
    }
    kept.set(sql, statement);
    return statement;
  };
}
