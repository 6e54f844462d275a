import { z } from 'zod';
import { money } from './common.js';

/** A day of the report's range: `2026-11-01`, or an ISO 8601 date-time whose UTC day is taken. */
const reportDay = z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
  error: 'must be a valid ISO 8601 date (YYYY-MM-DD)',
});

export const affiliateReportQuerySchema = z.strictObject({
  from: reportDay.optional(),
  to: reportDay.optional(),
});
export type AffiliateReportQuery = z.infer<typeof affiliateReportQuerySchema>;

const counts = {
  pageViews: z.number().int(),
  leads: z.number().int(),
  /** Conversions received, whatever their status since. */
  conversions: z.number().int(),
  /** conversions ÷ pageViews, to four decimals; null without page views. */
  conversionRate: z.number().nullable(),
  /** Sum of the conversions' order values, BRL. */
  revenue: money,
  /** Sum of the commissions computed for them at intake, BRL. */
  commissions: money,
};

export const affiliateReportRowSchema = z.object({
  affiliateId: z.number().int(),
  referralId: z.string(),
  name: z.string().nullable(),
  ...counts,
});
export type AffiliateReportRow = z.infer<typeof affiliateReportRowSchema>;

export const affiliateReportSchema = z.object({
  /** First and last day of the range (UTC), both included. */
  from: z.string(),
  to: z.string(),
  affiliates: z.array(affiliateReportRowSchema),
  totals: z.object(counts),
});
export type AffiliateReport = z.infer<typeof affiliateReportSchema>;
