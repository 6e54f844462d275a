import type { Knex } from 'knex';
import { retryingDdl } from './ddl.js';

/**
 * Payout runs (docs/payouts.md, "Payout runs"). Expand only: a daemon of the previous release
 * never reads the new table, and the new columns are nullable.
 *
 * - payout_runs: one row per run that created payouts: who started it (`started_by_type` and
 *   `started_by_id`, as the audit log names actors), its total and count, and its `status`:
 *   `sending` (its payouts are being sent), `sent`, or `awaiting_approval` (its total was above
 *   the campaign's `payoutApprovalAbove`: its payouts stay pending until a second dashboard
 *   user approves it, by one conditional update from `awaiting_approval`).
 * - payouts.payout_run_id: the run that created a payout (null: made by hand). Indexed for the
 *   approval, which sends the run's pending payouts. No foreign key, so that the statement on
 *   `payouts`, a table older daemons keep writing, is a plain column add.
 * - campaigns.payout_approval_above_cents: the approval threshold in hundredths (null: none).
 */
export async function up(knex: Knex): Promise<void> {
  const datetime = (table: Knex.CreateTableBuilder, name: string) =>
    table.datetime(name, { precision: 3, useTz: false });
  await knex.schema.createTable('payout_runs', (t) => {
    t.increments('id');
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.string('status', 20).notNullable();
    t.string('rail', 8).nullable();
    t.bigInteger('total_cents').notNullable().defaultTo(0);
    t.integer('payout_count').notNullable().defaultTo(0);
    t.string('started_by_type', 16).notNullable();
    t.string('started_by_id', 64).nullable();
    t.integer('approved_by_user_id').unsigned().nullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'approved_at').nullable();
    t.index(['campaign_id', 'status', 'id']);
  });
  await retryingDdl(() =>
    knex.schema.alterTable('payouts', (t) => {
      t.integer('payout_run_id').unsigned().nullable();
      t.index(['payout_run_id']);
    }),
  );
  await retryingDdl(() =>
    knex.schema.alterTable('campaigns', (t) => t.bigInteger('payout_approval_above_cents').nullable()),
  );
}

/** Plain `ALTER TABLE … DROP COLUMN`, as 20261122100000_payouts_lifecycle explains. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payouts', (t) => t.dropIndex(['payout_run_id']));
  await knex.raw('ALTER TABLE ?? DROP COLUMN ??', ['payouts', 'payout_run_id']);
  await knex.raw('ALTER TABLE ?? DROP COLUMN ??', ['campaigns', 'payout_approval_above_cents']);
  await knex.schema.dropTableIfExists('payout_runs');
}
