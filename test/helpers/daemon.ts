import { type Config, loadConfig } from '../../server/config.js';
import type { Db } from '../../server/db/knex.js';
import { createLogger } from '../../server/logger.js';
import { type Daemon, startDaemon } from '../../server/main.js';
import { createApiKey } from '../../server/services/apiKeys.js';
import { createCampaign } from '../../server/services/campaigns.js';
import { createPlan } from '../../server/services/plans.js';

/** A real daemon on a loopback port, in this process, on the given database. */
export async function startTestDaemon(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<Daemon> {
  const config: Readonly<Config> = loadConfig({
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
  return startDaemon(config, { logger: createLogger('silent') });
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
  let plan = options.plan ?? 'unlimited';
  if (options.limits) {
    plan = `test-plan-${process.pid}-${sequence}`;
    await createPlan(db, {
      name: plan,
      maxAffiliates: options.limits.maxAffiliates ?? null,
      maxMonthlyConversions: options.limits.maxMonthlyConversions ?? null,
    });
  }
  const campaign = await createCampaign(db, {
    name: `Campaign ${sequence}`,
    plan,
    commission: options.commission,
  });
  const key = await createApiKey(db, { campaign: campaign.id, name: 'test' });
  return { campaignId: campaign.id, publicId: campaign.publicId, key: key.key, keyId: key.id };
}
