import { z } from 'zod';
import type { FailureCode, ProviderOutcome } from '../types.js';

/** Shapes of the Payouts API (PayPal's `payments_payouts_batch_v1` OpenAPI document); only what the daemon reads. */

const money = z.object({ currency: z.string(), value: z.string() });

export const paypalError = z.object({
  name: z.string().optional(),
  message: z.string().optional(),
  details: z.array(z.object({ field: z.string().optional(), issue: z.string().optional() })).optional(),
  links: z.array(z.object({ href: z.string(), rel: z.string().optional() })).optional(),
});
export type PayPalError = z.infer<typeof paypalError>;

/** The create answer (`201`): the batch header only; items are known once PayPal lists them. */
export const createdBatch = z.object({
  batch_header: z.object({ payout_batch_id: z.string().min(1), batch_status: z.string() }),
});

export const payoutItem = z.object({
  payout_item_id: z.string().min(1),
  transaction_id: z.string().nullish(),
  transaction_status: z.string().optional(),
  payout_batch_id: z.string(),
  sender_batch_id: z.string().optional(),
  payout_item: z.object({
    sender_item_id: z.string().optional(),
    amount: money.optional(),
    receiver: z.string().optional(),
  }),
  errors: paypalError.nullish(),
});
export type PayoutItem = z.infer<typeof payoutItem>;

/** `GET /v1/payments/payouts/{id}`: the batch with a page of its items. */
export const batchDetails = z.object({
  batch_header: z.object({ payout_batch_id: z.string(), batch_status: z.string() }),
  items: z.array(payoutItem).default([]),
  total_pages: z.number().optional(),
});

/** A webhook event (`PAYMENT.PAYOUTS-ITEM.*` carries the item; `PAYMENT.PAYOUTSBATCH.*` only the batch header). */
export const paypalEvent = z.object({
  id: z.string().optional(),
  event_type: z.string(),
  resource: z.unknown(),
});

export const batchResource = z.object({
  batch_header: z.object({
    payout_batch_id: z.string(),
    batch_status: z.string(),
    sender_batch_header: z.object({ sender_batch_id: z.string() }).optional(),
  }),
});

/** PayPal's error names in our words. */
export function failureCodeOf(name: string | undefined): FailureCode {
  if (name === 'INSUFFICIENT_FUNDS') return 'insufficient_balance';
  if (name?.startsWith('RECEIVER_')) return 'invalid_payee';
  if (name === 'CURRENCY_NOT_ALLOWED' || name === 'UNSUPPORTED_PAYEE_CURRENCY') return 'currency_not_supported';
  return 'refused';
}

/** `name: message`, or whichever the error has. */
export const describe = (error: PayPalError | null | undefined, fallback: string): string =>
  [error?.name, error?.message].filter(Boolean).join(': ') || fallback;

const PROCESSING = new Set(['PENDING', 'UNCLAIMED', 'ONHOLD']);

/**
 * An item's `transaction_status` in our terms: `SUCCESS` is paid (receipt: the transaction id);
 * `PENDING`, `ONHOLD` and `UNCLAIMED` (an e-mail with no PayPal account: the money waits 30 days
 * for a sign-up, then comes back `RETURNED`) are still processing; the rest failed.
 */
export function outcomeOfItem(item: PayoutItem): ProviderOutcome {
  const status = item.transaction_status ?? 'PENDING';
  const ids = { providerId: item.payout_item_id, providerBatchId: item.payout_batch_id };
  if (status === 'SUCCESS' && item.transaction_id) return { status: 'paid', receipt: item.transaction_id, ...ids };
  if (PROCESSING.has(status) || status === 'SUCCESS') return { status: 'processing', ...ids };
  return {
    status: 'failed',
    code: failureCodeOf(item.errors?.name),
    reason: describe(item.errors, `PayPal item ${status}`),
    providerId: item.payout_item_id,
  };
}
