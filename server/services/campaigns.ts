import { type Campaign, type CampaignWithUsage, PUBLIC_ID } from '../../shared/schemas/campaign.js';
import { isUniqueViolation } from '../db/knex.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { findCampaign, insertCampaign, listCampaigns, toCampaign } from '../repositories/campaigns.js';
import { findPlanByName } from '../repositories/plans.js';
import { readMonthlyUsage } from '../repositories/usage.js';
import type { ServiceDeps } from './deps.js';
import { randomPublicId } from './random.js';

export interface CreateCampaignInput {
  name: string;
  plan?: string;
  publicId?: string;
  commission?: { type: 'percent' | 'fixed'; value: number };
  cookieDays?: number;
}

export interface CampaignService {
  create(input: CreateCampaignInput): Promise<Campaign>;
  /** By integer id or public id. */
  get(ref: string | number): Promise<Campaign>;
  list(): Promise<Campaign[]>;
  /** `GET /v1/campaign`: the campaign, its plan limits and this month's usage. */
  withUsage(campaignId: number): Promise<CampaignWithUsage>;
}

const notFound = (ref: string | number) =>
  new NotFoundError(`Campaign ${ref} not found: see \`affiliated campaigns list\``);

function validCommission(commission: { type: 'percent' | 'fixed'; value: number }) {
  if (!Number.isFinite(commission.value) || commission.value < 0) {
    throw new ValidationError('commission must be a number of at least 0');
  }
  if (commission.type === 'percent' && commission.value > 100) {
    throw new ValidationError('commission percent must not be greater than 100');
  }
  return commission;
}

export function campaignService({ db, now }: ServiceDeps): CampaignService {
  async function get(ref: string | number): Promise<Campaign> {
    const row = await findCampaign(db, ref);
    if (!row) throw notFound(ref);
    return toCampaign(row);
  }

  /** product §2: default plan `free`, commission 10 percent, cookie 30 days. */
  async function create(input: CreateCampaignInput): Promise<Campaign> {
    const name = input.name.trim();
    if (!name || name.length > 200) throw new ValidationError('campaign name must be 1 to 200 characters long');
    const planName = input.plan ?? 'free';
    const plan = await findPlanByName(db, planName);
    if (!plan) throw new NotFoundError(`Plan "${planName}" not found: see \`affiliated plans list\``);
    if (input.publicId !== undefined && !PUBLIC_ID.test(input.publicId)) {
      throw new ValidationError('public id must be 3 to 64 letters, digits, "-" or "_"');
    }
    const commission = validCommission(input.commission ?? { type: 'percent', value: 10 });
    for (let attempt = 0; ; attempt++) {
      const publicId = input.publicId ?? randomPublicId();
      try {
        const id = await insertCampaign(db, {
          publicId,
          name,
          planId: plan.id,
          commissionType: commission.type,
          commissionHundredths: Math.round(commission.value * 100),
          cookieDays: input.cookieDays ?? 30,
          createdAt: now(),
        });
        return get(id);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        if (input.publicId !== undefined) throw new ConflictError(`Public id "${publicId}" is already used`);
        if (attempt >= 5) throw err;
      }
    }
  }

  async function withUsage(campaignId: number): Promise<CampaignWithUsage> {
    const row = await findCampaign(db, campaignId);
    if (!row) throw notFound(campaignId);
    const usage = await readMonthlyUsage(db, campaignId, now());
    return {
      ...toCampaign(row),
      limits: { maxAffiliates: row.max_affiliates, maxMonthlyConversions: row.max_monthly_conversions },
      usage: { month: usage.month, affiliates: row.affiliate_count, conversions: usage.conversions },
    };
  }

  return { create, get, list: () => listCampaigns(db), withUsage };
}
