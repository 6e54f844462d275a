import { fromCents } from '../../shared/money.js';
import type { Campaign } from '../../shared/schemas/campaign.js';
import { inChunks } from '../db/bulk.js';
import type { Db, Trx } from '../db/knex.js';
import { type CampaignRow, type PlanRow, toIso } from '../db/rows.js';
import {
  apiProducts,
  type LevelRule,
  type ProductRate,
  productsColumn,
  productsOf,
  recurringColumns,
  recurringOf,
} from './ruleColumns.js';
import { conflictsAs } from './uniqueConflict.js';
import type { Recurring } from '../../shared/schemas/commission.js';

type CampaignWithPlanRow = CampaignRow & {
  plan_name: string;
  max_affiliates: number | null;
  max_monthly_conversions: number | null;
};

/** A campaign and its plan's limits. */
export interface CampaignWithLimits {
  campaign: Campaign;
  limits: { maxAffiliates: number | null; maxMonthlyConversions: number | null };
}

function toCampaign(row: CampaignWithPlanRow): Campaign {
  return {
    id: row.id,
    publicId: row.public_id,
    name: row.name,
    plan: row.plan_name,
    commissionType: row.commission_type,
    // Stored in hundredths: of a percent, or of a real (centavos).
    commissionValue: fromCents(row.commission_value),
    cookieDays: row.cookie_days,
    autoApproveDays: row.auto_approve_days === null ? null : Number(row.auto_approve_days),
    payoutMinimum: fromCents(row.payout_minimum_cents),
    payoutSchedule: row.payout_schedule,
    payoutApprovalAbove:
      row.payout_approval_above_cents === null ? null : fromCents(Number(row.payout_approval_above_cents)),
    recurring: recurringOf(row.recurring, row.recurring_months) ?? 'lifetime',
    secondTierPercent: fromCents(row.second_tier_percent),
    products: apiProducts(productsOf(row.products)),
    currency: row.currency,
    portal: {
      enabled: Boolean(row.portal_enabled),
      signup: row.signup_open ? 'open' : 'closed',
      approveAffiliates: row.approve_affiliates === 'auto' ? 'auto' : 'manual',
      contactEmail: row.contact_email,
      siteUrl: row.site_url,
    },
    createdAt: toIso(row.created_at),
  };
}

/** The campaign's own rule, as intake applies it. */
function ruleOf(row: CampaignRow): LevelRule {
  return {
    rate: { type: row.commission_type, hundredths: Number(row.commission_value) },
    products: productsOf(row.products),
    recurring: recurringOf(row.recurring, row.recurring_months) ?? 'lifetime',
    secondTierHundredths: Number(row.second_tier_percent),
  };
}

/**
 * The rules of these campaigns, read inside the intake's transaction once per flush: a change
 * applies to the next conversion on every daemon (docs/commissions.md).
 */
export async function campaignRules(trx: Trx, ids: readonly number[]): Promise<Map<number, LevelRule>> {
  const rows = await inChunks(ids, (part) =>
    trx<CampaignRow>('campaigns').whereIn('id', part).select<CampaignRow[]>('*'),
  );
  return new Map(rows.map((row) => [Number(row.id), ruleOf(row)]));
}

