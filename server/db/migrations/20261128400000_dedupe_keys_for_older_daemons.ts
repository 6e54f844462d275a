import type { Knex } from 'knex';

/**
 * An expand step (docs/operations.md, "Upgrades"): daemons of a release from before
 * 20261127110000 insert events without `event_key` and `order_key`, and the unique indexes hold
 * only those keys now, so on their own their rows would be deduped by nothing. On MySQL/MariaDB,
 * where several daemons share a database and a rolling upgrade runs old and new side by side, a
 * trigger gives such a row the keys intake would have: `=` and the id, or `#` and a UUID (no
 * intake filler lacks its `.`, no migrated row's `#` is followed by anything but digits). The
 * unique index then decides, and an old daemon's INSERT IGNORE drops a duplicate as it always did.
 * Galera applies replicated rows without firing triggers: each row is keyed once, on its node.
 *
 * Rows an old daemon wrote while 20261127110000 ran (after its backfill passed them) are keyed
 * here too, in chunks; one whose key another row already holds keeps its NULL (UPDATE IGNORE):
 * it is a duplicate the old index could no longer refuse, left as written rather than deleted.
 *
 * A SQLite file serves one daemon at a time (server/db/daemonLock.ts), so an older daemon never
 * writes beside a newer one there: only the backfill runs. The contract step
 * 20261128400100_dedupe_key_trigger_dropped removes the trigger.
 */
export const TRIGGER = 'tracking_events_dedupe_keys';
const CHUNK = 10_000;

const isMysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function createKeyTrigger(knex: Knex): Promise<void> {
  const keyed = (key: string, id: string) =>
    `NEW.${key} = COALESCE(NEW.${key}, IF(NEW.${id} IS NULL, CONCAT('#', UUID()), CONCAT('=', NEW.${id})))`;
  await knex.raw(
    `CREATE TRIGGER ${TRIGGER} BEFORE INSERT ON tracking_events FOR EACH ROW SET ${keyed('event_key', 'event_id')}, ${keyed('order_key', 'order_id')}`,
  );
}

export async function up(knex: Knex): Promise<void> {
  const mysql = isMysql(knex);
  if (mysql) await createKeyTrigger(knex);
  const concat = (a: string, b: string) => (mysql ? `CONCAT(${a}, ${b})` : `${a} || ${b}`);
  const update = mysql ? 'UPDATE IGNORE' : 'UPDATE OR IGNORE';
  for (const [key, id] of [
    ['event_key', 'event_id'],
    ['order_key', 'order_id'],
  ] as const) {
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
  if (isMysql(knex)) await knex.raw(`DROP TRIGGER IF EXISTS ${TRIGGER}`);
}
