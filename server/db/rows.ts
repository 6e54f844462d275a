/** Column types of each table, as the repositories read and write them. */
export type DbDate = Date | number | string;

export interface PlanRow {
  id: number;
  name: string;
  max_affiliates: number | null;
  max_monthly_conversions: number | null;
  created_at: DbDate;
}

export interface CampaignRow {
  id: number;
  public_id: string;
  name: string;
  plan_id: number;
  commission_type: 'percent' | 'fixed';
  commission_value: number;
  cookie_days: number;
  affiliate_count: number;
  created_at: DbDate;
}

export interface ApiKeyRow {
  id: number;
  campaign_id: number;
  name: string | null;
  key_hash: string;
  prefix: string;
  last_four: string;
  status: 'active' | 'revoked';
  created_at: DbDate;
  last_used_at: DbDate | null;
  revoked_at: DbDate | null;
}

export interface AffiliateRow {
  id: number;
  campaign_id: number;
  email: string;
  email_key: string;
  referral_id: string;
  referral_key: string;
  name: string | null;
  phone: string | null;
  status: 'pending' | 'active' | 'inactive';
  password_hash: string;
  search_key: string;
  created_at: DbDate;
  updated_at: DbDate;
}

/** SQLite hands back what Knex bound (epoch milliseconds); mysql2 hands back Dates. */
export function toDate(value: DbDate): Date {
  return value instanceof Date
    ? value
    : new Date(typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
}

export function toIso(value: DbDate): string {
  return toDate(value).toISOString();
}

/** Integer centavos → BRL as a JSON number with at most two decimals. */
export function centsToMoney(cents: number | string | null | undefined): number {
  return Number(cents ?? 0) / 100;
}

export function moneyToCents(amount: number): number {
  return Math.round(amount * 100);
}

export interface TrackingEventRow {
  id: number;
  campaign_id: number;
  affiliate_id: number;
  event_type: string;
  event_id: string | null;
  order_id: string | null;
  session_id: string | null;
  properties: string | null;
  device_info: string | null;
  intake_id: string;
  occurred_at: DbDate;
  created_at: DbDate;
}

export interface ConversionRow {
  id: number;
  campaign_id: number;
  affiliate_id: number;
  tracking_event_id: number | null;
  order_id: string;
  order_value_cents: number;
  commission_cents: number;
  status: 'pending' | 'approved' | 'rejected' | 'paid';
  payout_id: number | null;
  properties: string | null;
  occurred_at: DbDate;
  created_at: DbDate;
  updated_at: DbDate;
}

export interface PayoutRow {
  id: number;
  campaign_id: number;
  affiliate_id: number;
  amount_cents: number;
  status: 'pending' | 'paid' | 'failed';
  created_at: DbDate;
  paid_at: DbDate | null;
}

export interface MonthlyUsageRow {
  campaign_id: number;
  month: string;
  conversions: number;
}

/** One affiliate's activity on one UTC day (`YYYY-MM-DD`): the report's counters. */
export interface AffiliateDailyStatsRow {
  campaign_id: number;
  day: string;
  affiliate_id: number;
  page_views: number;
  leads: number;
  conversions: number;
  revenue_cents: number;
  commission_cents: number;
}
