import type { Campaign } from '../../shared/schemas/campaign.js';
import type { Db, Trx } from '../db/knex.js';
import { type CampaignRow, centsToMoney, type PlanRow, toIso } from '../db/rows.js';

export type CampaignWithPlanRow = CampaignRow & {
  plan_name: string;
  max_affiliates: number | null;
  max_monthly_conversions: number | null;
};

export function toCampaign(row: CampaignWithPlanRow): Campaign {
  return {
    id: row.id,
    publicId: row.public_id,
    name: row.name,
    plan: row.plan_name,
    commissionType: row.commission_type,
    // Stored in hundredths: of a percent, or of a real (centavos).
    commissionValue: centsToMoney(row.commission_value),
    cookieDays: row.cookie_days,
    createdAt: toIso(row.created_at),
  };
}

export function campaignsWithPlan(db: Db | Trx) {
  return db<CampaignRow>('campaigns')
    .join<PlanRow>('plans', 'plans.id', 'campaigns.plan_id')
    .select<CampaignWithPlanRow[]>(
      'campaigns.*',
      'plans.name as plan_name',
      'plans.max_affiliates',
      'plans.max_monthly_conversions',
    );
}

export async function listCampaigns(db: Db | Trx): Promise<Campaign[]> {
  const rows = await campaignsWithPlan(db).orderBy('campaigns.id');
  return rows.map(toCampaign);
}

/** By integer id or by public id. */
export async function findCampaign(
  db: Db | Trx,
  ref: string | number,
): Promise<CampaignWithPlanRow | undefined> {
  const query = campaignsWithPlan(db);
  if (typeof ref === 'number' || /^\d+$/.test(ref)) {
    query.where('campaigns.id', Number(ref)).orWhere('campaigns.public_id', String(ref));
  } else {
    query.where('campaigns.public_id', ref);
  }
  return query.first();
}

export async function insertCampaign(
  db: Db | Trx,
  campaign: {
    publicId: string;
    name: string;
    planId: number;
    commissionType: 'percent' | 'fixed';
    commissionHundredths: number;
    cookieDays: number;
    createdAt: Date;
  },
): Promise<number> {
  const [id] = await db('campaigns').insert({
    public_id: campaign.publicId,
    name: campaign.name,
    plan_id: campaign.planId,
    commission_type: campaign.commissionType,
    commission_value: campaign.commissionHundredths,
    cookie_days: campaign.cookieDays,
    affiliate_count: 0,
    created_at: campaign.createdAt,
  });
  return Number(id);
}
