import type { Knex } from 'knex';

/**
 * The affiliate portal and its e-mail (docs/portal.md).
 *
 * - Campaigns gain the portal's settings: off by default, sign-up open, approval by hand.
 * - Affiliates gain their payout details, the language their mails are written in and whether
 *   they want the payout mail. `payout_identity` is the account money goes to, normalised
 *   (`cpf:…`, `email:…`), so two affiliates paid to one account are found by an index.
 * - Sessions and reset tokens are stored as SHA-256 hashes of the secrets the browser or the
 *   mail holds: a copy of the database opens no session and resets no password.
 * - Log-in throttling lives here (or in Redis), never in a daemon's memory: `portal_counters` are
 *   fixed windows (per IP), `portal_login_slots` the five places of one e-mail's failures, each
 *   taken by a conditional update or an insert a primary key decides, so daemons share them.
 * - `mail_outbox` is written in the transaction of the change a mail reports and claimed by a
 *   lease (`lease_token`, `lease_until`) with a conditional update, like webhook deliveries.
 *   It stores what a mail says, never a link's token: reset links are made when the mail is sent.
 * - Conversions gain an index by affiliate and arrival that also holds status and commission: the
 *   portal's newest-first list walks it in order (created_at, id), and its 30-day figures read
 *   only the affiliate's recent entries of it, without a row lookup.
 */
export async function up(knex: Knex): Promise<void> {
  const datetime = (table: Knex.CreateTableBuilder, name: string) =>
    table.datetime(name, { precision: 3, useTz: false });

  await knex.schema.alterTable('campaigns', (t) => {
    t.boolean('portal_enabled').notNullable().defaultTo(false);
    t.boolean('signup_open').notNullable().defaultTo(true);
    t.string('approve_affiliates', 8).notNullable().defaultTo('manual');
    t.string('contact_email', 254).nullable();
    t.string('site_url', 2048).nullable();
  });

  await knex.schema.alterTable('affiliates', (t) => {
    t.string('payout_method', 8).nullable();
    t.string('pix_key_type', 8).nullable();
    t.string('payout_account', 254).nullable();
    t.string('payout_identity', 262).nullable();
    t.string('locale', 8).nullable();
    t.boolean('notify_payouts').notNullable().defaultTo(true);
    t.index(['campaign_id', 'payout_identity']);
  });

  await knex.schema.alterTable('conversions', (t) => {
    // Named: the name Knex derives is past MySQL's 64 characters. `source_key` (the commission
    // rules' migration, which runs first) tells the affiliate's own sales from second-tier ones.
    t.index(
      ['affiliate_id', 'created_at', 'id', 'status', 'commission_cents', 'source_key'],
      'conversions_affiliate_arrival_index',
    );
  });

  await knex.schema.createTable('portal_sessions', (t) => {
    t.bigIncrements('id');
    t.string('token_hash', 64).notNullable().unique();
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.integer('affiliate_id').unsigned().notNullable().references('id').inTable('affiliates').onDelete('CASCADE');
    datetime(t, 'created_at').notNullable();
    datetime(t, 'last_seen_at').notNullable();
    datetime(t, 'expires_at').notNullable();
    t.index(['affiliate_id']);
    t.index(['expires_at']);
  });

  await knex.schema.createTable('portal_reset_tokens', (t) => {
    t.bigIncrements('id');
    t.string('token_hash', 64).notNullable().unique();
    t.integer('affiliate_id').unsigned().notNullable().references('id').inTable('affiliates').onDelete('CASCADE');
    datetime(t, 'created_at').notNullable();
    datetime(t, 'expires_at').notNullable();
    datetime(t, 'used_at').nullable();
    t.index(['affiliate_id']);
    t.index(['expires_at']);
  });

  await knex.schema.createTable('portal_counters', (t) => {
    t.string('bucket', 64).primary();
    datetime(t, 'window_start').notNullable();
    t.integer('hits').unsigned().notNullable();
    t.index(['window_start']);
  });

  await knex.schema.createTable('portal_login_slots', (t) => {
    t.string('bucket', 64).notNullable();
    t.integer('slot').unsigned().notNullable();
    datetime(t, 'busy_until').notNullable();
    t.string('token', 32).notNullable();
    t.primary(['bucket', 'slot']);
    t.index(['busy_until']);
  });

  await knex.schema.createTable('mail_outbox', (t) => {
    t.bigIncrements('id');
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.integer('affiliate_id').unsigned().nullable().references('id').inTable('affiliates').onDelete('CASCADE');
    t.string('kind', 32).notNullable();
    t.string('to_address', 254).notNullable();
    t.string('locale', 8).notNullable();
    // What the mail says (names, amounts), as JSON: never a token or a link.
    t.text('data', 'mediumtext').notNullable();
    t.string('status', 16).notNullable();
    t.integer('attempt_count').unsigned().notNullable().defaultTo(0);
    datetime(t, 'next_attempt_at').nullable();
    t.string('lease_token', 32).nullable();
    datetime(t, 'lease_until').nullable();
    t.string('last_error', 500).nullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'updated_at').notNullable();
    datetime(t, 'sent_at').nullable();
    t.index(['status', 'next_attempt_at']);
    t.index(['created_at', 'id']);
    t.index(['lease_token']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'mail_outbox',
    'portal_login_slots',
    'portal_counters',
    'portal_reset_tokens',
    'portal_sessions',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.schema.alterTable('conversions', (t) => {
    t.dropIndex(
      ['affiliate_id', 'created_at', 'id', 'status', 'commission_cents', 'source_key'],
      'conversions_affiliate_arrival_index',
    );
  });
  await knex.schema.alterTable('affiliates', (t) => {
    t.dropIndex(['campaign_id', 'payout_identity']);
  });
  // Column by column, as the engines do it natively: SQLite rebuilding `affiliates` would cascade.
  const added: Record<string, string[]> = {
    affiliates: ['payout_method', 'pix_key_type', 'payout_account', 'payout_identity', 'locale', 'notify_payouts'],
    campaigns: ['portal_enabled', 'signup_open', 'approve_affiliates', 'contact_email', 'site_url'],
  };
  for (const [table, columns] of Object.entries(added)) {
    for (const column of columns) await knex.raw('ALTER TABLE ?? DROP COLUMN ??', [table, column]);
  }
}
