import type { DbDate } from './rows.js';

/** Column types of the billing-integration tables, as the repositories read and write them. */
export type BillingProviderName = 'stripe' | 'paddle';

export interface BillingIntegrationRow {
  id: number;
  campaign_id: number;
  provider: BillingProviderName;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: DbDate | null;
  created_at: DbDate;
  updated_at: DbDate;
}

export interface BillingEventRow {
  id: number;
  campaign_id: number;
  provider: BillingProviderName;
  event_id: string;
  event_type: string;
  outcome: string;
  reason: string | null;
  conversion_id: number | null;
  order_id: string | null;
  livemode: boolean | number | null;
  received_at: DbDate;
}

export interface AffiliateCouponRow {
  id: number;
  campaign_id: number;
  affiliate_id: number;
  code: string;
  code_key: string;
  created_at: DbDate;
}

export interface BillingCustomerRow {
  campaign_id: number;
  provider: BillingProviderName;
  customer_id: string;
  affiliate_id: number;
  bound_at: DbDate;
}

export interface BillingOrderRow {
  campaign_id: number;
  provider: BillingProviderName;
  reference: string;
  order_id: string;
  conversion_id: number;
}

export interface BillingHeldPaymentRow {
  id: number;
  campaign_id: number;
  provider: BillingProviderName;
  customer_id: string;
  event_id: string;
  payment: string;
  created_at: DbDate;
}

export interface BillingPendingRefundRow {
  id: number;
  campaign_id: number;
  provider: BillingProviderName;
  reference: string;
  event_id: string;
  refund: string;
  reason: string;
  created_at: DbDate;
}
