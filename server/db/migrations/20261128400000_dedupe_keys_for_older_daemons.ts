import type { Knex } from 'knex';

/**
 * An expand step (docs/operations.md, "Upgrades"): daemons of a release from before
 * 20261127110000 insert events without `event_key` and `order_key`, and the unique indexes hold
 * only those keys now, so on their own their rows would be deduped by nothing. On MySQL/MariaDB,
 * where several daemons share a database and a rolling upgrade runs old and new side by side, the
 * key columns get a default expression giving such a row the keys intake would have: `=` and the
 * id, or `#` and a UUID (no intake filler lacks its `.`, no migrated row's `#` is followed by
 * anything but digits). The unique index then decides, and an old daemon's INSERT IGNORE drops a
 * duplicate as it always did. A default (not a trigger) goes with its column if 20261127110000
 * is undone, needs no privilege beyond ALTER, and Galera replicates the row as it was keyed.
 *
 * Rows an old daemon wrote while 20261127110000 ran (after its backfill passed them) are keyed
 * here too, in chunks; one whose key another row already holds keeps its NULL (UPDATE IGNORE):
 * it is a duplicate the old index could no longer refuse, left as written rather than deleted.
 *
 * A SQLite file serves one daemon at a time (server/db/daemonLock.ts), so an older daemon never
 * writes beside a newer one there: only the backfill runs. The contract step
 * 20261128400100_dedupe_key_defaults_dropped removes the defaults.
 */
const CHUNK = 10_000;
const KEYS = [
  ['event_key', 'event_id'],
  ['order_key', 'order_id'],
] as const;

const isMysql = (knex: Knex) => knex.client.config.client === 'mysql2';

/** The key columns' defaults on MySQL/MariaDB: set, or (`keyed` false) back to NULL. */
export async function keyDefaults(knex: Knex, keyed: boolean): Promise<void> {
  const change = KEYS.map(([key, id]) =>
    keyed
      ? `ALTER COLUMN ${key} SET DEFAULT (IF(${id} IS NULL, CONCAT('#', UUID()), CONCAT('=', ${id})))`
      : `ALTER COLUMN ${key} DROP DEFAULT`,
  );
  await knex.raw(`ALTER TABLE tracking_events ${change.join(', ')}`);
}

export async function up(knex: Knex): Promise<void> {
  const mysql = isMysql(knex);
  if (mysql) await keyDefaults(knex, true);
  const concat = (a: string, b: string) => (mysql ? `CONCAT(${a}, ${b})` : `${a} || ${b}`);
  const update = mysql ? 'UPDATE IGNORE' : 'UPDATE OR IGNORE';
  for (const [key, id] of KEYS) {
    const value = `CASE WHEN ${id} IS NULL THEN ${concat("'#'", 'id')} ELSE ${concat("'='", id)} END`;
    const last = await knex('tracking_events').whereNull(key).max<{ n: number | string | null }[]>({ n: 'id' });
    for (let from = 0; from < Number(last[0]?.n ?? 0); from += CHUNK) {
      await knex.raw(`${update} tracking_events SET ${key} = ${value} WHERE ${key} IS NULL AND id > ? AND id <= ?`, [
        from,
        from + CHUNK,
      ]);
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  if (isMysql(knex)) await keyDefaults(knex, false);
}
