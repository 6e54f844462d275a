import type { DbDate } from './rows.js';

/** One click on a referral link (docs/analytics.md). */
export interface ClickRow {
  id: string;
  campaign_id: number;
  affiliate_id: number;
  created_at: DbDate;
  /** 0/1 on both engines. */
  bot: boolean | number;
  device: string;
  browser: string;
  os: string;
  country: string | null;
  referrer: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
  /** True until the fold has added the click to the rollup (0/1 on both engines). */
  rollup_pending: boolean | number;
}

/** One row of the analytics rollup (docs/analytics.md). */
export interface AnalyticsHourlyRow {
  campaign_id: number;
  /** Whole hours since 1970-01-01T00:00Z; a UTC day's row: 1,000,000,000 + whole days. */
  hour: number;
  affiliate_id: number;
  dims: string;
  shard: number;
  device: string;
  country: string;
  referrer: string;
  utm_source: string;
  clicks: number;
  bot_clicks: number;
  page_views: number;
  leads: number;
  conversions: number;
  revenue_cents: number;
  commission_cents: number;
}

/** A customer's first and last click in a campaign (docs/analytics.md). */
export interface CustomerClickRow {
  campaign_id: number;
  customer_key: string;
  first_click_id: string;
  last_click_id: string;
}
