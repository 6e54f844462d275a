import type { Knex } from 'knex';
import * as initialSchema from './20261121100000_initial_schema.js';
import * as payoutsLifecycle from './20261122100000_payouts_lifecycle.js';
import * as webhooks from './20261122110000_webhooks.js';
import * as affiliateDailyStats from './20261122120000_affiliate_daily_stats.js';
import * as byteExactDedupeKeys from './20261122140000_byte_exact_dedupe_keys.js';
import * as searchKeyWorstCase from './20261122140100_search_key_worst_case.js';
import * as affiliateSearch from './20261122150000_affiliate_search.js';
import * as commissionRules from './20261126100000_commission_rules.js';
import * as webhookFanoutAtDelivery from './20261126200000_webhook_fanout_at_delivery.js';
import * as portalAndMail from './20261126300000_portal_and_mail.js';
import * as billingIntegrations from './20261126400000_billing_integrations.js';
import * as counterShards from './20261127100000_counter_shards.js';
import * as dedupeKeysWithoutNull from './20261127110000_dedupe_keys_without_null.js';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Migrations are listed here rather than discovered on disk, so the same list runs from the
 * TypeScript sources (tests) and from `dist/` (the daemon), whatever the file extension.
 * Add new ones at the end; never edit one that has landed.
 */
const MIGRATIONS: ReadonlyArray<readonly [string, Migration]> = [
  ['20261121100000_initial_schema', initialSchema],
  ['20261122100000_payouts_lifecycle', payoutsLifecycle],
  ['20261122110000_webhooks', webhooks],
  ['20261122120000_affiliate_daily_stats', affiliateDailyStats],
  ['20261122140000_byte_exact_dedupe_keys', byteExactDedupeKeys],
  ['20261122140100_search_key_worst_case', searchKeyWorstCase],
  ['20261122150000_affiliate_search', affiliateSearch],
  ['20261126100000_commission_rules', commissionRules],
  ['20261126200000_webhook_fanout_at_delivery', webhookFanoutAtDelivery],
  ['20261126300000_portal_and_mail', portalAndMail],
  ['20261126400000_billing_integrations', billingIntegrations],
  ['20261127100000_counter_shards', counterShards],
  ['20261127110000_dedupe_keys_without_null', dedupeKeysWithoutNull],
];

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => MIGRATIONS.map(([name]) => name),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const found = MIGRATIONS.find(([candidate]) => candidate === name);
    if (!found) throw new Error(`Unknown migration ${name}`);
    return found[1];
  },
};
