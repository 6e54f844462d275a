import type { Knex } from 'knex';

/**
 * Pages of a list (spec §10.2): newest first, `created_at` descending and then `id`, so rows
 * made in the same millisecond keep one order; `alias` is the table's prefix in a join (`c.`).
 */
export function newestFirstPage(query: Knex.QueryBuilder, alias: string, page: { page: number; limit: number }) {
  return query
    .orderBy([
      { column: `${alias}created_at`, order: 'desc' },
      { column: `${alias}id`, order: 'desc' },
    ])
    .limit(page.limit)
    .offset((page.page - 1) * page.limit);
}

/** How many rows the (filtered) query holds in all: a list's `total`. */
export async function countRows(query: Knex.QueryBuilder): Promise<number> {
  const [row] = await query.count<{ n: number | string }[]>({ n: '*' });
  return Number(row?.n ?? 0);
}
