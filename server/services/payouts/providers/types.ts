import type { PixKeyType } from '../../../../shared/payoutDetails.js';

/**
 * What the payout lifecycle hands a rail and gets back (docs/payouts-providers.md). A rail's
 * client speaks its provider's API; everything it answers is one of these shapes.
 */

export const PAYOUT_RAILS = ['pix', 'paypal', 'stripe'] as const;
export type PayoutRail = (typeof PAYOUT_RAILS)[number];

/** An amount in ISO 4217 minor units of its currency: centavos, cents, yen, fils. */
export interface MinorAmount {
  minor: number;
  currency: string;
}

/** Where the money goes, as each rail addresses an affiliate. */
export type Payee =
  | { rail: 'pix'; pixKey: string; pixKeyType: PixKeyType }
  | { rail: 'paypal'; email: string }
  | { rail: 'stripe'; account: string };

/** One payout to send, its idempotency reference derived from the payout (stable across retries). */
export interface PayoutIntent {
  reference: string;
  amount: MinorAmount;
  payee: Payee;
  /** Shown to the affiliate where the rail carries a text (Pix description, PayPal note). */
  description: string;
}

/**
 * One call's worth of intents and the reference of the call itself (PayPal's `sender_batch_id`).
 * Asaas and Stripe take one intent a call; the batch reference is then unused.
 */
export interface PayoutBatch {
  reference: string;
  intents: readonly PayoutIntent[];
}

/** What the daemon knows of a sent payout when it asks the provider what became of it. */
export interface SentPayout {
  reference: string;
  batchReference: string;
  /** When the intent was committed: Asaas is searched from that day on. */
  sentAt: Date;
  /** The provider's id of this payout (Asaas transfer, PayPal item, Stripe transfer), if an answer gave it. */
  providerId?: string;
  /** PayPal's `payout_batch_id`, if an answer gave it. */
  providerBatchId?: string;
}

/** Why a payout failed, in our words; `reason` keeps the provider's own. */
export type FailureCode =
  'currency_not_supported' | 'amount_not_payable' | 'insufficient_balance' | 'invalid_payee' | 'refused';

/**
 * A provider's word on one payout. `ambiguous`: no clear answer (a timeout, a 5xx, a network
 * error, a 429): the transfer may or may not exist, so the caller looks it up before any resend.
 */
export type ProviderOutcome =
  | { status: 'processing'; providerId: string; providerBatchId?: string }
  | { status: 'paid'; providerId: string; receipt: string; providerBatchId?: string }
  | { status: 'failed'; code: FailureCode; reason: string; providerId?: string }
  | { status: 'ambiguous'; reason: string };

/** A rail's credentials as `PUT /v1/payout-rails/{rail}` stores them (product contract §10). */
export type RailCredentials =
  | { rail: 'pix'; apiKey: string }
  | { rail: 'paypal'; clientId: string; clientSecret: string }
  | { rail: 'stripe'; secretKey: string };

export type CredentialsOf<R extends PayoutRail> = Extract<RailCredentials, { rail: R }>;

/**
 * One rail. `send` makes one call for the whole batch (at most `maxBatch` intents) and answers
 * one outcome per intent, in order. `lookup` asks what became of a sent payout: `unknown` means
 * the provider holds no transfer for its reference, so sending it again is safe.
 */
export interface PayoutProvider<R extends PayoutRail = PayoutRail> {
  readonly rail: R;
  readonly maxBatch: number;
  send(credentials: CredentialsOf<R>, batch: PayoutBatch): Promise<ProviderOutcome[]>;
  lookup(credentials: CredentialsOf<R>, sent: SentPayout): Promise<ProviderOutcome | 'unknown'>;
  /**
   * The same for the payouts of one batch, in one read where the provider lists a batch's items
   * (PayPal); absent: the caller looks them up one by one.
   */
  lookupAll?(credentials: CredentialsOf<R>, sent: readonly SentPayout[]): Promise<Array<ProviderOutcome | 'unknown'>>;
}
