import { z } from 'zod';
import { idQuery, isoDate, money, paginationFields, paginationQuery } from './common.js';

/**
 * Where a clawback stands (docs/payouts.md#refunds-and-clawbacks): `waiting` until the payout that
 * held the commission is paid, `owed` once it is, `netting` while a pending payout nets it,
 * `settled` once that payout is paid; `void` when the payout that held it failed (the money never
 * left).
 */
export const CLAWBACK_STATUSES = ['waiting', 'owed', 'netting', 'settled', 'void'] as const;
export type ClawbackStatus = (typeof CLAWBACK_STATUSES)[number];

/** What a refund took off a commission that sat in a payout: owed back by the affiliate. */
export const clawbackSchema = z.object({
  id: z.number().int(),
  affiliateId: z.number().int(),
  conversionId: z.number().int(),
  /** The refunded order (a second-tier conversion's is its sale's). */
  orderId: z.string(),
  amount: money,
  currency: z.literal('BRL'),
  /** The payout the commission sat in. */
  payoutId: z.number().int(),
  /** The payout that nets it off, once one does. */
  nettedPayoutId: z.number().int().nullable(),
  status: z.enum(CLAWBACK_STATUSES),
  reason: z.string().nullable(),
  createdAt: isoDate,
});
export type Clawback = z.infer<typeof clawbackSchema>;

export const listClawbacksQuerySchema = z.strictObject({
  affiliateId: idQuery('Only this affiliate’s clawbacks (decimal digits)'),
  conversionId: idQuery('Only the clawbacks of this conversion (decimal digits)'),
  status: z.enum(CLAWBACK_STATUSES).optional(),
  ...paginationQuery,
});
export type ListClawbacksQuery = z.infer<typeof listClawbacksQuerySchema>;

export const clawbackListSchema = z.object({
  clawbacks: z.array(clawbackSchema),
  ...paginationFields,
  /** The sum of the listed clawbacks not settled or void (every page): what is still owed back. */
  owedAmount: money,
});
export type ClawbackList = z.infer<typeof clawbackListSchema>;
