import type { Knex } from 'knex';
import { engineOf, type Trx } from './knex.js';
import { preparedRuns } from './prepared.js';

/**
 * Statements over many rows or values, for every repository: multi-row inserts, and reads or
 * writes whose `IN (...)` list could be long, cut into statements both engines accept.
 */

/**
 * Values per `IN (...)` list and rows per multi-row INSERT: 500 rows of up to 13 columns stay far
 * below both engines' bound-parameter limits (32,766 on SQLite, 65,535 on MySQL).
 */
const CHUNK = 500;

/** `items` in consecutive slices of at most `size`. */
export function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/** A statement with an `IN (...)` list of `values`, once per CHUNK of them; the answers in order. */
export async function inChunks<V, R>(values: readonly V[], query: (part: V[]) => Promise<readonly R[]>): Promise<R[]> {
  const found: R[] = [];
  for (const part of chunks(values)) found.push(...(await query(part)));
  return found;
}

/** What a row that hits a unique key does: nothing (kept out), or add its counters to the stored row's. */
export type OnConflict = { ignore: true } | { key: readonly string[]; increment: readonly string[] };

function conflictClauses(mysql: boolean, onConflict: OnConflict | undefined): { verb: string; tail: string } {
  if (!onConflict) return { verb: 'INSERT', tail: '' };
  if ('ignore' in onConflict) {
    return mysql ? { verb: 'INSERT IGNORE', tail: '' } : { verb: 'INSERT', tail: ' ON CONFLICT DO NOTHING' };
  }
  const add = onConflict.increment.map((c) => (mysql ? `${c} = ${c} + VALUES(${c})` : `${c} = ${c} + excluded.${c}`));
  return mysql
    ? { verb: 'INSERT', tail: ` ON DUPLICATE KEY UPDATE ${add.join(', ')}` }
    : { verb: 'INSERT', tail: ` ON CONFLICT (${onConflict.key.join(', ')}) DO UPDATE SET ${add.join(', ')}` };
}

/**
 * Multi-row INSERT written by hand, CHUNK rows a statement: at 500 rows Knex's builder (quoting
 * every column of every row) costs about as much CPU as the statement itself. On SQLite, one
 * prepared single-row statement run for each row instead (preparedRuns: SQLite runs in this
 * process, so a row costs no round trip, and the statement is parsed once a connection). `table`
 * and `columns` are constants of the caller, never input; values are bound.
 */
export async function insertRows<R, C extends keyof R & string>(
  trx: Trx,
  table: string,
  columns: readonly C[],
  rows: readonly R[],
  onConflict?: OnConflict,
): Promise<void> {
  const mysql = engineOf(trx) === 'mysql';
  const { verb, tail } = conflictClauses(mysql, onConflict);
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const head = `${verb} INTO ${table} (${columns.join(', ')}) VALUES `;
  for (const part of chunks(rows)) {
    if (!mysql) {
      await preparedRuns(
        trx,
        `${head}${tuple}${tail}`,
        part.map((row) => columns.map((column) => row[column])),
      );
      continue;
    }
    const bindings: unknown[] = [];
    for (const row of part) for (const column of columns) bindings.push(row[column]);
    await trx.raw(`${head}${part.map(() => tuple).join(', ')}${tail}`, bindings as Knex.RawBinding[]);
  }
}
