import type { Knex } from 'knex';
import { noPadBinaryCollation } from './20261122140000_byte_exact_dedupe_keys.js';

/**
 * The events table's dedupe keys never hold NULL (docs/scaling.md, "Hot rows"). Galera certifies
 * a row's unique-index values and treats NULL as one value: every page view (no event_id, no
 * order_id) of a campaign committed through one node conflicted with those committed through
 * another at the same moment, although the index accepts both.
 *
 * `event_key` and `order_key` take the unique indexes: `=` and the id when the event has it,
 * otherwise `#` and a value no other row holds (here the row's id; intake writes one of its own,
 * repositories/events.ts). The `=` keeps every id apart from every filler, byte for byte (the
 * same NO PAD binary collation as the ids). event_id and order_id keep their values, unindexed.
 * Existing rows are keyed in chunks, so no statement writes the whole table at once. Stop older
 * daemons first (README, "Running on MySQL / MariaDB"): they would store events without keys,
 * which no unique index then dedupes.
 */
const KEYS = [
  { key: 'event_key', id: 'event_id', length: 129 },
  { key: 'order_key', id: 'order_id', length: 256 },
] as const;
const CHUNK = 10_000;

const isMysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function up(knex: Knex): Promise<void> {
  const mysql = isMysql(knex);
  const collation = mysql ? await noPadBinaryCollation(knex) : undefined;
  await knex.schema.alterTable('tracking_events', (t) => {
    for (const { key, length } of KEYS) {
      const column = t.string(key, length).nullable();
      if (collation) column.collate(collation);
    }
  });
  const concat = (a: string, b: string) => (mysql ? `CONCAT(${a}, ${b})` : `${a} || ${b}`);
  const keyed = KEYS.map(
    ({ key, id }) => `${key} = CASE WHEN ${id} IS NULL THEN ${concat("'#'", 'id')} ELSE ${concat("'='", id)} END`,
  );
  const last = await knex('tracking_events').max<{ n: number | string | null }[]>({ n: 'id' });
  for (let from = 0; from < Number(last[0]?.n ?? 0); from += CHUNK) {
    await knex.raw(`UPDATE tracking_events SET ${keyed.join(', ')} WHERE id > ? AND id <= ?`, [from, from + CHUNK]);
  }
  // The new unique indexes first: on MySQL an index leading with campaign_id must back its foreign key throughout.
  await knex.schema.alterTable('tracking_events', (t) => {
    for (const { key } of KEYS) t.unique(['campaign_id', key]);
  });
  await knex.schema.alterTable('tracking_events', (t) => {
    for (const { id } of KEYS) t.dropUnique(['campaign_id', id]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tracking_events', (t) => {
    for (const { id } of KEYS) t.unique(['campaign_id', id]);
  });
  await knex.schema.alterTable('tracking_events', (t) => {
    for (const { key } of KEYS) t.dropUnique(['campaign_id', key]);
  });
  await knex.schema.alterTable('tracking_events', (t) => {
    for (const { key } of KEYS) t.dropColumn(key);
  });
}
