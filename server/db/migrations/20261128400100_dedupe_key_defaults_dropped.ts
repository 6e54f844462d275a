import type { Knex } from 'knex';
import { keyDefaults } from './20261128400000_dedupe_keys_for_older_daemons.js';

/**
 * The contract step of 20261128400000: once no daemon of a release from before 20261127110000
 * runs (`affiliated db migrate --contract`, docs/operations.md "Upgrades"), every insert carries
 * its keys, and a row without them is a fault to see, not to paper over. Nothing to do on SQLite.
 */
export const contract = true;

const isMysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function up(knex: Knex): Promise<void> {
  if (isMysql(knex)) await keyDefaults(knex, false);
}

export async function down(knex: Knex): Promise<void> {
  if (isMysql(knex)) await keyDefaults(knex, true);
}
