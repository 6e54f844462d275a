import type { Knex } from 'knex';

/**
 * The merchant dashboard's people (docs/dashboard.md). An expand step: new tables only.
 *
 * - `dashboard_users`: a person of a campaign with a role (`owner`, `admin`, `viewer`), unique by
 *   campaign and lower-cased e-mail. `password_hash` is null until the set-up link is used.
 *   `totp_secret` is the second factor's shared secret once enrolled; `totp_last_step` the
 *   30-second step of the last code accepted, moved only forward by a conditional update, so a
 *   code used once is refused again even by another daemon.
 * - `dashboard_sessions` and `dashboard_tokens` (set-up and invitation links) keep only the
 *   SHA-256 of the secret the cookie or the link holds. A session made by a password alone is
 *   `factor_pending` until the second factor is given. Both go with their user (cascade).
 * - `dashboard_recovery_codes`: each code's SHA-256, spent once by a conditional update.
 */
export async function up(knex: Knex): Promise<void> {
  const datetime = (table: Knex.CreateTableBuilder, name: string) =>
    table.datetime(name, { precision: 3, useTz: false });

  await knex.schema.createTable('dashboard_users', (t) => {
    t.increments('id');
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.string('email', 254).notNullable();
    t.string('email_key', 254).notNullable();
    t.string('role', 8).notNullable();
    t.string('password_hash', 100).nullable();
    t.string('totp_secret', 64).nullable();
    t.bigInteger('totp_last_step').nullable();
    t.string('locale', 8).nullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'updated_at').notNullable();
    t.unique(['campaign_id', 'email_key']);
  });

  await knex.schema.createTable('dashboard_sessions', (t) => {
    t.bigIncrements('id');
    t.string('token_hash', 64).notNullable().unique();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('dashboard_users').onDelete('CASCADE');
    t.boolean('factor_pending').notNullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'last_seen_at').notNullable();
    datetime(t, 'expires_at').notNullable();
    t.index(['user_id']);
    t.index(['expires_at']);
  });

  await knex.schema.createTable('dashboard_tokens', (t) => {
    t.bigIncrements('id');
    t.string('token_hash', 64).notNullable().unique();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('dashboard_users').onDelete('CASCADE');
    datetime(t, 'created_at').notNullable();
    datetime(t, 'expires_at').notNullable();
    datetime(t, 'used_at').nullable();
    t.index(['user_id']);
    t.index(['expires_at']);
  });

  await knex.schema.createTable('dashboard_recovery_codes', (t) => {
    t.integer('user_id').unsigned().notNullable().references('id').inTable('dashboard_users').onDelete('CASCADE');
    t.string('code_hash', 64).notNullable();
    datetime(t, 'used_at').nullable();
    t.primary(['user_id', 'code_hash']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['dashboard_recovery_codes', 'dashboard_tokens', 'dashboard_sessions', 'dashboard_users']) {
    await knex.schema.dropTableIfExists(table);
  }
}
