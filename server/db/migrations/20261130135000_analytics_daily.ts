import type { Knex } from 'knex';

const COUNTERS = [
  'clicks',
  'bot_clicks',
  'page_views',
  'leads',
  'conversions',
  'revenue_cents',
  'commission_cents',
] as const;
const KEPT = ['campaign_id', 'affiliate_id', 'dims', 'shard', 'device', 'country', 'referrer', 'utm_source'] as const;

/**
 * The daily rollup beside the hourly one (docs/analytics.md): the same rows with `day` (whole UTC
 * days since 1970-01-01, the hour's floor by 24) for `hour`, incremented in the same statements'
 * transaction. A series by day or month reads a day's row where the zone's buckets hold most of
 * that UTC day, and moves only the hours on the other side of a bucket's edge from the hourly
 * rollup: a month by day in UTC reads 31 rows an affiliate instead of 744.
 *
 * An expand step: a new table, filled from the hourly rollup at once (both are written in one
 * transaction from here on, so the fill and the upkeep never count a row twice).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('analytics_daily', (t) => {
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    // Signed, as the hourly rollup's hour.
    t.integer('day').notNullable();
    t.integer('affiliate_id').unsigned().notNullable().references('id').inTable('affiliates').onDelete('CASCADE');
    t.string('dims', 16).notNullable();
    t.integer('shard').unsigned().notNullable();
    t.string('device', 16).notNullable();
    t.string('country', 2).notNullable();
    t.string('referrer', 255).notNullable();
    t.string('utm_source', 255).notNullable();
    t.integer('clicks').unsigned().notNullable().defaultTo(0);
    t.integer('bot_clicks').unsigned().notNullable().defaultTo(0);
    t.integer('page_views').unsigned().notNullable().defaultTo(0);
    t.integer('leads').unsigned().notNullable().defaultTo(0);
    t.integer('conversions').unsigned().notNullable().defaultTo(0);
    t.bigInteger('revenue_cents').notNullable().defaultTo(0);
    t.bigInteger('commission_cents').notNullable().defaultTo(0);
    t.primary(['campaign_id', 'day', 'affiliate_id', 'dims', 'shard']);
    t.index(['affiliate_id']);
  });
  // The floor of hour / 24, negative hours included, on both engines.
  const day =
    knex.client.config.client === 'mysql2'
      ? 'FLOOR(hour / 24)'
      : 'CASE WHEN hour >= 0 THEN hour / 24 ELSE (hour - 23) / 24 END';
  const sums = COUNTERS.map((c) => `SUM(${c})`).join(', ');
  await knex.raw(
    `INSERT INTO analytics_daily (${[...KEPT, 'day', ...COUNTERS].join(', ')})
     SELECT ${KEPT.join(', ')}, ${day}, ${sums} FROM analytics_hourly
     GROUP BY campaign_id, ${day}, affiliate_id, dims, shard, device, country, referrer, utm_source`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('analytics_daily');
}
