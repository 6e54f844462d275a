import type { Knex } from 'knex';
import { retryingDdl } from './ddl.js';

/**
 * Payouts that pay (docs/payouts.md, "Payout rails"). Expand only: a daemon of the previous
 * release keeps working on the result, since every new column is nullable or has a default and
 * it never writes a `processing` payout (its `PATCH` moves only `pending` ones).
 *
 * - payouts: the rail a payout was sent on, its idempotency `reference` (unique: two payouts
 *   never share one), the provider's `receipt` and `failure_reason`, and when it was sent.
 * - payout_sends: the send queue of the job runtime, one row per sent payout, in the shape every
 *   leased queue has (`status`, `attempt_count`, `next_attempt_at`, `lease_token`,
 *   `lease_until`; server/repositories/leasedQueue.ts). It keeps the intent as it was committed
 *   (amount in minor units, payee) so that a resend after a crash goes where the first call went,
 *   `called_at` once a call may have left (a later attempt then asks the provider first), and
 *   what the provider answered (`provider_id`, `provider_batch_id`).
 * - payout_rails: a campaign's credentials per rail, sealed like webhook secrets (AES-256-GCM).
 * - campaigns: the payout schedule (`manual`, `weekly`, `monthly`) and when it last ran.
 */
export async function up(knex: Knex): Promise<void> {
  const datetime = (table: Knex.AlterTableBuilder | Knex.CreateTableBuilder, name: string) =>
    table.datetime(name, { precision: 3, useTz: false });
  const campaign = (t: Knex.CreateTableBuilder) =>
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');

  // Each one statement on a table older daemons keep writing during a rolling upgrade.
  await retryingDdl(() =>
    knex.schema.alterTable('payouts', (t) => {
      t.string('rail', 8).nullable();
      t.string('reference', 64).nullable();
      t.string('receipt', 255).nullable();
      t.string('failure_reason', 500).nullable();
      datetime(t, 'sent_at').nullable();
    }),
  );
  await retryingDdl(() => knex.schema.alterTable('payouts', (t) => t.unique(['reference'])));

  await knex.schema.createTable('payout_sends', (t) => {
    t.increments('id');
    campaign(t);
    t.integer('payout_id').unsigned().notNullable().unique().references('id').inTable('payouts').onDelete('CASCADE');
    t.string('rail', 8).notNullable();
    t.string('reference', 64).notNullable();
    t.bigInteger('amount_minor').notNullable();
    t.string('currency', 3).notNullable();
    t.string('payee_account', 254).notNullable();
    t.string('pix_key_type', 8).nullable();
    t.string('description', 140).notNullable();
    t.string('provider_id', 255).nullable();
    t.string('provider_batch_id', 255).nullable();
    datetime(t, 'called_at').nullable();
    t.string('status', 16).notNullable();
    t.integer('attempt_count').notNullable().defaultTo(0);
    datetime(t, 'next_attempt_at').nullable();
    t.string('lease_token', 32).nullable();
    datetime(t, 'lease_until').nullable();
    t.string('last_error', 500).nullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'updated_at').notNullable();
    t.index(['status', 'next_attempt_at']);
    t.index(['lease_token']);
  });

  await knex.schema.createTable('payout_rails', (t) => {
    t.increments('id');
    campaign(t);
    t.string('rail', 8).notNullable();
    t.string('credentials_enc', 2048).notNullable();
    t.string('webhook_token_enc', 1024).nullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'updated_at').notNullable();
    t.unique(['campaign_id', 'rail']);
  });

  await retryingDdl(() =>
    knex.schema.alterTable('campaigns', (t) => {
      t.string('payout_schedule', 8).notNullable().defaultTo('manual');
      datetime(t, 'payout_run_at').nullable();
    }),
  );
}

/** Plain `ALTER TABLE … DROP COLUMN`, as 20261122100000_payouts_lifecycle explains. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('payout_rails');
  await knex.schema.dropTableIfExists('payout_sends');
  await knex.schema.alterTable('payouts', (t) => t.dropUnique(['reference']));
  const added: Record<string, string[]> = {
    payouts: ['rail', 'reference', 'receipt', 'failure_reason', 'sent_at'],
    campaigns: ['payout_schedule', 'payout_run_at'],
  };
  for (const [table, columns] of Object.entries(added)) {
    for (const column of columns) await knex.raw('ALTER TABLE ?? DROP COLUMN ??', [table, column]);
  }
}
