import { type Campaign, type CampaignWithUsage, PUBLIC_ID } from '../../shared/schemas/campaign.js';
import { type Db, isUniqueViolation } from '../db/knex.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { findCampaign, insertCampaign, toCampaign } from '../repositories/campaigns.js';
import { findPlanByName } from '../repositories/plans.js';
import { readMonthlyUsage } from '../repositories/usage.js';
import { randomPublicId } from './random.js';

export interface CreateCampaignInput {
  name: string;
  plan?: string;
  publicId?: string;
  commission?: { type: 'percent' | 'fixed'; value: number };
  cookieDays?: number;
}

/** product §2: default plan `free`, commission 10 percent, cookie 30 days. */
export async function createCampaign(db: Db, input: CreateCampaignInput): Promise<Campaign> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw new ValidationError('campaign name must be 1 to 200 characters long');
  const planName = input.plan ?? 'free';
  const plan = await findPlanByName(db, planName);
  if (!plan) throw new NotFoundError(`Plan "${planName}" not found: see \`affiliated plans list\``);
  if (input.publicId !== undefined && !PUBLIC_ID.test(input.publicId)) {
    throw new ValidationError('public id must be 3 to 64 letters, digits, "-" or "_"');
  }
  const commission = input.commission ?? { type: 'percent', value: 10 };
  if (!Number.isFinite(commission.value) || commission.value < 0) {
    throw new ValidationError('commission must be a number of at least 0');
  }
  if (commission.type === 'percent' && commission.value > 100) {
    throw new ValidationError('commission percent must not be greater than 100');
  }
  const cookieDays = input.cookieDays ?? 30;
  for (let attempt = 0; ; attempt++) {
    const publicId = input.publicId ?? randomPublicId();
    try {
      const id = await insertCampaign(db, {
        publicId,
        name,
        planId: plan.id,
        commissionType: commission.type,
        commissionHundredths: Math.round(commission.value * 100),
        cookieDays,
      });
      return getCampaign(db, id);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (input.publicId !== undefined) throw new ConflictError(`Public id "${publicId}" is already used`);
      if (attempt >= 5) throw err;
    }
  }
}

export async function getCampaign(db: Db, ref: string | number): Promise<Campaign> {
  const row = await findCampaign(db, ref);
  if (!row) throw new NotFoundError(`Campaign ${ref} not found: see \`affiliated campaigns list\``);
  return toCampaign(row);
}

/** `GET /v1/campaign` (product §4): the campaign, its plan limits and this month's usage. */
export async function getCampaignWithUsage(
  db: Db,
  campaignId: number,
  now = new Date(),
): Promise<CampaignWithUsage> {
  const row = await findCampaign(db, campaignId);
  if (!row) throw new NotFoundError(`Campaign ${campaignId} not found`);
  const usage = await readMonthlyUsage(db, campaignId, now);
  return {
    ...toCampaign(row),
    limits: { maxAffiliates: row.max_affiliates, maxMonthlyConversions: row.max_monthly_conversions },
    usage: { month: usage.month, affiliates: row.affiliate_count, conversions: usage.conversions },
  };
}
