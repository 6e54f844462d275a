import type { Knex } from 'knex';

/**
 * Passkeys' names and passkey-only users' recovery codes (docs/dashboard.md#passkeys). An expand
 * step: two nullable columns no daemon of the previous release reads.
 *
 * - `dashboard_passkeys.name`: given at enrolment (else "Passkey N"), shown in the list. Passkeys
 *   made before it have none and are listed by number as before.
 * - `dashboard_sessions.recovery_codes`: the codes a first passkey made, sealed as TOTP secrets
 *   are, held on the new session until its first page shows them, then cleared (once, by a
 *   conditional update).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dashboard_passkeys', (t) => {
    t.string('name', 64).nullable();
  });
  await knex.schema.alterTable('dashboard_sessions', (t) => {
    t.text('recovery_codes').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dashboard_sessions', (t) => {
    t.dropColumn('recovery_codes');
  });
  await knex.schema.alterTable('dashboard_passkeys', (t) => {
    t.dropColumn('name');
  });
}