function campaignsWithPlan(db: Db | Trx) {
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
export async function findCampaign(db: Db | Trx, ref: string | number): Promise<CampaignWithLimits | undefined> {
  const query = campaignsWithPlan(db);
  if (typeof ref === 'number' || /^\d+$/.test(ref)) {
    query.where('campaigns.id', Number(ref)).orWhere('campaigns.public_id', String(ref));
  } else {
    query.where('campaigns.public_id', ref);
  }
  const row = await query.first();
  return (
    row && {
      campaign: toCampaign(row),
      limits: { maxAffiliates: row.max_affiliates, maxMonthlyConversions: row.max_monthly_conversions },
    }
  );
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
  const [id] = await conflictsAs({ public_id: 'publicId' }, () =>
    db('campaigns').insert({
      public_id: campaign.publicId,
      name: campaign.name,
      plan_id: campaign.planId,
      commission_type: campaign.commissionType,
      commission_value: campaign.commissionHundredths,
      cookie_days: campaign.cookieDays,
      affiliate_count: 0,
      created_at: campaign.createdAt,
    }),
  );
  return Number(id);
}

/** What `campaigns update` may change; each absent field stays as it is. */
export interface CampaignChanges {
  planId?: number;
  commissionType?: 'percent' | 'fixed';
  /** Hundredths: of a percent, or of a real (centavos). */
  commissionHundredths?: number;
  /** null: no hold period. */
  autoApproveDays?: number | null;
  payoutMinimumCents?: number;
  recurring?: Recurring;
  /** Hundredths of a percent. */
  secondTierHundredths?: number;
  products?: ProductRate[];
  /** ISO 4217 code. */
  currency?: string;
  portalEnabled?: boolean;
  signupOpen?: boolean;
  approveAffiliates?: 'manual' | 'auto';
  /** null: none. */
  contactEmail?: string | null;
  siteUrl?: string | null;
  attribution?: 'first_click' | 'last_click';
  /** A new schedule counts from now: its first run is at the next period's start (docs/payouts.md). */
  payoutSchedule?: { schedule: 'manual' | 'weekly' | 'monthly'; now: Date };
  /** null: no approval needed. */
  payoutApprovalAboveCents?: number | null;
}

export async function updateCampaign(db: Db | Trx, id: number, changes: CampaignChanges): Promise<number> {
  const columns: Partial<CampaignRow> = {};
  if (changes.payoutSchedule !== undefined) {
    columns.payout_schedule = changes.payoutSchedule.schedule;
    columns.payout_run_at = changes.payoutSchedule.now;
  }
  if (changes.payoutApprovalAboveCents !== undefined)
    columns.payout_approval_above_cents = changes.payoutApprovalAboveCents;
  if (changes.planId !== undefined) columns.plan_id = changes.planId;
  if (changes.commissionType !== undefined) columns.commission_type = changes.commissionType;
  if (changes.commissionHundredths !== undefined) columns.commission_value = changes.commissionHundredths;
  if (changes.autoApproveDays !== undefined) columns.auto_approve_days = changes.autoApproveDays;
  if (changes.payoutMinimumCents !== undefined) columns.payout_minimum_cents = changes.payoutMinimumCents;
  if (changes.recurring !== undefined) {
    const { recurring, recurring_months } = recurringColumns(changes.recurring);
    Object.assign(columns, { recurring: recurring ?? 'lifetime', recurring_months });
  }
  if (changes.secondTierHundredths !== undefined) columns.second_tier_percent = changes.secondTierHundredths;
  if (changes.products !== undefined) columns.products = productsColumn(changes.products);
  if (changes.currency !== undefined) columns.currency = changes.currency;
  if (changes.portalEnabled !== undefined) columns.portal_enabled = changes.portalEnabled;
  if (changes.signupOpen !== undefined) columns.signup_open = changes.signupOpen;
  if (changes.approveAffiliates !== undefined) columns.approve_affiliates = changes.approveAffiliates;
  if (changes.contactEmail !== undefined) columns.contact_email = changes.contactEmail;
  if (changes.siteUrl !== undefined) columns.site_url = changes.siteUrl;
  if (changes.attribution !== undefined) columns.attribution = changes.attribution;
  return db('campaigns').where('id', id).update(columns);
}

/** Campaign ids by public id, for the key-less SDK endpoint (spec §10.11). */
export async function findCampaignIdsByPublicIds(
  db: Db | Trx,
  publicIds: readonly string[],
): Promise<Map<string, number>> {
  const rows = await inChunks(publicIds, (part) =>
    db<CampaignRow>('campaigns')
      .whereIn('public_id', part)
      .select<Pick<CampaignRow, 'id' | 'public_id'>[]>('id', 'public_id'),
  );
  return new Map(rows.map((row) => [row.public_id, Number(row.id)]));
}

/** Campaigns with a hold period, for the auto-approve worker. */
export async function campaignsWithHoldPeriod(db: Db | Trx): Promise<{ id: number; days: number }[]> {
  const rows = await db<CampaignRow>('campaigns')
    .whereNotNull('auto_approve_days')
    .orderBy('id')
    .select<{ id: number; auto_approve_days: number }[]>('id', 'auto_approve_days');
  return rows.map((row) => ({ id: Number(row.id), days: Number(row.auto_approve_days) }));
}

export async function payoutMinimumCents(db: Db | Trx, campaignId: number): Promise<number> {
  const row = await db('campaigns')
    .where('id', campaignId)
    .first<{ payout_minimum_cents: number | string } | undefined>('payout_minimum_cents');
  return Number(row?.payout_minimum_cents ?? 0);
}

/** The campaigns that pay on a schedule, for the payout schedule's job. */
export async function campaignsWithPayoutSchedule(
  db: Db | Trx,
): Promise<{ id: number; schedule: 'weekly' | 'monthly' }[]> {
  const rows = await db<CampaignRow>('campaigns')
    .whereIn('payout_schedule', ['weekly', 'monthly'])
    .orderBy('id')
    .select<{ id: number; payout_schedule: 'weekly' | 'monthly' }[]>('id', 'payout_schedule');
  return rows.map((row) => ({ id: Number(row.id), schedule: row.payout_schedule }));
}

/**
 * Claims a campaign's payout period: one conditional UPDATE of `payout_run_at`, so of several
 * daemons (or runs of one) only the first to reach a period runs it; the others change nothing.
 */
export async function claimPayoutPeriod(
  db: Db | Trx,
  campaignId: number,
  schedule: 'weekly' | 'monthly',
  periodStart: Date,
): Promise<boolean> {
  const changed = await db('campaigns')
    .where({ id: campaignId, payout_schedule: schedule })
    .andWhere((q) => q.whereNull('payout_run_at').orWhere('payout_run_at', '<', periodStart))
    .update({ payout_run_at: periodStart });
  return changed > 0;
}

/** The campaign's approval threshold in hundredths; null: none. */
export async function payoutApprovalAboveCents(db: Db | Trx, campaignId: number): Promise<number | null> {
  const row = await db('campaigns')
    .where('id', campaignId)
    .first<{ payout_approval_above_cents: number | string | null } | undefined>('payout_approval_above_cents');
  const cents = row?.payout_approval_above_cents ?? null;
  return cents === null ? null : Number(cents);
}
