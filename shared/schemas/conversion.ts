import { z } from 'zod';
import { isoDate, money, paginationFields, paginationQuery, trimmedText } from './common.js';

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

const positiveId = z.coerce.number().int().min(1);

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
});
export type Conversion = z.infer<typeof conversionSchema>;

export const listConversionsQuerySchema = z.strictObject({
  status: conversionStatus.optional(),
  affiliateId: positiveId.optional(),
  orderId: z.string().min(1).max(255).optional(),
  /** createdAt from, and up to, both included; a date is its whole UTC day (shared/dateRange.ts). */
  from: instant.optional(),
  to: instant.optional(),
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

export const refundSchema = z.strictObject({
  order_id: trimmedText(255),
  reason: trimmedText(500).optional(),
});
export type RefundInput = z.infer<typeof refundSchema>;
