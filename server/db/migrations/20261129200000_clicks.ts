import type { Knex } from 'knex';

/**
 * Clicks on referral links (`GET /r/{campaignPublicId}/{code}`, docs/analytics.md): one row per
 * click, written by one multi-row insert per flush of the click writer.
 *
 * - `id` is the click id handed to the site (`click_id=`): 26 characters, a millisecond time
 *   then randomness (the ULID layout), so rows arrive in primary-key order and retention can
 *   delete the oldest by a range of the key.
 * - Only what the user agent was parsed to is kept (device, browser, OS, bot), never the agent
 *   text or the address: a country is kept when the operator gives a GeoIP database.
 * - `referrer` is the referring host only.
 * - Rows cascade from their campaign and affiliate, like every row of theirs.
 *
 * An expand step: a new table, nothing an older daemon reads changes.
 */
export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  const binary = (column: Knex.ColumnBuilder) => (mysql ? column.collate('utf8mb4_bin') : column);
  await knex.schema.createTable('clicks', (t) => {
    binary(t.string('id', 26).notNullable().primary());
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.integer('affiliate_id').unsigned().notNullable().references('id').inTable('affiliates').onDelete('CASCADE');
    t.datetime('created_at', { precision: 3, useTz: false }).notNullable();
    t.boolean('bot').notNullable();
    t.string('device', 16).notNullable();
    t.string('browser', 64).notNullable();
    t.string('os', 64).notNullable();
    t.string('country', 2).nullable();
    t.string('referrer', 255).nullable();
    t.string('utm_source', 255).nullable();
    t.string('utm_medium', 255).nullable();
    t.string('utm_campaign', 255).nullable();
    t.string('utm_term', 255).nullable();
    t.string('utm_content', 255).nullable();
    t.index(['campaign_id', 'created_at']);
    t.index(['affiliate_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('clicks');
}
