import type { Knex } from 'knex';

/**
 * `affiliates.search_key` holds the lower-cased name, e-mail and referral code (joined by two
 * line breaks). Lower-casing can grow text: `İ` (U+0130) becomes `i̇`, two characters. Worst
 * case: a 255-character name of `İ` is 510, the e-mail is ASCII (validated) and at most 254,
 * the code 32: 798 characters. The initial 600 refused that insert on MariaDB/MySQL
 * (ER_DATA_TOO_LONG, a 500); SQLite does not enforce VARCHAR lengths.
 */
const WIDE = 1024;
const INITIAL = 600;

async function resize(knex: Knex, length: number): Promise<void> {
  if (knex.client.config.client !== 'mysql2') return;
  await knex.raw(`ALTER TABLE affiliates MODIFY search_key VARCHAR(${length}) NOT NULL`);
}

export async function up(knex: Knex): Promise<void> {
  await resize(knex, WIDE);
}

export async function down(knex: Knex): Promise<void> {
  await resize(knex, INITIAL);
}
