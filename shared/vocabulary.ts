/**
 * The fixed words and numbers of the API, without zod: the schemas build on them, and the CLI
 * declares its options with them without loading zod (so `affiliated --help` stays fast).
 */
export const AFFILIATE_STATUSES = ['pending', 'active', 'inactive'] as const;
/** spec §3.2. */
export const CONVERSION_STATUSES = ['pending', 'approved', 'rejected', 'paid'] as const;
/** `processing`: sent on a payout rail, the provider's word not yet in (docs/payouts.md). */
export const PAYOUT_STATUSES = ['pending', 'processing', 'paid', 'failed'] as const;
/** The rails the daemon pays on (docs/payouts-providers.md), and a campaign's payout schedule. */
export const PAYOUT_RAIL_NAMES = ['pix', 'paypal', 'stripe'] as const;
/** A payout run's life (docs/payouts.md#payout-runs); `dry_run` and `empty` are answers only, never stored. */
export const PAYOUT_RUN_STATUSES = ['dry_run', 'empty', 'creating', 'sending', 'sent', 'awaiting_approval'] as const;
/** Why a payout run leaves an affiliate out (docs/payouts.md#payout-runs). */
export const PAYOUT_RUN_LEFT_OUT = [
  'below_minimum',
  'no_payout_details',
  'rail_not_connected',
  'currency_not_supported',
  'amount_not_payable',
] as const;
/** When the daemon runs a campaign's payouts by itself (docs/payouts.md#payout-runs). */
export const PAYOUT_SCHEDULES = ['manual', 'weekly', 'monthly'] as const;
export const EVENT_TYPES = ['conversion', 'lead', 'page_view'] as const;
/** At most this many events a request (spec §10.6). */
export const MAX_EVENTS_PER_REQUEST = 1000;
/** A commission rule's rate: a percent of the order value, or a fixed amount per conversion. */
export const COMMISSION_TYPES = ['percent', 'fixed'] as const;
/** Largest fixed commission, BRL (stored as hundredths in an unsigned 32-bit column). */
export const MAX_FIXED_COMMISSION = 10_000_000;
/** Product rules of one campaign or group, at most. */
export const MAX_PRODUCT_RULES = 100;
/** Longest recurring window: ten years of monthly payments. */
export const MAX_RECURRING_MONTHS = 120;
/** Longest hold period: ten years. */
export const MAX_AUTO_APPROVE_DAYS = 3650;
/** A page holds at most this many rows (spec §4.1). */
export const MAX_PAGE_SIZE = 100;
/** The events an endpoint may subscribe to; `webhook.test` is sent on request, whatever it subscribes to. */
export const WEBHOOK_EVENT_TYPES = [
  'affiliate.created',
  'affiliate.updated',
  'affiliate.deleted',
  'affiliate.applied',
  'affiliate.approved',
  'conversion.created',
  'conversion.approved',
  'conversion.rejected',
  'conversion.paid',
  'conversion.refunded',
  'payout.created',
  'payout.paid',
  'payout.failed',
  // Last: added with payout rails, after the list older clients and messages knew.
  'payout.processing',
] as const;
export const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
/** Billing providers whose webhooks the daemon receives (docs/integrations.md). */
export const BILLING_PROVIDERS = ['stripe', 'paddle'] as const;
/** What became of a provider's event: the receiving route's `outcome`, and the log's. */
export const BILLING_OUTCOMES = [
  'conversion_created',
  'refund_applied',
  'refund_pending',
  'customer_bound',
  'duplicate',
  'skipped',
  'ignored',
] as const;
/** Coupon codes: letters, digits, `-` and `_`, 2 to 64 characters. */
export const COUPON_CODE_PATTERN = '^[A-Za-z0-9_-]{2,64}$';

/**
 * What operators type into names, ids and limits, bounded by what the columns hold on every
 * engine (MariaDB refuses a longer name or a larger number, SQLite would keep it): the CLI
 * refuses more as a usage error, the services as a validation error, before the database sees it.
 * Lengths are in characters, as MySQL counts them.
 */
