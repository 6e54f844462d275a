import type { PayoutMethod } from '../../shared/payoutDetails.js';
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
  commission_type: CommissionType;
  commission_value: number;
  cookie_days: number;
  affiliate_count: number;
  /** Hold period in days; null: conversions wait for a person to approve them. */
  auto_approve_days: number | null;
  payout_minimum_cents: number;
  /** docs/portal.md: the affiliate portal's settings (booleans are 0/1 on both engines). */
  portal_enabled: boolean | number;
  signup_open: boolean | number;
  approve_affiliates: 'manual' | 'auto';
  contact_email: string | null;
  site_url: string | null;
  recurring: RecurringKind;
  recurring_months: number | null;
  /** Hundredths of a percent of a child's commission that its parent earns; 0: none. */
  second_tier_percent: number;
  /** The campaign's product rules, JSON (`ProductRuleJson[]`); null: none. */
  products: string | null;
  /** ISO 4217 code of the campaign's money (BRL by default). */
  currency: string;
  /** docs/analytics.md: which of a customer's clicks a sale counts for. */
  attribution: 'first_click' | 'last_click';
  /** docs/payouts.md#payout-runs: `manual`, `weekly` or `monthly`, and the start of the period last run. */
  payout_schedule: 'manual' | 'weekly' | 'monthly';
  payout_run_at: DbDate | null;
  /** Hundredths; a run whose total is above it waits for approval. null: none. */
  payout_approval_above_cents: number | string | null;
  created_at: DbDate;
}

export type CommissionType = 'percent' | 'fixed';
export type RecurringKind = 'lifetime' | 'first' | 'months';

/** One product rule as stored in a `products` column: value in hundredths, as the campaign's. */
export interface ProductRuleJson {
  product: string;
  type: CommissionType;
  value: number;
}

