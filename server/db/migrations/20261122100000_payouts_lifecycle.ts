import type { Knex } from 'knex';

/**
 * What the conversion lifecycle, refunds, hold periods and payouts need (docs/payouts.md).
 *
 * - campaigns: the hold period (`auto_approve_days`, null = manual approval) and the smallest
 *   payout (`payout_minimum_cents`).
 * - conversions: when and why an order was refunded.
 * - payouts: what a payout is made of: `commission_cents` (its conversions) less
 *   `clawback_cents` (netted clawbacks) is `amount_cents`.
 * - payout_conversions: the conversions a payout covered, kept after a failed payout releases them.
 * - clawbacks: the commission of a refunded conversion that had been paid or put in a payout,
 *   owed back by the affiliate. One per conversion (the unique index makes a second refund a
 *   no-op). `source_payout_id` is the payout the conversion sat in: the clawback can be netted
 *   only once that payout is paid (if it fails, the money never went out and nothing is owed).
 *   `netted_payout_id` is the payout that nets it off: settled when that payout is paid,
 *   cleared (unsettled again) when it fails.
 *
 * Every new child row cascades from its affiliate and campaign (spec §4.5.1).
 */
export async function up(knex: Knex): Promise<void> {
  const datetime = (table: Knex.AlterTableBuilder | Knex.CreateTableBuilder, name: string) =>
    table.datetime(name, { precision: 3, useTz: false });

  await knex.schema.alterTable('campaigns', (t) => {
    t.integer('auto_approve_days').unsigned().nullable();
    t.bigInteger('payout_minimum_cents').notNullable().defaultTo(0);
  });

  await knex.schema.alterTable('conversions', (t) => {
    datetime(t, 'refunded_at').nullable();
    t.string('refund_reason', 500).nullable();
  });

  await knex.schema.alterTable('payouts', (t) => {
    t.bigInteger('commission_cents').notNullable().defaultTo(0);
    t.bigInteger('clawback_cents').notNullable().defaultTo(0);
    datetime(t, 'failed_at').nullable();
    t.index(['campaign_id', 'status', 'created_at', 'id']);
    t.index(['campaign_id', 'affiliate_id', 'created_at', 'id']);
  });
  // Payouts made before this migration consisted of their amount alone.
  await knex('payouts').update({ commission_cents: knex.raw<number>('??', ['amount_cents']) });

  await knex.schema.createTable('payout_conversions', (t) => {
    t.integer('payout_id').unsigned().notNullable().references('id').inTable('payouts').onDelete('CASCADE');
    t.integer('conversion_id').unsigned().notNullable().references('id').inTable('conversions').onDelete('CASCADE');
    t.primary(['payout_id', 'conversion_id']);
    t.index(['conversion_id']);
  });

  await knex.schema.createTable('clawbacks', (t) => {
    t.increments('id');
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.integer('affiliate_id').unsigned().notNullable().references('id').inTable('affiliates').onDelete('CASCADE');
    t.integer('conversion_id')
      .unsigned()
      .notNullable()
      .unique()
      .references('id')
      .inTable('conversions')
      .onDelete('CASCADE');
    t.integer('source_payout_id').unsigned().notNullable().references('id').inTable('payouts').onDelete('CASCADE');
    t.integer('netted_payout_id').unsigned().nullable().references('id').inTable('payouts').onDelete('SET NULL');
    t.bigInteger('amount_cents').notNullable();
    t.string('reason', 500).nullable();
    datetime(t, 'created_at').notNullable();
    t.index(['affiliate_id', 'netted_payout_id']);
    t.index(['source_payout_id']);
    t.index(['netted_payout_id']);
  });
}

/**
 * Columns are dropped with plain `ALTER TABLE … DROP COLUMN` (SQLite 3.35+, MySQL): Knex's
 * SQLite path would rebuild the table, and dropping a parent table with foreign keys on
 * cascades into every child row (a rollback would empty `affiliates`).
 */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('clawbacks');
  await knex.schema.dropTableIfExists('payout_conversions');
  await knex.schema.alterTable('payouts', (t) => {
    t.dropIndex(['campaign_id', 'status', 'created_at', 'id']);
    t.dropIndex(['campaign_id', 'affiliate_id', 'created_at', 'id']);
  });
  const added: Record<string, string[]> = {
    payouts: ['commission_cents', 'clawback_cents', 'failed_at'],
    conversions: ['refunded_at', 'refund_reason'],
    campaigns: ['auto_approve_days', 'payout_minimum_cents'],
  };
  for (const [table, columns] of Object.entries(added)) {
    for (const column of columns) await knex.raw('ALTER TABLE ?? DROP COLUMN ??', [table, column]);
  }
}
