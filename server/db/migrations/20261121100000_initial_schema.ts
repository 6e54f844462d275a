import type { Knex } from 'knex';

/**
 * The whole schema of spec §11 on both engines.
 *
 * - Money is integer centavos (`*_cents`): exact sums on SQLite and MySQL alike.
 * - Case-insensitive uniqueness (e-mail per campaign, referral code globally) rests on
 *   normalised key columns with unique indexes, not on engine collations, so both engines agree.
 * - Dedupe keys (`order_id`, `event_id`) are compared byte for byte (utf8mb4_bin on MySQL,
 *   SQLite's default BINARY), again so both engines agree.
 * - Every child row cascades from its affiliate and campaign (spec §4.5.1).
 * - Timestamps are written by the application, never by column defaults, so both engines store
 *   the same representation.
 */

const BUILT_IN_PLANS = [
  { name: 'free', max_affiliates: 10, max_monthly_conversions: 100 },
  { name: 'starter', max_affiliates: 100, max_monthly_conversions: 1_000 },
  { name: 'pro', max_affiliates: 1_000, max_monthly_conversions: 10_000 },
  { name: 'unlimited', max_affiliates: null, max_monthly_conversions: null },
];

export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  const binary = (column: Knex.ColumnBuilder) => (mysql ? column.collate('utf8mb4_bin') : column);
  const datetime = (table: Knex.CreateTableBuilder, name: string) =>
    table.datetime(name, { precision: 3, useTz: false });

  await knex.schema.createTable('plans', (t) => {
    t.increments('id');
    t.string('name', 64).notNullable().unique();
    t.integer('max_affiliates').unsigned().nullable();
    t.integer('max_monthly_conversions').unsigned().nullable();
    datetime(t, 'created_at').notNullable();
  });

  await knex.schema.createTable('campaigns', (t) => {
    t.increments('id');
    t.string('public_id', 64).notNullable().unique();
    t.string('name', 200).notNullable();
    t.integer('plan_id').unsigned().notNullable().references('id').inTable('plans').onDelete('RESTRICT');
    // percent: hundredths of a percent (10% = 1000); fixed: centavos.
    t.string('commission_type', 16).notNullable();
    t.integer('commission_value').unsigned().notNullable();
    t.integer('cookie_days').unsigned().notNullable();
    // Live count for the plan's affiliate limit, changed only by conditional updates.
    t.integer('affiliate_count').unsigned().notNullable().defaultTo(0);
    datetime(t, 'created_at').notNullable();
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.increments('id');
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.string('name', 100).nullable();
    t.string('key_hash', 64).notNullable().unique();
    t.string('prefix', 16).notNullable();
    t.string('last_four', 4).notNullable();
    t.string('status', 16).notNullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'last_used_at').nullable();
    datetime(t, 'revoked_at').nullable();
    t.index(['campaign_id']);
  });

  await knex.schema.createTable('affiliates', (t) => {
    t.increments('id');
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.string('email', 254).notNullable();
    t.string('email_key', 254).notNullable();
    t.string('referral_id', 32).notNullable();
    t.string('referral_key', 32).notNullable().unique();
    t.string('name', 255).nullable();
    t.string('phone', 32).nullable();
    t.string('status', 16).notNullable();
    t.string('password_hash', 60).notNullable();
    // lower-cased name, e-mail and referral code: one LIKE serves the list's `search`.
    t.string('search_key', 600).notNullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'updated_at').notNullable();
    t.unique(['campaign_id', 'email_key']);
    t.index(['campaign_id', 'created_at', 'id']);
    t.index(['campaign_id', 'status', 'created_at', 'id']);
  });

  await knex.schema.createTable('payouts', (t) => {
    t.increments('id');
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.integer('affiliate_id').unsigned().notNullable().references('id').inTable('affiliates').onDelete('CASCADE');
    t.bigInteger('amount_cents').notNullable();
    t.string('status', 16).notNullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'paid_at').nullable();
    t.index(['affiliate_id', 'status', 'amount_cents']);
    t.index(['campaign_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('tracking_events', (t) => {
    t.bigIncrements('id');
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.integer('affiliate_id').unsigned().notNullable().references('id').inTable('affiliates').onDelete('CASCADE');
    t.string('event_type', 16).notNullable();
    binary(t.string('event_id', 128).nullable());
    // Set on conversion events only: the unique index below is the order_id dedupe.
    binary(t.string('order_id', 255).nullable());
    t.string('session_id', 255).nullable();
    t.text('properties', 'mediumtext').nullable();
    t.text('device_info', 'mediumtext').nullable();
    // Random id of the request that stored the row: tells an insert-ignore which rows were new.
    t.string('intake_id', 32).notNullable();
    datetime(t, 'occurred_at').notNullable();
    datetime(t, 'created_at').notNullable();
    t.unique(['campaign_id', 'event_id']);
    t.unique(['campaign_id', 'order_id']);
    t.index(['intake_id']);
    t.index(['affiliate_id']);
  });

  await knex.schema.createTable('conversions', (t) => {
    t.increments('id');
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.integer('affiliate_id').unsigned().notNullable().references('id').inTable('affiliates').onDelete('CASCADE');
    t.bigInteger('tracking_event_id')
      .unsigned()
      .nullable()
      .references('id')
      .inTable('tracking_events')
      .onDelete('CASCADE');
    binary(t.string('order_id', 255).notNullable());
    t.bigInteger('order_value_cents').notNullable();
    t.bigInteger('commission_cents').notNullable();
    t.string('status', 16).notNullable();
    t.integer('payout_id').unsigned().nullable().references('id').inTable('payouts').onDelete('SET NULL');
    t.text('properties', 'mediumtext').nullable();
    datetime(t, 'occurred_at').notNullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'updated_at').notNullable();
    t.unique(['campaign_id', 'order_id']);
    // Covers the per-affiliate totals (count, and the sum of approved + paid commissions).
    t.index(['affiliate_id', 'status', 'commission_cents']);
    t.index(['campaign_id', 'created_at', 'id']);
    t.index(['campaign_id', 'status', 'created_at', 'id']);
    t.index(['payout_id']);
  });

  await knex.schema.createTable('monthly_usage', (t) => {
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    // Calendar month in UTC, `YYYY-MM` (spec §10.8).
    t.string('month', 7).notNullable();
    t.integer('conversions').unsigned().notNullable().defaultTo(0);
    t.primary(['campaign_id', 'month']);
  });

  const now = new Date();
  await knex('plans').insert(BUILT_IN_PLANS.map((plan) => ({ ...plan, created_at: now })));
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'monthly_usage',
    'conversions',
    'tracking_events',
    'payouts',
    'affiliates',
    'api_keys',
    'campaigns',
    'plans',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
