import type { Knex } from 'knex';

/**
 * Billing integrations (docs/integrations.md): Stripe and Paddle send sales, renewals and refunds.
 *
 * - campaigns.currency: ISO 4217 code of the campaign's money; provider amounts in another
 *   currency are skipped, never converted at a guessed rate.
 * - billing_integrations: one per campaign and provider, the signing secret sealed (AES-256-GCM,
 *   as webhook secrets) with the previous one kept for 24 hours after a rotation.
 * - billing_events: the provider events received. The unique index (campaign, provider, event id)
 *   is what makes a redelivered event a duplicate, across daemons too.
 * - affiliate_coupons: codes an affiliate hands out; unique per campaign whatever the case.
 * - billing_customers: a provider customer bound to the affiliate of its first attributed payment;
 *   the unique index makes the first binding win.
 * - billing_orders: every id a provider may name a stored sale by (invoice, payment intent,
 *   charge, transaction), so that a refund finds its conversion.
 * - billing_pending_refunds: refunds whose sale has not arrived (or cannot be applied yet).
 * - billing_held_payments: payments of a customer no affiliate is bound to yet; counted if a
 *   checkout binds the customer later (Stripe may send the first invoice before the checkout).
 *
 * Provider ids compare byte for byte (a NO PAD binary collation on MySQL, as the dedupe keys).
 */
async function noPadBinaryCollation(knex: Knex): Promise<string> {
  const [rows] = (await knex.raw(
    `SELECT COLLATION_NAME AS name FROM information_schema.COLLATIONS
      WHERE COLLATION_NAME IN ('utf8mb4_nopad_bin', 'utf8mb4_0900_bin')`,
  )) as [{ name: string }[]];
  const names = rows.map((row) => row.name);
  const found = ['utf8mb4_nopad_bin', 'utf8mb4_0900_bin'].find((name) => names.includes(name));
  if (!found) throw new Error('this server has no NO PAD binary utf8mb4 collation (MariaDB 10.2+ or MySQL 8 needed)');
  return found;
}

export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  const collation = mysql ? await noPadBinaryCollation(knex) : undefined;
  const binary = (column: Knex.ColumnBuilder) => (collation ? column.collate(collation) : column);
  const datetime = (table: Knex.AlterTableBuilder | Knex.CreateTableBuilder, name: string) =>
    table.datetime(name, { precision: 3, useTz: false });
  const campaign = (t: Knex.CreateTableBuilder) =>
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
  const affiliate = (t: Knex.CreateTableBuilder) =>
    t.integer('affiliate_id').unsigned().notNullable().references('id').inTable('affiliates').onDelete('CASCADE');

  await knex.schema.alterTable('campaigns', (t) => {
    t.string('currency', 3).notNullable().defaultTo('BRL');
  });

  await knex.schema.createTable('billing_integrations', (t) => {
    t.increments('id');
    campaign(t);
    t.string('provider', 16).notNullable();
    t.string('secret_enc', 512).notNullable();
    t.string('previous_secret_enc', 512).nullable();
    datetime(t, 'previous_secret_expires_at').nullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'updated_at').notNullable();
    t.unique(['campaign_id', 'provider']);
  });

  await knex.schema.createTable('billing_events', (t) => {
    t.bigIncrements('id');
    campaign(t);
    t.string('provider', 16).notNullable();
    binary(t.string('event_id', 255).notNullable());
    t.string('event_type', 100).notNullable();
    t.string('outcome', 32).notNullable();
    t.string('reason', 64).nullable();
    t.integer('conversion_id').unsigned().nullable().references('id').inTable('conversions').onDelete('SET NULL');
    binary(t.string('order_id', 255).nullable());
    t.boolean('livemode').nullable();
    datetime(t, 'received_at').notNullable();
    t.unique(['campaign_id', 'provider', 'event_id']);
    t.index(['campaign_id', 'received_at', 'id']);
    t.index(['campaign_id', 'provider', 'outcome']);
  });

  await knex.schema.createTable('affiliate_coupons', (t) => {
    t.increments('id');
    campaign(t);
    affiliate(t);
    t.string('code', 64).notNullable();
    // The code upper-cased: unique per campaign whatever the case, matched the same way.
    t.string('code_key', 64).notNullable();
    datetime(t, 'created_at').notNullable();
    t.unique(['campaign_id', 'code_key']);
    t.index(['affiliate_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('billing_customers', (t) => {
    campaign(t);
    t.string('provider', 16).notNullable();
    binary(t.string('customer_id', 255).notNullable());
    affiliate(t);
    datetime(t, 'bound_at').notNullable();
    t.primary(['campaign_id', 'provider', 'customer_id']);
    t.index(['affiliate_id']);
  });

  await knex.schema.createTable('billing_orders', (t) => {
    campaign(t);
    t.string('provider', 16).notNullable();
    binary(t.string('reference', 255).notNullable());
    binary(t.string('order_id', 255).notNullable());
    t.integer('conversion_id').unsigned().notNullable().references('id').inTable('conversions').onDelete('CASCADE');
    t.primary(['campaign_id', 'provider', 'reference']);
    t.index(['conversion_id']);
  });

  await knex.schema.createTable('billing_pending_refunds', (t) => {
    t.bigIncrements('id');
    campaign(t);
    t.string('provider', 16).notNullable();
    binary(t.string('reference', 255).notNullable());
    binary(t.string('event_id', 255).notNullable());
    // The refund as read from the provider's event (JSON), applied when its sale arrives.
    t.text('refund').notNullable();
    t.string('reason', 64).notNullable();
    datetime(t, 'created_at').notNullable();
    t.index(['campaign_id', 'provider', 'reference']);
  });

  await knex.schema.createTable('billing_held_payments', (t) => {
    t.bigIncrements('id');
    campaign(t);
    t.string('provider', 16).notNullable();
    binary(t.string('customer_id', 255).notNullable());
    binary(t.string('event_id', 255).notNullable());
    // The payment as read from the provider's event (JSON), with when it happened.
    t.text('payment').notNullable();
    datetime(t, 'created_at').notNullable();
    t.index(['campaign_id', 'provider', 'customer_id']);
  });
}

/** Plain `ALTER TABLE … DROP COLUMN`: Knex's SQLite path would rebuild `campaigns` and cascade. */
export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'billing_held_payments',
    'billing_pending_refunds',
    'billing_orders',
    'billing_customers',
    'affiliate_coupons',
    'billing_events',
    'billing_integrations',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.raw('ALTER TABLE ?? DROP COLUMN ??', ['campaigns', 'currency']);
}
