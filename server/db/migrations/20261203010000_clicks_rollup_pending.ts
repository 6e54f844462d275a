import type { Knex } from 'knex';

/**
 * Clicks waiting for the analytics rollup (docs/analytics.md, "The rollups"): the click writer
 * stores a click with `rollup_pending` true, and the fold (`services/clicks/fold.ts`) adds it to
 * `analytics_hourly` and clears the flag in one transaction, many clicks a statement, off the
 * redirect's path.
 *
 * An expand step: rows already stored, and rows a daemon of the previous release writes (it
 * names no such column), take the default, false: that daemon adds its clicks to the rollup
 * itself, in its flush, so nothing is counted twice. The index serves the fold's reads, of every
 * campaign or of one.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('clicks', (t) => {
    t.boolean('rollup_pending').notNullable().defaultTo(false);
    t.index(['rollup_pending', 'campaign_id'], 'clicks_rollup_pending');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('clicks', (t) => {
    t.dropIndex(['rollup_pending', 'campaign_id'], 'clicks_rollup_pending');
  });
  await knex.schema.alterTable('clicks', (t) => {
    t.dropColumn('rollup_pending');
  });
}
