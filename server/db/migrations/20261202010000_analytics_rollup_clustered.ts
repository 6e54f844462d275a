import type { Knex } from 'knex';

/** The rollup's columns, as 20261129200200_analytics_rollups made them (knex's SQLite DDL). */
const COLUMNS = `\`campaign_id\` integer not null, \`hour\` integer not null, \`affiliate_id\` integer not null,
  \`dims\` varchar(16) not null, \`shard\` integer not null, \`device\` varchar(16) not null,
  \`country\` varchar(2) not null, \`referrer\` varchar(255) not null, \`utm_source\` varchar(255) not null,
  \`clicks\` integer not null default '0', \`bot_clicks\` integer not null default '0',
  \`page_views\` integer not null default '0', \`leads\` integer not null default '0',
  \`conversions\` integer not null default '0', \`revenue_cents\` bigint not null default '0',
  \`commission_cents\` bigint not null default '0',
  foreign key(\`campaign_id\`) references \`campaigns\`(\`id\`) on delete CASCADE,
  foreign key(\`affiliate_id\`) references \`affiliates\`(\`id\`) on delete CASCADE,
  primary key (\`campaign_id\`, \`hour\`, \`affiliate_id\`, \`dims\`, \`shard\`)`;
/** The same columns, in the same order, copied as they are. */
const NAMES =
  'campaign_id, hour, affiliate_id, dims, shard, device, country, referrer, utm_source, ' +
  'clicks, bot_clicks, page_views, leads, conversions, revenue_cents, commission_cents';

/**
 * Rebuilds `analytics_hourly` on SQLite as a copy of itself with `suffix` after its DDL: every
 * row copied as it is, the old table dropped, the copy renamed, its affiliate index made again.
 * Nothing references the rollup, so dropping it cascades nowhere.
 */
async function rebuild(knex: Knex, suffix: string): Promise<void> {
  await knex.raw(`CREATE TABLE \`analytics_hourly_rebuilt\` (${COLUMNS})${suffix}`);
  await knex.raw(`INSERT INTO analytics_hourly_rebuilt (${NAMES}) SELECT ${NAMES} FROM analytics_hourly`);
  await knex.raw('DROP TABLE analytics_hourly');
  await knex.raw('ALTER TABLE analytics_hourly_rebuilt RENAME TO analytics_hourly');
  await knex.raw('CREATE INDEX `analytics_hourly_affiliate_id_index` on `analytics_hourly` (`affiliate_id`)');
}

/**
 * The analytics rollup stored in its primary key's order on SQLite (docs/analytics.md, "How a
 * series is read"): as a `WITHOUT ROWID` table, the key (campaign_id, hour, affiliate_id, dims,
 * shard) is the table, so a series' range scan reads each row where the key finds it, instead of
 * a key lookup then a second lookup of the row by rowid. The upsert's conflict target is that
 * key, unchanged. MariaDB is left alone: InnoDB already keeps rows in primary key order.
 *
 * An expand step: the same columns, key and index, so the previous release works on the result.
 * It copies the table once (docs/operations.md, "Upgrades"): SQLite runs one daemon per file,
 * so this is part of a stop-start upgrade, and the start that applies it takes as long as the
 * copy (155,000 rows: 0.25 to 1.9 s on 2 cores shared at load 10) and the file needs room for a
 * second copy meanwhile.
 */
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') return;
  await rebuild(knex, ' WITHOUT ROWID');
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') return;
  await rebuild(knex, '');
}
