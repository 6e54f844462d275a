import type { Db } from '../db/knex.js';

/** One round trip to the database; throws when it cannot answer. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.raw('select 1');
}
