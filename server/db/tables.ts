import type {
  AffiliateDailyStatsRow,
  AffiliateGroupRow,
  AffiliateRow,
  ApiKeyRow,
  CampaignCustomerRow,
  CampaignRow,
  ClawbackRow,
  ConversionRow,
  MonthlyUsageRow,
  AffiliateCountShardRow,
  PayoutConversionRow,
  PayoutRow,
  PayoutRunRow,
  PlanRow,
  RefundRow,
  TrackingEventRow,
} from './rows.js';
import type {
  WebhookAttemptRow,
  WebhookDeliveryRow,
  WebhookEndpointRow,
  WebhookMessageRow,
  WebhookRetiredSecretRow,
  WebhookSettingRow,
  WebhookSubscriptionRow,
} from './webhookRows.js';
import type {
  AffiliateCouponRow,
  BillingCustomerRow,
  BillingEventRow,
  BillingHeldPaymentRow,
  BillingIntegrationRow,
  BillingOrderRow,
  BillingPendingRefundRow,
} from './billingRows.js';
import type {
  MailOutboxRow,
  PortalCounterRow,
  PortalLoginSlotRow,
  PortalResetTokenRow,
  PortalSessionRow,
} from './portalRows.js';
import type { AuditLogRow } from './auditRows.js';
import type {
  DashboardRecoveryCodeRow,
  DashboardPasskeyRow,
  DashboardSessionRow,
  DashboardTokenRow,
  DashboardUserRow,
} from './dashboardRows.js';
import type { AnalyticsHourlyRow, ClickRow, CustomerClickRow } from './analyticsRows.js';

/**
 * Knex's table map (its documented `knex/types/tables` augmentation, `.js` under ESM resolution): `db('affiliates')` is typed
 * with the row, so a misspelt column or a wrong value type fails to compile in a repository.
 */
declare module 'knex/types/tables.js' {
  interface Tables {
    plans: PlanRow;
    campaigns: CampaignRow;
    api_keys: ApiKeyRow;
    affiliates: AffiliateRow;
    tracking_events: TrackingEventRow;
    conversions: ConversionRow;
    payouts: PayoutRow;
    payout_runs: PayoutRunRow;
    monthly_usage: MonthlyUsageRow;
    affiliate_count_shards: AffiliateCountShardRow;
    webhook_endpoints: WebhookEndpointRow;
    webhook_messages: WebhookMessageRow;
    webhook_deliveries: WebhookDeliveryRow;
    webhook_attempts: WebhookAttemptRow;
    webhook_settings: WebhookSettingRow;
    webhook_subscriptions: WebhookSubscriptionRow;
    webhook_retired_secrets: WebhookRetiredSecretRow;
    affiliate_daily_stats: AffiliateDailyStatsRow;
    payout_conversions: PayoutConversionRow;
    clawbacks: ClawbackRow;
    portal_sessions: PortalSessionRow;
    portal_reset_tokens: PortalResetTokenRow;
    portal_counters: PortalCounterRow;
    portal_login_slots: PortalLoginSlotRow;
    mail_outbox: MailOutboxRow;
    dashboard_users: DashboardUserRow;
    dashboard_sessions: DashboardSessionRow;
    dashboard_tokens: DashboardTokenRow;
    dashboard_recovery_codes: DashboardRecoveryCodeRow;
    dashboard_passkeys: DashboardPasskeyRow;
    affiliate_groups: AffiliateGroupRow;
    campaign_customers: CampaignCustomerRow;
    refunds: RefundRow;
    billing_integrations: BillingIntegrationRow;
    billing_events: BillingEventRow;
    affiliate_coupons: AffiliateCouponRow;
    billing_customers: BillingCustomerRow;
    billing_orders: BillingOrderRow;
    billing_pending_refunds: BillingPendingRefundRow;
    billing_held_payments: BillingHeldPaymentRow;
    audit_log: AuditLogRow;
    clicks: ClickRow;
    customer_clicks: CustomerClickRow;
    analytics_hourly: AnalyticsHourlyRow;
  }
}
