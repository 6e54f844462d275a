import type { Knex } from 'knex';

/**
 * The dashboard's TOTP secrets are sealed at rest with the webhook and billing secrets' box
 * (docs/dashboard.md#logging-in): a sealed value (`v1.<key id>.<iv>.<tag>.<ciphertext>`, about
 * 100 characters) does not fit the 64 of `totp_secret`. An expand step: a wider column. SQLite
 * does not enforce a VARCHAR's length, so only MySQL changes.
 */
const isMysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function up(knex: Knex): Promise<void> {
  if (isMysql(knex)) await knex.raw('ALTER TABLE `dashboard_users` MODIFY `totp_secret` VARCHAR(160) NULL');
}

/** Back to 64: refused by MySQL's strict mode while a sealed secret is stored, never truncated. */
export async function down(knex: Knex): Promise<void> {
  if (isMysql(knex)) await knex.raw('ALTER TABLE `dashboard_users` MODIFY `totp_secret` VARCHAR(64) NULL');
}
