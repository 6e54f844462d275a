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
import * as dedupeKeysForOlderDaemons from './20261128400000_dedupe_keys_for_older_daemons.js';
import * as dedupeKeyDefaultsDropped from './20261128400100_dedupe_key_defaults_dropped.js';
import * as payoutRails from './20261129100000_payout_rails.js';
import * as clicks from './20261129200000_clicks.js';
import * as clickAttribution from './20261129200100_click_attribution.js';
import * as analyticsRollups from './20261129200200_analytics_rollups.js';
import * as dashboardUsers from './20261129300000_dashboard_users.js';
import * as dashboardTotpSealed from './20261129300100_dashboard_totp_sealed.js';
import * as auditLog from './20261129400000_audit_log.js';
import * as dashboardPasskeys from './20261129500000_dashboard_passkeys.js';
import * as payoutRuns from './20261129500100_payout_runs.js';
import * as analyticsDayRows from './20261130135000_analytics_day_rows.js';
import * as payoutSendBatches from './20261130600000_payout_send_batches.js';
import * as dashboardPasskeyNames from './20261201010000_dashboard_passkey_names.js';
import * as campaignDailyStats from './20261201030000_campaign_daily_stats.js';
import * as campaignDailyStatsReconciled from './20261201030100_campaign_daily_stats_reconciled.js';
import * as analyticsRollupClustered from './20261202010000_analytics_rollup_clustered.js';
import * as clicksRollupPending from './20261203010000_clicks_rollup_pending.js';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
  /**
   * A contract step (docs/operations.md, "Upgrades"): it removes what daemons of the previous
   * release still need, so starts leave it pending and `affiliated db migrate --contract` applies
   * it once none of them runs. Every other migration is an expand step, applied at start.
   */
  contract?: boolean;
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
  ['20261128400000_dedupe_keys_for_older_daemons', dedupeKeysForOlderDaemons],
  ['20261128400100_dedupe_key_defaults_dropped', dedupeKeyDefaultsDropped],
  ['20261129100000_payout_rails', payoutRails],
  ['20261129200000_clicks', clicks],
  ['20261129200100_click_attribution', clickAttribution],
  ['20261129200200_analytics_rollups', analyticsRollups],
  ['20261129300000_dashboard_users', dashboardUsers],
  ['20261129300100_dashboard_totp_sealed', dashboardTotpSealed],
  ['20261129400000_audit_log', auditLog],
  ['20261129500000_dashboard_passkeys', dashboardPasskeys],
  ['20261129500100_payout_runs', payoutRuns],
  ['20261130135000_analytics_day_rows', analyticsDayRows],
  ['20261130600000_payout_send_batches', payoutSendBatches],
  ['20261201010000_dashboard_passkey_names', dashboardPasskeyNames],
  ['20261201030000_campaign_daily_stats', campaignDailyStats],
  ['20261201030100_campaign_daily_stats_reconciled', campaignDailyStatsReconciled],
  ['20261202010000_analytics_rollup_clustered', analyticsRollupClustered],
  ['20261203010000_clicks_rollup_pending', clicksRollupPending],
];

/** Every migration this build knows, in order: the last is the schema version it was built for. */
export const KNOWN_MIGRATIONS: readonly string[] = MIGRATIONS.map(([name]) => name);

/** The contract steps among them. */
export const CONTRACT_MIGRATIONS: ReadonlySet<string> = new Set(
  MIGRATIONS.filter(([, migration]) => migration.contract === true).map(([name]) => name),
);

/**
 * The migrations knex is shown: all of them, or (`contract: false`) all but the contract steps
 * not yet applied, so knex neither applies those nor calls the applied ones missing.
 */
export function migrationSourceFor(options: {
  contract: boolean;
  applied?: ReadonlySet<string>;
}): Knex.MigrationSource<string> {
  const shown = (name: string) => options.contract || !CONTRACT_MIGRATIONS.has(name) || options.applied?.has(name);
  return {
    getMigrations: async () => KNOWN_MIGRATIONS.filter(shown),
    getMigrationName: (name) => name,
    getMigration: async (name) => {
      const found = MIGRATIONS.find(([candidate]) => candidate === name);
      if (!found) throw new Error(`Unknown migration ${name}`);
      return found[1];
    },
  };
}

/** Exactly these migrations, in this build's order: a restore rebuilds the schema its backup had. */
export function migrationSourceOf(names: readonly string[]): Knex.MigrationSource<string> {
  const wanted = new Set(names);
  const all = migrationSourceFor({ contract: true });
  return { ...all, getMigrations: async () => KNOWN_MIGRATIONS.filter((name) => wanted.has(name)) };
}

/**
 * knex's default, for tests and the knex CLI: what a start applies (contract steps left out). The
 * `db` commands read what is applied first and show knex the contract steps among them.
 */
export const migrationSource = migrationSourceFor({ contract: false });