export const OPERATOR_LIMITS = {
  campaignName: 200,
  keyName: 100,
  planName: 64,
  /** Public ids are 3 to this many letters, digits, `-` and `_`. */
  publicId: 64,
  /** Browsers keep a cookie at most 400 days (Chrome, Firefox). */
  cookieDays: 400,
  /** A plan's maximum affiliates or monthly conversions. */
  planLimit: 1_000_000_000,
} as const;

/** Characters as a database column counts them (code points, not UTF-16 units). */
export const characters = (text: string): number => [...text].length;
/** The affiliate portal's campaign settings (docs/portal.md). */
export const SIGNUP_MODES = ['open', 'closed'] as const;
/** docs/analytics.md: what a series can count (bots' clicks apart from people's), its points, its groups. */
export const ANALYTICS_METRICS = [
  'clicks',
  'bot_clicks',
  'page_views',
  'leads',
  'conversions',
  'revenue',
  'commissions',
] as const;
export const ANALYTICS_INTERVALS = ['hour', 'day', 'month'] as const;
export const ANALYTICS_GROUPS = ['affiliate', 'device', 'country', 'referrer', 'utm_source'] as const;

/** docs/analytics.md: which of a customer's clicks a lead or sale counts for. */
export const ATTRIBUTION_MODELS = ['last_click', 'first_click'] as const;
export type AttributionModel = (typeof ATTRIBUTION_MODELS)[number];

export const APPROVAL_MODES = ['manual', 'auto'] as const;
/** How an affiliate is paid, and the kinds of Pix key (docs/portal.md). */
export const PAYOUT_METHODS = ['pix', 'paypal', 'stripe'] as const;
export const PIX_KEY_TYPES = ['cpf', 'cnpj', 'email', 'phone', 'random'] as const;
/** Flags the daemon sets on an affiliate. */
export const AFFILIATE_FLAGS = ['duplicate_payout_identity'] as const;
/** The mails the daemon sends (docs/portal.md). */
export const MAIL_KINDS = [
  'application_received',
  'application_approved',
  'password_reset',
  'portal_invite',
  'payout_paid',
  'dashboard_invitation',
] as const;
/** The merchant dashboard's roles, most powerful first (docs/dashboard.md#users-and-roles). */
export const DASHBOARD_ROLES = ['owner', 'admin', 'viewer'] as const;
export const MAIL_STATUSES = ['pending', 'sent', 'failed'] as const;

/** Who made a change the audit log records (docs/audit.md): an API key, the operator CLI, a dashboard user, scheduled work. */
export const AUDIT_ACTOR_TYPES = ['key', 'operator', 'user', 'system'] as const;
/** What the audit log records, as `<target type>.<verb>` (docs/audit.md). */
export const AUDIT_ACTIONS = [
  'affiliate.create',
  'affiliate.update',
  'affiliate.delete',
  'affiliate.approve',
  'conversion.approve',
  'conversion.reject',
  'refund.create',
  'payout.create',
  'payout.mark_paid',
  'payout.mark_failed',
  'payout.send',
  'payout_run.start',
  'payout_run.approve',
  'payout_rail.set',
  'payout_rail.remove',
  'group.create',
  'group.update',
  'group.delete',
  'webhook.create',
  'webhook.update',
  'webhook.delete',
  'webhook.rotate_secret',
  'webhook.retry_delivery',
  'webhook.test',
  'integration.configure',
  'integration.remove',
  'coupon.create',
  'coupon.delete',
  'key.create',
  'key.revoke',
  'campaign.create',
  'campaign.update',
  'plan.create',
  'user.create',
  'user.invite',
  'user.change_role',
  'user.remove',
  'user.reset_2fa',
  'user.add_passkey',
  'user.remove_passkey',
  'affiliate.invite',
] as const;
/** The kinds of thing an audit row names as its target: the first word of its action. */
export const AUDIT_TARGET_TYPES = [
  'affiliate',
  'conversion',
  'refund',
  'payout',
  'payout_rail',
  'payout_run',
  'group',
  'webhook',
  'integration',
  'coupon',
  'key',
  'campaign',
  'plan',
  'user',
] as const;
