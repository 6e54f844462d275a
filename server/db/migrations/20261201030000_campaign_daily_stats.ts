import type { Knex } from 'knex';

/**
 * The campaign's counters per UTC day, beside the affiliates' (`affiliate_daily_stats`), for the
 * dashboard's overview (docs/dashboard.md): two months of a campaign read about 60 rows a shard
 * instead of one per affiliate and day (at 100,000 affiliates, up to millions).
 *
 * - The same `day` text and `shard` as `affiliate_daily_stats`: the intake adds to both in one
 *   transaction, each daemon to its own shard (docs/scaling.md, "Hot rows"). A day is the sum of
 *   its shards.
 * - Counters are signed: deleting an affiliate takes its days back out, in the deleting daemon's
 *   shard, so a day's sum stays that of the affiliates the campaign still has.
 *
 * An expand step: the new table is filled from the affiliates' counters at once. What daemons of
 * the previous release store or delete after the fill is added by the contract step,
 * 20261201030100_campaign_daily_stats_reconciled (`affiliated db migrate --contract`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('campaign_daily_stats', (t) => {
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.string('day', 10).notNullable();
    t.integer('shard').unsigned().notNullable();
    t.bigInteger('page_views').notNullable().defaultTo(0);
    t.bigInteger('leads').notNullable().defaultTo(0);
    t.bigInteger('conversions').notNullable().defaultTo(0);
    t.bigInteger('revenue_cents').notNullable().defaultTo(0);
    t.bigInteger('commission_cents').notNullable().defaultTo(0);
    t.primary(['campaign_id', 'day', 'shard']);
  });
  const counters = ['page_views', 'leads', 'conversions', 'revenue_cents', 'commission_cents'];
  await knex.raw(
    `INSERT INTO campaign_daily_stats (campaign_id, day, shard, ${counters.join(', ')})
     SELECT campaign_id, day, shard, ${counters.map((c) => `SUM(${c})`).join(', ')} FROM affiliate_daily_stats
     GROUP BY campaign_id, day, shard`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('campaign_daily_stats');
}
