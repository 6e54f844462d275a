import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { parseDatabaseUrl } from '../../server/config.js';
import { createDb, type Db, type Engine, isRetryableTxError } from '../../server/db/knex.js';

/** The engine a suite runs on: `TEST_ENGINE` (set by scripts/test.mjs), SQLite by default. */
export const ENGINE: Engine = process.env.TEST_ENGINE === 'mysql' ? 'mysql' : 'sqlite';

export interface TestDatabase {
  url: string;
  db: Db;
  engine: Engine;
  drop(): Promise<void>;
}

/**
 * A throwaway database, migrated: a fresh SQLite file in a temp folder, or a fresh database
 * on the MariaDB of `TEST_MYSQL_URL` (or of `mysqlUrl`: a Galera node, for the bench). Each
 * suite gets its own, so suites never see each other.
 */
export async function createTestDatabase(
  options: { migrate?: boolean; engine?: Engine; mysqlUrl?: string } = {},
): Promise<TestDatabase> {
  const engine = options.engine ?? ENGINE;
  let url: string;
  let cleanup: () => Promise<void>;
  if (engine === 'mysql') {
    const base = options.mysqlUrl ?? process.env.TEST_MYSQL_URL;
    if (!base) throw new Error('TEST_ENGINE=mysql needs TEST_MYSQL_URL');
    const name = `affiliated_t_${randomBytes(5).toString('hex')}`;
    const admin = knexFactory({ client: 'mysql2', connection: { uri: base }, pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await admin.destroy();
    const parsed = new URL(base);
    parsed.pathname = `/${name}`;
    url = parsed.toString();
    cleanup = async () => {
      const dropper = knexFactory({ client: 'mysql2', connection: { uri: base }, pool: { min: 0, max: 1 } });
      await dropper.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      await dropper.destroy();
    };
  } else {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-test-'));
    url = `sqlite:${path.join(dir, 'test.sqlite3')}`;
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
  const db = createDb(parseDatabaseUrl(url));
  if (options.migrate !== false) await db.migrate.latest();
  return {
    url,
    db,
    engine,
    async drop() {
      await db.destroy();
      await cleanup();
    },
  };
}

const CHILD_TABLES = [
  'dashboard_passkeys',
  'dashboard_recovery_codes',
  'dashboard_tokens',
  'dashboard_sessions',
  'dashboard_users',
  'audit_log',
  'mail_outbox',
  'portal_sessions',
  'portal_reset_tokens',
  'portal_counters',
  'portal_login_slots',
  'billing_held_payments',
  'billing_pending_refunds',
  'billing_orders',
  'billing_customers',
  'billing_events',
  'billing_integrations',
  'affiliate_coupons',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_messages',
  'webhook_retired_secrets',
  'webhook_subscriptions',
  'webhook_endpoints',
  'affiliate_daily_stats',
  'campaign_daily_stats',
  'clicks',
  'customer_clicks',
  'analytics_hourly',
  'clawbacks',
  'refunds',
  'campaign_customers',
  'payout_sends',
  'payout_rails',
  'payout_conversions',
  'payout_runs',
  'conversions',
  'tracking_events',
  'payouts',
  'monthly_usage',
  'affiliate_count_shards',
  'affiliates',
  'affiliate_groups',
  'api_keys',
  'campaigns',
];

/**
 * Empties every table but the built-in plans, between tests. A daemon's workers may still be
 * claiming rows while this runs; InnoDB then picks one side as a deadlock victim, and the
 * delete is simply tried again.
 */
/**
 * For a suite that makes several databases: `database()` makes one (as `createTestDatabase`) and
 * every one it made is dropped after the suite.
 */
export function useTestDatabases(): (options?: { migrate?: boolean }) => Promise<TestDatabase> {
  const databases: TestDatabase[] = [];
  after(async () => {
    for (const t of databases.splice(0)) await t.drop();
  });
  return async (options = {}) => {
    const t = await createTestDatabase(options);
    databases.push(t);
    return t;
  };
}

export async function cleanTables(db: Db): Promise<void> {
  for (const table of CHILD_TABLES) {
    for (let attempt = 1; ; attempt++) {
      try {
        await db(table).delete();
        break;
      } catch (err) {
        if (attempt >= 5 || !isRetryableTxError(err)) throw err;
        await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
      }
    }
  }
  await db('plans').whereNotIn('name', ['free', 'starter', 'pro', 'unlimited']).delete();
}

/**
 * Empties every table as `cleanTables` does and restarts their ids at 1, so that rows made in
 * a fixed order get the same ids every time (the document's example world relies on it).
 */
export async function resetTables(db: Db): Promise<void> {
  await cleanTables(db);
  if (db.client.config.client === 'mysql2') {
    // On an empty InnoDB table this restarts the counter at 1 (it is DDL: committed at once).
    for (const table of CHILD_TABLES) await db.raw('ALTER TABLE ?? AUTO_INCREMENT = 1', [table]);
  } else {
    await db('sqlite_sequence').whereIn('name', CHILD_TABLES).delete();
  }
}
