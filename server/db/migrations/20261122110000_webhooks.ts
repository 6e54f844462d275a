import type { Knex } from 'knex';

/**
 * Webhook endpoints and their durable outbox.
 *
 * - `webhook_messages` is the outbox: one row per event, written in the transaction of the change
 *   it reports; `webhook_deliveries` fans it out, one row per subscribed endpoint, in that same
 *   transaction, so a committed change is sent even if the daemon dies right after the commit.
 * - A delivery is claimed with a lease (`lease_token`, `lease_until`): whichever daemon holds an
 *   unexpired lease is the only one sending it; a daemon killed mid-attempt frees it at expiry.
 * - Secrets are stored encrypted (AES-256-GCM), never in clear: they must be usable to sign.
 * - `webhook_settings` holds the generated encryption key on MySQL when WEBHOOK_SECRET_KEY is
 *   unset, so every daemon sharing the database uses the same one.
 */
export async function up(knex: Knex): Promise<void> {
  const datetime = (table: Knex.CreateTableBuilder, name: string) =>
    table.datetime(name, { precision: 3, useTz: false });

  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.increments('id');
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.string('url', 2048).notNullable();
    // JSON array of event types.
    t.text('events').notNullable();
    t.string('description', 500).nullable();
    t.string('status', 16).notNullable();
    t.string('disabled_reason', 255).nullable();
    t.string('secret_enc', 255).notNullable();
    t.string('previous_secret_enc', 255).nullable();
    datetime(t, 'previous_secret_expires_at').nullable();
    // First failed attempt since the last success: five days of it disables the endpoint.
    datetime(t, 'failing_since').nullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'updated_at').notNullable();
    t.index(['campaign_id', 'status']);
    t.index(['campaign_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('webhook_messages', (t) => {
    t.bigIncrements('id');
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    // The `webhook-id` header: stable across every attempt of every endpoint.
    t.string('message_id', 40).notNullable().unique();
    t.string('event_type', 40).notNullable();
    t.text('payload', 'mediumtext').notNullable();
    datetime(t, 'created_at').notNullable();
  });

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id');
    t.integer('endpoint_id').unsigned().notNullable().references('id').inTable('webhook_endpoints').onDelete('CASCADE');
    t.bigInteger('message_id')
      .unsigned()
      .notNullable()
      .references('id')
      .inTable('webhook_messages')
      .onDelete('CASCADE');
    t.string('status', 16).notNullable();
    t.integer('attempt_count').unsigned().notNullable().defaultTo(0);
    datetime(t, 'next_attempt_at').nullable();
    t.string('lease_token', 32).nullable();
    datetime(t, 'lease_until').nullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'updated_at').notNullable();
    // The worker's claim: due pending deliveries, oldest due first.
    t.index(['status', 'next_attempt_at']);
    t.index(['endpoint_id', 'created_at', 'id']);
    t.index(['lease_token']);
  });

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id');
    t.bigInteger('delivery_id')
      .unsigned()
      .notNullable()
      .references('id')
      .inTable('webhook_deliveries')
      .onDelete('CASCADE');
    datetime(t, 'attempted_at').notNullable();
    t.integer('status_code').nullable();
    t.string('error', 500).nullable();
    t.integer('duration_ms').unsigned().notNullable();
    // The first 1 KB of the answer.
    t.text('response').nullable();
    t.index(['delivery_id', 'attempted_at']);
  });

  await knex.schema.createTable('webhook_settings', (t) => {
    t.string('name', 64).primary();
    t.string('value', 255).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'webhook_settings',
    'webhook_attempts',
    'webhook_deliveries',
    'webhook_messages',
    'webhook_endpoints',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
