import { z } from 'zod';
import { commissionRuleSchema } from './commission.js';
import { idQuery, isoDate, money, paginationFields, paginationQuery, trimmedText } from './common.js';
import { MAX_ORDER_VALUE, MIN_ORDER_VALUE } from './orderValue.js';

import { CONVERSION_STATUSES } from '../vocabulary.js';

export { CONVERSION_STATUSES };
export const conversionStatus = z.enum(CONVERSION_STATUSES);
export type ConversionStatus = z.infer<typeof conversionStatus>;

/** What a merchant may set by hand; `paid` comes only through a payout (spec §10.9). */
export const SETTABLE_CONVERSION_STATUSES = ['approved', 'rejected'] as const;
export const settableConversionStatus = z.enum(SETTABLE_CONVERSION_STATUSES);
export type SettableConversionStatus = z.infer<typeof settableConversionStatus>;

/** Ids and filters in bulk requests: at most this many conversions a request. */
export const MAX_BULK_CONVERSIONS = 1000;

/** `2026-11-01` or `2026-11-01T12:00:00Z`: an instant, UTC midnight for a bare date. */
export const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()], {
  error: 'must be an ISO 8601 date or date-time',
});

/** A sale, or the commission a parent earns on its child's sale (docs/commissions.md#two-tiers). */
export const CONVERSION_KINDS = ['sale', 'second_tier'] as const;
export const conversionKind = z.enum(CONVERSION_KINDS);
export type ConversionKind = z.infer<typeof conversionKind>;

/** Fraud flags: `self_referral` when the customer's e-mail is the affiliate's own. */
export const CONVERSION_FLAGS = ['self_referral'] as const;
export type ConversionFlag = (typeof CONVERSION_FLAGS)[number];

export const conversionSchema = z.object({
  id: z.number().int(),
  affiliateId: z.number().int(),
  referralId: z.string(),
  orderId: z.string(),
  orderValue: money,
  commission: money,
  status: conversionStatus,
  payoutId: z.number().int().nullable(),
  occurredAt: isoDate,
  createdAt: isoDate,
  refundedAt: isoDate.nullable(),
  refundReason: z.string().nullable(),
  properties: z.record(z.string(), z.unknown()).nullable(),
  kind: conversionKind,
  /** For `second_tier`: the sale it was earned on (null if that sale's affiliate was deleted). */
  sourceConversionId: z.number().int().nullable(),
  commissionRule: commissionRuleSchema,
  flags: z.array(z.enum(CONVERSION_FLAGS)),
  /** The part of the order's value refunded so far, BRL. */
  refundedAmount: money,
});
export type Conversion = z.infer<typeof conversionSchema>;

export const listConversionsQuerySchema = z.strictObject({
  status: conversionStatus.optional(),
  affiliateId: idQuery('Only this affiliate’s conversions (decimal digits)'),
  orderId: z.string().min(1).max(255).optional(),
  /** The conversions a pending or paid payout holds. */
  payoutId: idQuery('Only the conversions of this payout (decimal digits)'),
  /** createdAt from, and up to, both included; a date is its whole UTC day (shared/dateRange.ts). */
  from: instant.optional(),
  to: instant.optional(),
  kind: conversionKind.optional(),
  /** `true`: only conversions with a fraud flag; `false`: only those without. */
  flagged: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    // What a client sends: a query boolean, `true` or `false`.
    .meta({ type: 'boolean', description: 'true: only conversions with a fraud flag; false: only those without' })
    .optional(),
  ...paginationQuery,
});
export type ListConversionsQuery = z.infer<typeof listConversionsQuerySchema>;

export const conversionListSchema = z.object({
  conversions: z.array(conversionSchema),
  ...paginationFields,
});
export type ConversionList = z.infer<typeof conversionListSchema>;

export const updateConversionSchema = z.strictObject({ status: settableConversionStatus });

/** Which pending conversions a bulk request acts on, oldest first. */
export const bulkFilterSchema = z.strictObject({
  status: z.literal('pending', { error: 'must be pending' }),
  /** createdAt before. */
  before: instant.optional(),
  affiliateId: z.number().int().min(1).optional(),
});

export const bulkUpdateConversionsSchema = z
  .strictObject({
    status: settableConversionStatus,
    ids: z.array(z.number().int().min(1)).min(1).max(MAX_BULK_CONVERSIONS).optional(),
    filter: bulkFilterSchema.optional(),
    /** With `filter`: how many conversions this request takes (default and maximum 1000). */
    limit: z.number().int().min(1).max(MAX_BULK_CONVERSIONS).optional(),
  })
  .superRefine((body, ctx) => {
    if ((body.ids === undefined) === (body.filter === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['ids'], message: 'or filter is required, but not both' });
    }
    if (body.limit !== undefined && body.filter === undefined) {
      ctx.addIssue({ code: 'custom', path: ['limit'], message: 'goes with filter only' });
    }
  })
  // The refinement above, as the document says it.
  .meta({ oneOf: [{ required: ['ids'] }, { required: ['filter'] }], dependentRequired: { limit: ['filter'] } });
export type BulkUpdateConversionsInput = z.infer<typeof bulkUpdateConversionsSchema>;

export const BULK_OUTCOMES = ['updated', 'unchanged', 'not_found', 'conflict'] as const;

export const bulkResultSchema = z.object({
  id: z.number().int(),
  outcome: z.enum(BULK_OUTCOMES),
  /** The conversion's status after the request; null when it was not found. */
  status: conversionStatus.nullable(),
  /** Why it could not change (not_found, conflict): the text the single PATCH would answer. */
  message: z.string().optional(),
});
export type BulkResult = z.infer<typeof bulkResultSchema>;

export const bulkUpdateConversionsResponseSchema = z.object({
  results: z.array(bulkResultSchema),
  updated: z.number().int(),
  unchanged: z.number().int(),
  failed: z.number().int(),
  /** With `filter`: how many matching conversions are left for another request; else null. */
  remaining: z.number().int().nullable(),
});
export type BulkUpdateConversionsResponse = z.infer<typeof bulkUpdateConversionsResponseSchema>;

/** A partial refund's amount: as an order value, and at most the order's (the service checks that). */
const refundAmount = z.number().min(MIN_ORDER_VALUE).max(MAX_ORDER_VALUE).meta({
  description:
    'Reais refunded of the order: above 0 (at least one centavo once rounded), at most its value; left out: the whole order',
});

export const refundSchema = z.strictObject({
  order_id: trimmedText(255),
  reason: trimmedText(500).optional(),
  amount: refundAmount.optional(),
  refund_id: z.string().min(1).max(128).optional().meta({
    description: 'Your id for this refund, unique per campaign (byte for byte): sent again, it changes nothing',
  }),
});
export type RefundInput = z.infer<typeof refundSchema>;
