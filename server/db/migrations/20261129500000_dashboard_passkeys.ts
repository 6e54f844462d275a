import type { Knex } from 'knex';

/**
 * Passkeys (WebAuthn) as the dashboard's second factor (docs/dashboard.md#passkeys). An expand
 * step: a new table and two nullable columns that no daemon of the previous release reads.
 *
 * - `dashboard_passkeys`: one credential of a user. `credential_id` (base64url, as the browser
 *   names it) is unique across every user: a passkey answers for one user only. `public_key` is
 *   the COSE key (base64url), public by nature; `counter` the authenticator's signature counter,
 *   moved only forward by a conditional update. Goes with its user (cascade).
 * - `dashboard_sessions.webauthn_challenge` (and its expiry): the challenge the session was last
 *   given, spent once by a conditional update, so a signed answer is accepted once, by one daemon.
 */
export async function up(knex: Knex): Promise<void> {
  const datetime = (table: Knex.CreateTableBuilder, name: string) =>
    table.datetime(name, { precision: 3, useTz: false });

  await knex.schema.createTable('dashboard_passkeys', (t) => {
    t.increments('id');
    t.integer('user_id').unsigned().notNullable().references('id').inTable('dashboard_users').onDelete('CASCADE');
    t.string('credential_id', 255).notNullable().unique();
    t.text('public_key').notNullable();
    t.bigInteger('counter').notNullable();
    t.string('transports', 100).nullable();
    datetime(t, 'created_at').notNullable();
    datetime(t, 'last_used_at').nullable();
    t.index(['user_id']);
  });
  await knex.schema.alterTable('dashboard_sessions', (t) => {
    t.string('webauthn_challenge', 128).nullable();
    datetime(t, 'webauthn_challenge_expires_at').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dashboard_sessions', (t) => {
    t.dropColumn('webauthn_challenge');
    t.dropColumn('webauthn_challenge_expires_at');
  });
  await knex.schema.dropTableIfExists('dashboard_passkeys');
}
