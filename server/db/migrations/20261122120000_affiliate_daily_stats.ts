import type { Knex } from 'knex';

/**
 * Counters behind `GET /v1/reports/affiliates`: one row per affiliate and UTC day on which it had
 * activity, incremented inside the intake transaction. A report reads one row per affiliate-day
 * of its range instead of every event (at 1,000 affiliates, 30 days: at most 30,000 rows,
 * whatever the number of events).
 *
 * - `day` is `YYYY-MM-DD` (UTC) of the event's `occurred_at`, as text, so both engines compare
 *   and group it the same way.
 * - The primary key leads with (campaign_id, day): a report is one range scan of it.
 * - Rows cascade from their campaign and affiliate (spec §4.5.1).
 *
 * Existing events are counted in once here (the backfill), so a database migrated with data
 * reports its history. Stop the daemons while this runs: events stored by an older daemon after
 * the backfill would not be counted.
 */
export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';

  await knex.schema.createTable('affiliate_daily_stats', (t) => {
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.string('day', 10).notNullable();
    t.integer('affiliate_id').unsigned().notNullable().references('id').inTable('affiliates').onDelete('CASCADE');
    t.integer('page_views').unsigned().notNullable().defaultTo(0);
    t.integer('leads').unsigned().notNullable().defaultTo(0);
    t.integer('conversions').unsigned().notNullable().defaultTo(0);
    t.bigInteger('revenue_cents').notNullable().defaultTo(0);
    t.bigInteger('commission_cents').notNullable().defaultTo(0);
    t.primary(['campaign_id', 'day', 'affiliate_id']);
    t.index(['affiliate_id']);
  });

  // Intake finds a request's conversions by their tracking event. MySQL already indexes the
  // foreign key; SQLite does not, and without it every lookup (and every cascade from a
  // deleted event) reads the whole conversions table.
  if (!mysql) {
    await knex.schema.alterTable('conversions', (t) => {
      t.index(['tracking_event_id'], 'conversions_tracking_event_id_index');
    });
  }

  const day = mysql
    ? "DATE_FORMAT(e.occurred_at, '%Y-%m-%d')"
    : "strftime('%Y-%m-%d', e.occurred_at / 1000, 'unixepoch')";
  await knex.raw(`
    INSERT INTO affiliate_daily_stats
      (campaign_id, day, affiliate_id, page_views, leads, conversions, revenue_cents, commission_cents)
    SELECT e.campaign_id, ${day}, e.affiliate_id,
      SUM(CASE WHEN e.event_type = 'page_view' THEN 1 ELSE 0 END),
      SUM(CASE WHEN e.event_type = 'lead' THEN 1 ELSE 0 END),
      COUNT(c.id),
      COALESCE(SUM(c.order_value_cents), 0),
      COALESCE(SUM(c.commission_cents), 0)
    FROM tracking_events e
    LEFT JOIN conversions c ON c.tracking_event_id = e.id
    GROUP BY e.campaign_id, ${day}, e.affiliate_id`);
}

export async function down(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  await knex.schema.dropTableIfExists('affiliate_daily_stats');
  if (!mysql) {
    await knex.schema.alterTable('conversions', (t) => {
      t.dropIndex(['tracking_event_id'], 'conversions_tracking_event_id_index');
    });
  }
}
