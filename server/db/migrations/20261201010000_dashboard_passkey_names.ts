import type { Knex } from 'knex';

/**
 * A name for each dashboard passkey (docs/dashboard.md#passkeys), given at enrolment (else the
 * browser and system it was made on) and shown in the list. An expand step: a nullable column no
 * daemon of the previous release reads; passkeys made before it have none and are listed by
 * number as before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dashboard_passkeys', (t) => {
    t.string('name', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dashboard_passkeys', (t) => {
    t.dropColumn('name');
  });
}
