import type { BillingIntegrationRow, BillingProviderName } from '../db/billingRows.js';
import type { Db, Trx } from '../db/knex.js';
import { type CampaignRow, type PlanRow, toDate } from '../db/rows.js';
import { isUniqueViolation } from '../db/knex.js';

/**
 * What the receiving route needs of a campaign: its currency, its plan's limit and the
 * integration's sealed secrets (intake reads the commission rules itself, in the sale's transaction).
 */
export interface ReceivingCampaign {
  campaignId: number;
  publicId: string;
  currency: string;
  planName: string;
  maxMonthlyConversions: number | null;
  /** The current secret, then the previous one while it still verifies. */
  sealedSecrets: string[];
}

type ReceivingRow = Pick<BillingIntegrationRow, 'secret_enc' | 'previous_secret_enc' | 'previous_secret_expires_at'> &
  Pick<CampaignRow, 'id' | 'public_id' | 'currency'> & {
    plan_name: PlanRow['name'];
    max_monthly_conversions: PlanRow['max_monthly_conversions'];
  };

/** The campaign with that public id and its integration with `provider`, in one query; undefined when either is missing. */
export async function findReceivingCampaign(
  db: Db | Trx,
  publicId: string,
  provider: BillingProviderName,
  now: Date,
): Promise<ReceivingCampaign | undefined> {
  const row = await db('billing_integrations')
    .join('campaigns', 'campaigns.id', 'billing_integrations.campaign_id')
    .join('plans', 'plans.id', 'campaigns.plan_id')
    .where('campaigns.public_id', publicId)
    .andWhere('billing_integrations.provider', provider)
    .first<ReceivingRow | undefined>(
      'campaigns.id',
      'campaigns.public_id',
      'campaigns.currency',
      'plans.name as plan_name',
      'plans.max_monthly_conversions',
      'billing_integrations.secret_enc',
      'billing_integrations.previous_secret_enc',
      'billing_integrations.previous_secret_expires_at',
    );
  if (!row) return undefined;
  const previousLive =
    row.previous_secret_enc !== null &&
    row.previous_secret_expires_at !== null &&
    toDate(row.previous_secret_expires_at).getTime() > now.getTime();
  return {
    campaignId: Number(row.id),
    publicId: row.public_id,
    currency: row.currency,
    planName: row.plan_name,
    maxMonthlyConversions: row.max_monthly_conversions === null ? null : Number(row.max_monthly_conversions),
    sealedSecrets:
      previousLive && row.previous_secret_enc ? [row.secret_enc, row.previous_secret_enc] : [row.secret_enc],
  };
}

export interface IntegrationRecord {
  provider: BillingProviderName;
  createdAt: Date;
  updatedAt: Date;
  previousSecretExpiresAt: Date | null;
}

const toRecord = (row: BillingIntegrationRow): IntegrationRecord => ({
  provider: row.provider,
  createdAt: toDate(row.created_at),
  updatedAt: toDate(row.updated_at),
  previousSecretExpiresAt: row.previous_secret_expires_at === null ? null : toDate(row.previous_secret_expires_at),
});

/**
 * Creates the integration, or rotates its secret: one UPDATE moves the current secret to
 * `previous_secret_enc` (both engines read the old value on the right-hand side), so two
 * rotations racing cannot lose one. Answers whether it was created.
 */
export async function saveIntegrationSecret(
  db: Db,
  campaignId: number,
  provider: BillingProviderName,
  sealed: string,
  previousExpiresAt: Date,
  now: Date,
): Promise<boolean> {
  try {
    await db('billing_integrations').insert({
      campaign_id: campaignId,
      provider,
      secret_enc: sealed,
      previous_secret_enc: null,
      previous_secret_expires_at: null,
      created_at: now,
      updated_at: now,
    });
    return true;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  await db('billing_integrations')
    .where({ campaign_id: campaignId, provider })
    .update({
      previous_secret_enc: db.raw('??', ['secret_enc']),
      previous_secret_expires_at: previousExpiresAt,
      secret_enc: sealed,
      updated_at: now,
    });
  return false;
}

export async function findIntegration(
  db: Db | Trx,
  campaignId: number,
  provider: BillingProviderName,
): Promise<IntegrationRecord | undefined> {
  const row = await db<BillingIntegrationRow>('billing_integrations')
    .where({ campaign_id: campaignId, provider })
    .first();
  return row && toRecord(row);
}

export async function listIntegrations(db: Db | Trx, campaignId: number): Promise<IntegrationRecord[]> {
  const rows = await db<BillingIntegrationRow>('billing_integrations')
    .where('campaign_id', campaignId)
    .orderBy('provider');
  return rows.map(toRecord);
}

export async function deleteIntegration(
  db: Db | Trx,
  campaignId: number,
  provider: BillingProviderName,
): Promise<number> {
  return db('billing_integrations').where({ campaign_id: campaignId, provider }).delete();
}
