import type { Knex } from 'knex';
import { engineOf, type Trx } from './knex.js';

/** Rows per statement: 500 rows of up to 12 columns stay within both engines' bound-parameter limits. */
export const INSERT_CHUNK_ROWS = 500;

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
 * Multi-row INSERT written by hand, INSERT_CHUNK_ROWS rows a statement: at 500 rows Knex's
 * builder (quoting every column of every row) costs about as much CPU as the statement itself.
 * `table` and `columns` are constants of the caller, never input; values are bound.
 */
export async function insertRows<R, C extends keyof R & string>(
  trx: Trx,
  table: string,
  columns: readonly C[],
  rows: readonly R[],
  onConflict?: OnConflict,
): Promise<void> {
  const { verb, tail } = conflictClauses(engineOf(trx) === 'mysql', onConflict);
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const head = `${verb} INTO ${table} (${columns.join(', ')}) VALUES `;
  for (let start = 0; start < rows.length; start += INSERT_CHUNK_ROWS) {
    const part = rows.slice(start, start + INSERT_CHUNK_ROWS);
    const bindings: unknown[] = [];
    for (const row of part) for (const column of columns) bindings.push(row[column]);
    await trx.raw(`${head}${part.map(() => tuple).join(', ')}${tail}`, bindings as Knex.RawBinding[]);
  }
}
