import type { Knex } from 'knex';

/**
 * The audit log (docs/architecture.md, "The audit log"): one row per change made by an API key,
 * the operator CLI or a dashboard user, written in the transaction of the change. An expand
 * step: a new table that no daemon of the previous release reads.
 *
 * - campaign_id: the campaign changed, null for what belongs to none (plans). No foreign key:
 *   the history of a deleted campaign (or affiliate) is what the log is for.
 * - actor_type / actor_id / actor_label: `key` (its id, its prefix), `operator` (the system
 *   user of the CLI), `user` (a dashboard user's id), `system` (scheduled work).
 * - details: JSON of field names and non-personal figures, never a value a person typed.
 * - address: the client's IP address, null for the operator CLI.
 *
 * The indexes serve the listing: a campaign's rows newest first, and filtered by action or target.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_log', (t) => {
    t.increments('id');
    t.integer('campaign_id').unsigned().nullable();
    t.string('actor_type', 16).notNullable();
    t.string('actor_id', 64).nullable();
    t.string('actor_label', 100).nullable();
    t.string('action', 64).notNullable();
    t.string('target_type', 32).notNullable();
    t.string('target_id', 100).nullable();
    t.text('details').nullable();
    t.string('address', 64).nullable();
    t.datetime('created_at', { precision: 3, useTz: false }).notNullable();
    t.index(['campaign_id', 'created_at', 'id'], 'audit_log_campaign_time');
    t.index(['campaign_id', 'action', 'created_at'], 'audit_log_campaign_action');
    t.index(['campaign_id', 'target_type', 'target_id'], 'audit_log_campaign_target');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('audit_log');
}
