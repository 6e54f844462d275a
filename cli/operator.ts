import { loadConfig } from '../server/config.js';
import { createDb, type Db } from '../server/db/knex.js';
import type { Services } from '../server/services/index.js';

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

/** The daemon's own services over that database, so operator commands apply the same rules. */
export async function withServices<T>(work: (services: Services) => Promise<T>): Promise<T> {
  const [{ createServices }, { createLogger }] = await Promise.all([
    import('../server/services/index.js'),
    import('../server/logger.js'),
  ]);
  return withDatabase((db) => work(createServices({ db, config: loadConfig(), logger: createLogger('silent') })));
}
