import { z } from 'zod';
import { currencyCode, idQuery, isoDate, money, paginationFields, paginationQuery } from './common.js';

import { PAYOUT_METHODS, PAYOUT_RAIL_NAMES, PAYOUT_STATUSES, PIX_KEY_TYPES } from '../vocabulary.js';

export { PAYOUT_STATUSES };
export const payoutStatus = z.enum(PAYOUT_STATUSES);
export type PayoutStatus = z.infer<typeof payoutStatus>;

/** Affiliates a bulk payout request may name. */
export const MAX_BULK_PAYOUTS = 1000;

export const payoutSchema = z.object({
  id: z.number().int(),
  affiliateId: z.number().int(),
  /** Who is paid: what a bank or PayPal mass-payment file needs. */
  affiliateName: z.string().nullable(),
  affiliateEmail: z.string(),
  /** Where to send it: the affiliate's payout details as they are now (null until set in the portal). */
  payoutMethod: z.enum(PAYOUT_METHODS).nullable(),
  pixKeyType: z.enum(PIX_KEY_TYPES).nullable(),
  payoutAccount: z.string().nullable(),
  /** What is transferred: `commissionAmount - clawbackAmount`. */
  amount: money,
  /** Commissions of the conversions the payout covers. */
  commissionAmount: money,
  /** Clawbacks of earlier refunds netted off this payout. */
  clawbackAmount: money,
  /** The campaign's currency (ISO 4217), which every amount of the payout is in. */
  currency: currencyCode,
  status: payoutStatus,
  conversionIds: z.array(z.number().int()),
  createdAt: isoDate,
  paidAt: isoDate.nullable(),
  failedAt: isoDate.nullable(),
  /** The rail it was sent on (docs/payouts.md); null for a payout settled by hand. */
  rail: z.enum(PAYOUT_RAIL_NAMES).nullable(),
  /** The idempotency reference every call to the provider carried. */
  reference: z.string().nullable(),
  /** The provider's proof of payment: the Pix end-to-end id, the PayPal transaction id or the Stripe transfer id. */
  receipt: z.string().nullable(),
  /** Why the provider did not pay, in its words. */
  failureReason: z.string().nullable(),
});
export type Payout = z.infer<typeof payoutSchema>;

export const listPayoutsQuerySchema = z.strictObject({
  affiliateId: idQuery('Only this affiliate’s payouts (decimal digits)'),
  status: payoutStatus.optional(),
  ...paginationQuery,
});
export type ListPayoutsQuery = z.infer<typeof listPayoutsQuerySchema>;

export const payoutListSchema = z.object({ payouts: z.array(payoutSchema), ...paginationFields });
export type PayoutList = z.infer<typeof payoutListSchema>;

export const createPayoutSchema = z.strictObject({ affiliateId: z.number().int().min(1) });

/** Without `affiliateIds`: every affiliate with approved commission not yet in a payout. */
export const bulkCreatePayoutsSchema = z.strictObject({
  affiliateIds: z.array(z.number().int().min(1)).min(1).max(MAX_BULK_PAYOUTS).optional(),
});

export const bulkCreatePayoutsResponseSchema = z.object({
  created: z.array(payoutSchema),
  /** Affiliates that got no payout, with the error the single request would have answered. */
  skipped: z.array(z.object({ affiliateId: z.number().int(), statusCode: z.number().int(), message: z.string() })),
});
export type BulkCreatePayoutsResponse = z.infer<typeof bulkCreatePayoutsResponseSchema>;

export const updatePayoutSchema = z.strictObject({ status: z.enum(['paid', 'failed']) });
export type UpdatePayoutInput = z.infer<typeof updatePayoutSchema>;
