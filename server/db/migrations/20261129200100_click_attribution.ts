import type { Knex } from 'knex';
import { retryingDdl } from './ddl.js';

/**
 * Attribution by click (docs/analytics.md): the click a lead or sale was attributed through, the
 * campaign's model, and each customer's first and last click.
 *
 * - `tracking_events.click_id` and `conversions.click_id`: nullable, no foreign key (retention
 *   deletes old clicks; a sale keeps the id it was attributed through).
 * - `campaigns.attribution`: `last_click` (the default) or `first_click`.
 * - `customer_clicks`: per campaign and customer (a digest of the session id or the customer's
 *   id or e-mail), the first and last click seen with them. Click ids sort by time, so first and
 *   last are the smallest and largest id.
 *
 * An expand step: new nullable columns, a column with a default, a new table. An older daemon
 * writes none of them and reads none of them.
 */
export async function up(knex: Knex): Promise<void> {
  const mysql = knex.client.config.client === 'mysql2';
  const binary = (column: Knex.ColumnBuilder) => (mysql ? column.collate('utf8mb4_bin') : column);
  // Each one statement on a table older daemons keep writing during a rolling upgrade.
  await retryingDdl(() =>
    knex.schema.alterTable('tracking_events', (t) => {
      binary(t.string('click_id', 26).nullable());
    }),
  );
  await retryingDdl(() =>
    knex.schema.alterTable('conversions', (t) => {
      binary(t.string('click_id', 26).nullable());
    }),
  );
  await retryingDdl(() =>
    knex.schema.alterTable('campaigns', (t) => {
      t.string('attribution', 16).notNullable().defaultTo('last_click');
    }),
  );
  await knex.schema.createTable('customer_clicks', (t) => {
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    binary(t.string('customer_key', 64).notNullable());
    binary(t.string('first_click_id', 26).notNullable());
    binary(t.string('last_click_id', 26).notNullable());
    t.primary(['campaign_id', 'customer_key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('customer_clicks');
  await knex.schema.alterTable('campaigns', (t) => {
    t.dropColumn('attribution');
  });
  await knex.schema.alterTable('conversions', (t) => {
    t.dropColumn('click_id');
  });
  await knex.schema.alterTable('tracking_events', (t) => {
    t.dropColumn('click_id');
  });
}
