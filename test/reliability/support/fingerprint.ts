import type { Db } from '../../../server/db/knex.js';

/**
 * What a refused request must not change: the row count of every table (tables added later are
 * found by listing them), the latest `updated_at` where a table has one, and the counters the
 * limits rest on. `api_keys.last_used_at` is left out: an authenticated request may note it.
 */
export interface Fingerprinter {
  take(): Promise<string>;
}

async function listTables(db: Db): Promise<string[]> {
  const client = db.client.config.client;
  const names: string[] =
    client === 'mysql2'
      ? ((await db.raw('SHOW TABLES')) as [Record<string, string>[]])[0].map((row) => Object.values(row)[0] ?? '')
      : (
          await db.raw<{ name: string }[]>(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
          )
        ).map((row) => row.name);
  return names.filter((name) => !name.startsWith('knex_migrations')).sort();
}

export async function fingerprinter(db: Db): Promise<Fingerprinter> {
  const tables = await listTables(db);
  const withUpdatedAt: string[] = [];
  for (const table of tables) {
    if (await db.schema.hasColumn(table, 'updated_at')) withUpdatedAt.push(table);
  }
  return {
    async take() {
      const parts: string[] = [];
      for (const table of tables) {
        const row = (await db(table).count({ n: '*' }).first()) as { n: number | string } | undefined;
        parts.push(`${table}:${Number(row?.n ?? 0)}`);
      }
      for (const table of withUpdatedAt) {
        const row = (await db(table).max({ at: 'updated_at' }).first()) as { at: unknown } | undefined;
        parts.push(`${table}.updated_at:${row?.at instanceof Date ? row.at.toISOString() : String(row?.at ?? '')}`);
      }
      const usage = (await db('monthly_usage').sum({ n: 'conversions' }).first()) as { n: unknown } | undefined;
      const slots = (await db('campaigns').sum({ n: 'affiliate_count' }).first()) as { n: unknown } | undefined;
      parts.push(`usage:${Number(usage?.n ?? 0)}`, `slots:${Number(slots?.n ?? 0)}`);
      return parts.join(' ');
    },
  };
}
