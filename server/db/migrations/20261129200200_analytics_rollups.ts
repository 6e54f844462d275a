import type { Knex } from 'knex';

/**
 * The analytics rollup (docs/analytics.md): per campaign, UTC hour, affiliate and a click's
 * dimensions, the counts and money of what was stored, incremented in the transaction that stores
 * it (intake's flush, the click writer's flush), so sums are exact.
 *
 * - `hour` is whole hours since 1970-01-01T00:00Z: a day or month in any time zone whose offset
 *   is whole hours is a range of them.
 * - `dims` is a digest of (device, country, referrer, utm_source); the values sit beside it for
 *   grouping. Page views, leads and sales carry none (empty text).
 * - `shard` is the writing daemon's counter shard, as in `affiliate_daily_stats`: two daemons
 *   never increment one row (docs/scaling.md, "Hot rows").
 *
 * An expand step: a new table. Counting starts with this release; the per-affiliate report keeps
 * the history before it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('analytics_hourly', (t) => {
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    // Signed: an event's timestamp may be as early as year 1000 (hour -8,502,840).
    t.integer('hour').notNullable();
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
    t.primary(['campaign_id', 'hour', 'affiliate_id', 'dims', 'shard']);
    t.index(['affiliate_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('analytics_hourly');
}
