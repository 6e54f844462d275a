import { loadConfig } from '../server/config.js';
import { createDb, type Db } from '../server/db/knex.js';

/**
 * Operator commands act on the database directly, with the daemon's `DATABASE_URL`.
 * Pending migrations run first (as the daemon does), so a fresh install needs no extra step.
 */
export async function withDatabase<T>(
  work: (db: Db) => Promise<T>,
  options: { migrate?: boolean } = {},
): Promise<T> {
  const config = loadConfig();
  const db = createDb(config.database);
  try {
    if (options.migrate !== false) await db.migrate.latest();
    return await work(db);
  } finally {
    await db.destroy();
  }
}
