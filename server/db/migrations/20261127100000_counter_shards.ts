import type { Knex } from 'knex';

/**
 * Counters split in shards, so that daemons on different Galera nodes never update the same row
 * (docs/scaling.md, "Hot rows"): each daemon writes the shard it drew at start, and a counter is
 * the sum of its rows.
 *
 * - monthly_usage and affiliate_daily_stats gain `shard` in their primary key. Existing rows are
 *   shard 0; in monthly_usage, shard 0 is also where a plan's monthly limit is reserved.
 * - affiliate_count_shards: the live affiliates created on plans without a limit, and those
 *   deleted, per daemon (signed: a daemon may delete more than it created). A campaign's live
 *   affiliates are campaigns.affiliate_count (where a plan's limit is taken) plus these.
 *
 * `down` folds the shards back into one row per counter, so no count is lost either way.
 */
const SHARDED = [
  { table: 'monthly_usage', key: ['campaign_id', 'month'], counters: ['conversions'] },
  {
    table: 'affiliate_daily_stats',
    key: ['campaign_id', 'day', 'affiliate_id'],
    counters: ['page_views', 'leads', 'conversions', 'revenue_cents', 'commission_cents'],
  },
] as const;

const isMysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function up(knex: Knex): Promise<void> {
  for (const { table, key } of SHARDED) {
    if (isMysql(knex)) {
      // One statement: the foreign key on campaign_id needs an index leading with it at every step.
      await knex.raw(
        `ALTER TABLE ${table} ADD COLUMN shard SMALLINT UNSIGNED NOT NULL DEFAULT 0,
           DROP PRIMARY KEY, ADD PRIMARY KEY (${[...key, 'shard'].join(', ')})`,
      );
    } else {
      await knex.schema.alterTable(table, (t) => {
        t.integer('shard').unsigned().notNullable().defaultTo(0);
        t.dropPrimary();
        t.primary([...key, 'shard']);
      });
    }
  }
  await knex.schema.createTable('affiliate_count_shards', (t) => {
    t.integer('campaign_id').unsigned().notNullable().references('id').inTable('campaigns').onDelete('CASCADE');
    t.smallint('shard').unsigned().notNullable();
    t.integer('affiliates').notNullable().defaultTo(0);
    t.primary(['campaign_id', 'shard']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    `UPDATE campaigns SET affiliate_count = affiliate_count + COALESCE(
       (SELECT SUM(s.affiliates) FROM affiliate_count_shards s WHERE s.campaign_id = campaigns.id), 0)`,
  );
  await knex.schema.dropTable('affiliate_count_shards');
  for (const { table, key, counters } of SHARDED) {
    const folded = `${table}_folded`;
    const columns = [...key, ...counters];
    // A table with a primary key (Galera replicates no other), filled with one row per counter.
    await knex.schema.createTable(folded, (t) => {
      for (const column of key) {
        if (column === 'month' || column === 'day') t.string(column, 10).notNullable();
        else t.integer(column).unsigned().notNullable();
      }
      for (const counter of counters) t.bigInteger(counter).notNullable();
      t.primary([...key]);
    });
    await knex.raw(
      `INSERT INTO ${folded} (${columns.join(', ')})
         SELECT ${key.join(', ')}, ${counters.map((c) => `SUM(${c})`).join(', ')} FROM ${table} GROUP BY ${key.join(', ')}`,
    );
    await knex(table).delete();
    if (isMysql(knex)) {
      await knex.raw(`ALTER TABLE ${table} DROP PRIMARY KEY, ADD PRIMARY KEY (${key.join(', ')}), DROP COLUMN shard`);
    } else {
      await knex.schema.alterTable(table, (t) => {
        t.dropPrimary();
        t.primary([...key]);
      });
      await knex.schema.alterTable(table, (t) => t.dropColumn('shard'));
    }
    await knex.raw(`INSERT INTO ${table} (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM ${folded}`);
    await knex.schema.dropTable(folded);
  }
}