export interface AffiliateGroupRow {
  id: number;
  campaign_id: number;
  name: string;
  /** Trimmed and lower-cased: the name is unique per campaign on this form. */
  name_key: string;
  commission_type: CommissionType;
  commission_value: number;
  /** Null: the campaign's. */
  recurring: RecurringKind | null;
  recurring_months: number | null;
  /** Null: the campaign's. */
  second_tier_percent: number | null;
  products: string | null;
  created_at: DbDate;
  updated_at: DbDate;
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
  /** MySQL/MariaDB's FULLTEXT-indexed suffixes of `search_key` (server/repositories/affiliateSearch.ts). */
  search_words: string;
  /** Payout details (docs/portal.md); optional here because the database fills them in (null, true). */
  payout_method?: PayoutMethod | null;
  pix_key_type?: 'cpf' | 'cnpj' | 'email' | 'phone' | 'random' | null;
  payout_account?: string | null;
  payout_identity?: string | null;
  locale?: string | null;
  notify_payouts?: boolean | number;
  group_id: number | null;
  commission_override_type: CommissionType | null;
  commission_override_value: number | null;
  parent_affiliate_id: number | null;
  /** Incremented on every ancestor a parent change checked (repositories/lineage.ts). */
  lineage_version: number;
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

export interface TrackingEventRow {
  id: number;
  campaign_id: number;
  affiliate_id: number;
  event_type: string;
  event_id: string | null;
  order_id: string | null;
  /** The dedupe keys the unique indexes hold, never NULL when intake writes them (repositories/events.ts). */
  event_key: string | null;
  order_key: string | null;
  session_id: string | null;
  properties: string | null;
  device_info: string | null;
  /** The click the event was attributed through (docs/analytics.md); null: its code alone. */
  click_id: string | null;
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
  /** The click the sale was attributed through (docs/analytics.md); null: its code alone. */
  click_id: string | null;
  properties: string | null;
  occurred_at: DbDate;
  created_at: DbDate;
  updated_at: DbDate;
  refunded_at: DbDate | null;
  refund_reason: string | null;
  /** 0 for a sale; the sale's id for a second-tier conversion (kept if the sale is deleted). */
  source_key: number;
  source_conversion_id: number | null;
  /** The explanation, JSON (`CommissionRule`). */
  commission_rule: string | null;
  /** JSON array of flags; null: none. */
  flags: string | null;
  intake_commission_cents: number;
  refunded_value_cents: number;
}

/** A customer's first attributed payment in a campaign (docs/commissions.md#recurring). */
export interface CampaignCustomerRow {
  campaign_id: number;
  /** SHA-256 (hex) of the customer's key: no e-mail is kept here. */
  customer_hash: string;
  first_occurred_at: DbDate;
  /** The intake that inserted the row: whoever inserted it made the first payment. */
  first_intake_id: string;
  payments: number;
  created_at: DbDate;
}

export interface RefundRow {
  id: number;
  campaign_id: number;
  conversion_id: number;
  /** The caller's `refund_id`; null when it sent none. */
  refund_key: string | null;
  amount_cents: number;
  commission_removed_cents: number;
  reason: string | null;
  created_at: DbDate;
}

export interface PayoutRow {
  id: number;
  campaign_id: number;
  affiliate_id: number;
  /** `commission_cents - clawback_cents`: what is transferred. */
  amount_cents: number;
  commission_cents: number;
  clawback_cents: number;
  status: 'pending' | 'processing' | 'paid' | 'failed';
  created_at: DbDate;
  paid_at: DbDate | null;
  failed_at: DbDate | null;
  /** Set once the payout is sent on a rail (docs/payouts.md); null for a manual payout. */
  rail: 'pix' | 'paypal' | 'stripe' | null;
  reference: string | null;
  receipt: string | null;
  failure_reason: string | null;
  sent_at: DbDate | null;
  /** The payout run that created it (20261129500100_payout_runs); null: made by hand. */
  payout_run_id: number | null;
}

/** One payout run (20261129500100_payout_runs). */
export interface PayoutRunRow {
  id: number;
  campaign_id: number;
  status: 'creating' | 'sending' | 'sent' | 'awaiting_approval';
  rail: 'pix' | 'paypal' | 'stripe' | null;
  total_cents: number | string;
  payout_count: number;
  started_by_type: 'key' | 'operator' | 'user' | 'system';
  started_by_id: string | null;
  approved_by_user_id: number | null;
  created_at: DbDate;
  approved_at: DbDate | null;
}

/** One sent payout in the send queue (20261129100000_payout_rails). */
export interface PayoutSendRow {
  id: number;
  campaign_id: number;
  payout_id: number;
  rail: 'pix' | 'paypal' | 'stripe';
  reference: string;
  amount_minor: number | string;
  currency: string;
  payee_account: string;
  pix_key_type: 'cpf' | 'cnpj' | 'email' | 'phone' | 'random' | null;
  description: string;
  provider_id: string | null;
  provider_batch_id: string | null;
  /** The PayPal batch it left in (20261130600000_payout_send_batches); null before a call. */
  batch_reference: string | null;
  called_at: DbDate | null;
  status: 'pending' | 'done' | 'dead';
  attempt_count: number;
  next_attempt_at: DbDate | null;
  lease_token: string | null;
  lease_until: DbDate | null;
  last_error: string | null;
  created_at: DbDate;
  updated_at: DbDate;
}

/** A campaign's credentials for one rail, sealed (20261129100000_payout_rails). */
export interface PayoutRailRow {
  id: number;
  campaign_id: number;
  rail: 'pix' | 'paypal' | 'stripe';
  credentials_enc: string;
  webhook_token_enc: string | null;
  created_at: DbDate;
  updated_at: DbDate;
}

/** The conversions a payout covered, kept after a failed payout released them. */
export interface PayoutConversionRow {
  payout_id: number;
  conversion_id: number;
}

/** A refunded conversion's commission owed back (docs/payouts.md). */
export interface ClawbackRow {
  id: number;
  campaign_id: number;
  affiliate_id: number;
  conversion_id: number;
  /** The payout the conversion sat in: the clawback is owed once that payout is paid. */
  source_payout_id: number;
  /** The payout that nets it off; null while unsettled. */
  netted_payout_id: number | null;
  amount_cents: number;
  reason: string | null;
  /** The refund that clawed it back; null when the conversion's sale was rejected by hand. */
  refund_id: number | null;
  created_at: DbDate;
}

/** One daemon's share of a month's conversions (shard 0: the plan limit's row; repositories/counterShard.ts). */
export interface MonthlyUsageRow {
  campaign_id: number;
  month: string;
  shard: number;
  conversions: number;
}

/** One daemon's share of a campaign's live affiliates, beyond campaigns.affiliate_count (signed). */
export interface AffiliateCountShardRow {
  campaign_id: number;
  shard: number;
  affiliates: number;
}

/** One affiliate's activity on one UTC day (`YYYY-MM-DD`): the report's counters. */
export interface AffiliateDailyStatsRow {
  campaign_id: number;
  day: string;
  affiliate_id: number;
  /** The daemon that wrote it (repositories/counterShard.ts): a day's counters are the sum of its shards. */
  shard: number;
  page_views: number;
  leads: number;
  conversions: number;
  revenue_cents: number;
  commission_cents: number;
}
