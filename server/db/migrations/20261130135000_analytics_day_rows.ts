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
/** Where day rows begin in `hour` (server/repositories/analytics.ts), as this migration wrote them. */
const DAY_ROWS = 1_000_000_000;

/**
 * Day rows in the analytics rollup (docs/analytics.md, "The rollups"): beside each hour's row, a
 * row per UTC day at `hour = 1,000,000,000 + day` (whole days since 1970-01-01), incremented by
 * the same upsert. A series by day or month reads a day's row where a point holds most of that
 * UTC day and only the hours across a point's edge: a month by day in UTC reads 31 rows an
 * affiliate instead of 744.
 *
 * An expand step, no new column: the day rows are filled from the hour rows at once (both are
 * written by one statement from here on, so the fill and the upkeep never count a row twice).
 */
export async function up(knex: Knex): Promise<void> {
  // The floor of hour / 24, negative hours included, on both engines.
  const day =
    knex.client.config.client === 'mysql2'
      ? 'FLOOR(hour / 24)'
      : 'CASE WHEN hour >= 0 THEN hour / 24 ELSE (hour - 23) / 24 END';
  const sums = COUNTERS.map((c) => `SUM(${c})`).join(', ');
  await knex.raw(
    `INSERT INTO analytics_hourly (${[...KEPT, 'hour', ...COUNTERS].join(', ')})
     SELECT ${KEPT.join(', ')}, ${DAY_ROWS} + ${day}, ${sums} FROM analytics_hourly WHERE hour < ${DAY_ROWS}
     GROUP BY campaign_id, ${day}, affiliate_id, dims, shard, device, country, referrer, utm_source`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex('analytics_hourly').where('hour', '>=', DAY_ROWS).delete();
}
