import type { Db } from '../../../server/db/knex.js';

/**
 * What a refused request must not change: the row count of every table (tables added later are
 * found by listing them), the latest `updated_at` where a table has one, and the counters the
 * limits rest on. `api_keys.last_used_at` is left out: an authenticated request may note it.
 * So is `webhook_settings`: it holds the installation's encryption key for webhook secrets,
 * generated on first use by design (the first webhook request makes it, even a refused one);
 * it is no data of any request. And so is what the webhook worker writes in the background
 * whatever request is in flight: the deliveries it fans recorded messages out to, and their
 * attempts. The messages are counted: requests record them (a test message with its delivery).
 */
const NOT_REQUEST_DATA = new Set(['webhook_settings', 'webhook_attempts', 'webhook_deliveries']);
const UPDATED_BY_WORKER = new Set<string>();

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
  return names.filter((name) => !name.startsWith('knex_migrations') && !NOT_REQUEST_DATA.has(name)).sort();
}

export async function fingerprinter(db: Db): Promise<Fingerprinter> {
  const tables = await listTables(db);
  const withUpdatedAt: string[] = [];
  for (const table of tables) {
    if (!UPDATED_BY_WORKER.has(table) && (await db.schema.hasColumn(table, 'updated_at'))) withUpdatedAt.push(table);
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
      const base = (await db('campaigns').sum({ n: 'affiliate_count' }).first()) as { n: unknown } | undefined;
      const shards = (await db('affiliate_count_shards').sum({ n: 'affiliates' }).first()) as
        { n: unknown } | undefined;
      parts.push(`usage:${Number(usage?.n ?? 0)}`, `slots:${Number(base?.n ?? 0) + Number(shards?.n ?? 0)}`);
      return parts.join(' ');
    },
  };
}

/** The parts of two fingerprints that differ, as `before → after`. */
export function changes(before: string, after: string): string[] {
  const was = before.split(' ');
  return after
    .split(' ')
    .map((part, i) => (part === was[i] ? '' : `${was[i]} → ${part}`))
    .filter((change) => change !== '');
}
