import { type Config, loadConfig } from '../../server/config.js';
import type { Db } from '../../server/db/knex.js';
import { createLogger, type Logger } from '../../server/logger.js';
import { type Daemon, startDaemon } from '../../server/main.js';
import { createServices, type Services } from '../../server/services/index.js';
import { cleanTables, createTestDatabase, type TestDatabase } from './database.js';

/** The configuration tests run with: quick bcrypt, quiet logs, limits that only rate tests trip. */
export function testConfig(databaseUrl: string, env: Record<string, string> = {}): Readonly<Config> {
  return loadConfig({
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    BCRYPT_ROUNDS: '4',
    LOG_LEVEL: 'silent',
    // Tests that are not about rate limits must not trip them.
    RATE_LIMIT_DEFAULT_PER_MIN: '1000000',
    RATE_LIMIT_EVENTS_PER_MIN: '1000000',
    RATE_LIMIT_SDK_PER_MIN: '1000000',
    ...env,
  });
}

/** A real daemon on a loopback port, in this process, on the given database (silent unless given a logger). */
export async function startTestDaemon(
  databaseUrl: string,
  env: Record<string, string> = {},
  options: { logger?: Logger } = {},
): Promise<Daemon> {
  return startDaemon(testConfig(databaseUrl, env), { logger: options.logger ?? createLogger('silent') });
}

/** The daemon's services over a test database, as the operator commands use them. */
export function servicesFor(db: Db): Services {
  return createServices({ db, config: testConfig('sqlite::memory:'), logger: createLogger('silent') });
}

export async function revokeKey(db: Db, keyId: number): Promise<void> {
  await servicesFor(db).apiKeys.revoke(keyId);
}

export interface Merchant {
  campaignId: number;
  publicId: string;
  key: string;
  keyId: number;
}

let sequence = 0;

/** A campaign with an API key, on a named plan (or a plan made with the given limits). */
export async function createMerchant(
  db: Db,
  options: {
    plan?: string;
    limits?: { maxAffiliates?: number | null; maxMonthlyConversions?: number | null };
    commission?: { type: 'percent' | 'fixed'; value: number };
  } = {},
): Promise<Merchant> {
  sequence++;
  const services = servicesFor(db);
  let plan = options.plan ?? 'unlimited';
  if (options.limits) {
    plan = `test-plan-${process.pid}-${sequence}`;
    await services.plans.create({
      name: plan,
      maxAffiliates: options.limits.maxAffiliates ?? null,
      maxMonthlyConversions: options.limits.maxMonthlyConversions ?? null,
    });
  }
  const campaign = await services.campaigns.create({
    name: `Campaign ${sequence}`,
    plan,
    commission: options.commission,
  });
  const key = await services.apiKeys.create({ campaign: campaign.id, name: 'test' });
  return { campaignId: campaign.id, publicId: campaign.publicId, key: key.key, keyId: key.id };
}

export interface TestDaemon {
  readonly database: TestDatabase;
  readonly db: Db;
  readonly daemon: Daemon;
  readonly url: string;
  /** A fresh merchant before each test (tables are emptied first). */
  readonly merchant: Merchant;
}

/**
 * Mocha hooks for a suite: a throwaway database and a daemon on it for the whole suite, every
 * table emptied and a new merchant made before each test, both closed after the suite.
 */
export function useTestDaemon(env: Record<string, string> = {}): TestDaemon {
  let database: TestDatabase | undefined;
  let daemon: Daemon | undefined;
  let merchant: Merchant | undefined;
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is only there inside a test of the suite`);
    return value;
  };
  before(async () => {
    database = await createTestDatabase();
    daemon = await startTestDaemon(database.url, env);
  });
  beforeEach(async () => {
    const { db } = need(database, 'the database');
    await cleanTables(db);
    merchant = await createMerchant(db);
  });
  after(async () => {
    await daemon?.close();
    await database?.drop();
  });
  return {
    get database() {
      return need(database, 'the database');
    },
    get db() {
      return need(database, 'the database').db;
    },
    get daemon() {
      return need(daemon, 'the daemon');
    },
    get url() {
      return need(daemon, 'the daemon').url;
    },
    get merchant() {
      return need(merchant, 'the merchant');
    },
  };
}
