/**
 * What a provider's event means to the daemon, whatever the provider (docs/integrations.md): one
 * internal shape that the ledger stores. Amounts stay in the provider's smallest unit, as
 * integer text, until the campaign's currency converts them.
 */
import type { BILLING_PROVIDERS } from '../../../shared/vocabulary.js';

export type BillingProvider = (typeof BILLING_PROVIDERS)[number];

/** What may name the affiliate of a payment, in the order the contract tries them. */
export interface Attribution {
  /** Referral codes: Stripe `client_reference_id`, then `metadata.affiliated_ref`; Paddle `custom_data.affiliated_ref`. */
  referralCodes: string[];
  /** Stripe coupon and promotion-code ids, Paddle discount ids. */
  couponCodes: string[];
  /** The provider's customer id, for the binding. */
  customerId: string | null;
}

export interface ProviderPayment {
  /** The conversion's `order_id`. */
  orderId: string;
  /** Every id the provider may later name this sale by, the order id first (a refund finds it so). */
  references: string[];
  /** What earns commission, in the currency's smallest unit (tax already taken out). */
  amountMinor: string;
  /** ISO 4217, upper case. */
  currency: string;
  /** A subscription's renewal rather than its first payment. */
  renewal: boolean;
  attribution: Attribution;
  /** The provider's product: its name where the payload carries it, else its id (`properties.product`). */
  product?: string;
  /** The provider's product id (`properties.product_id`): product rules match it as they match the name. */
  productId?: string;
  customerEmail?: string;
}

export interface ProviderRefund {
  /** The ids of the refunded sale, most specific first. */
  references: string[];
  /** Refunded, in the smallest unit: Stripe's `amount_refunded` (every refund of the charge so far), or one Paddle adjustment. */
  refundedMinor: string;
  /** The amount it is a part of, when the event says (a Stripe charge's `amount`); else the conversion's order value. */
  ofMinor: string | null;
  currency: string;
  /** The provider says the whole sale was refunded. */
  full: boolean;
  /**
   * `refundedMinor` is every refund of the sale so far (Stripe's `amount_refunded`), not this
   * refund alone (a Paddle adjustment): what is new is the part above what the sale has refunded.
   */
  cumulative: boolean;
  /** Names this refund, or this state of the sale's refunds: the same key twice refunds once. */
  refundKey: string;
}

interface Envelope {
  /** The provider's event id: stored once per campaign. */
  id: string;
  type: string;
  occurredAt: Date;
  /** Stripe's `livemode`; null where the provider does not say (Paddle: one secret per environment). */
  livemode: boolean | null;
}

export type ProviderEvent = Envelope &
  (
    | { kind: 'ignored' }
    /** A type we use whose payload lacks what we read: kept in the log, never a 500. */
    | { kind: 'unreadable'; missing: string }
    /** A customer that a checkout attributes, without a payment to count (subscriptions start so). */
    | { kind: 'binding'; attribution: Attribution }
    | { kind: 'payment'; payment: ProviderPayment }
    | { kind: 'refund'; refund: ProviderRefund }
  );

/** Readers of untrusted JSON: what a field holds if it has the expected type, else undefined. */
export type Json = Record<string, unknown>;

export function objectAt(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

export function textAt(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= 255 ? value : undefined;
}

/** An id field that may be expanded into its object (Stripe): the id either way. */
export function idAt(value: unknown): string | undefined {
  return textAt(value) ?? textAt(objectAt(value)?.id);
}

/** A whole number as Stripe sends it (a JSON integer) or Paddle does (decimal text), as text. */
export function amountAt(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
  return typeof value === 'string' && /^-?\d{1,30}$/.test(value) ? value : undefined;
}

export function arrayAt(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A payment's product fields: the name where known, else the id; the id on its own. */
export function productOf(
  id: string | undefined,
  name: string | undefined,
): Pick<ProviderPayment, 'product' | 'productId'> {
  const product = name ?? id;
  return { ...(product !== undefined && { product }), ...(id !== undefined && { productId: id }) };
}

/** Present strings, each once, in order. */
export function distinct(values: readonly (string | undefined)[]): string[] {
  return [...new Set(values.filter((value): value is string => value !== undefined))];
}

/** Earliest and latest times the database keeps (spec §2.2's bounds on `timestamp`). */
const EARLIEST = Date.parse('1000-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** When the provider says the event happened; its arrival when that is missing or out of range. */
export function eventTime(ms: number | undefined, arrival: Date): Date {
  return ms !== undefined && Number.isFinite(ms) && ms >= EARLIEST && ms <= LATEST ? new Date(ms) : arrival;
}
