import { z } from 'zod';
import { PAYOUT_RAIL_NAMES, PAYOUT_RUN_LEFT_OUT, PAYOUT_RUN_STATUSES } from '../vocabulary.js';
import { currencyCode, idParams, isoDate, money } from './common.js';
import { payoutStatus } from './payout.js';

export { PAYOUT_RUN_LEFT_OUT, PAYOUT_RUN_STATUSES };
export type PayoutRunStatus = (typeof PAYOUT_RUN_STATUSES)[number];
export type LeftOutReason = (typeof PAYOUT_RUN_LEFT_OUT)[number];

/** `POST /v1/payout-runs`: without `rail`, every rail; `dryRun` answers the same list and creates nothing. */
export const startPayoutRunSchema = z.strictObject({
  dryRun: z.boolean().optional().meta({ description: 'List who would be paid and who is left out; create nothing' }),
  rail: z
    .enum(PAYOUT_RAIL_NAMES)
    .optional()
    .meta({ description: 'Only affiliates paid on this rail; the others are neither paid nor listed' }),
});
export type StartPayoutRunInput = z.infer<typeof startPayoutRunSchema>;

/** One affiliate the run pays: in a dry run, what it would create (`payoutId` and `status` null). */
export const payoutRunLineSchema = z.object({
  affiliateId: z.number().int(),
  affiliateName: z.string().nullable(),
  affiliateEmail: z.string(),
  rail: z.enum(PAYOUT_RAIL_NAMES),
  amount: money,
  payoutId: z.number().int().nullable(),
  status: payoutStatus.nullable(),
});
export type PayoutRunLine = z.infer<typeof payoutRunLineSchema>;

/** An affiliate with approved commission the run does not pay, and why (the message says what to do). */
export const payoutRunLeftOutSchema = z.object({
  affiliateId: z.number().int(),
  affiliateName: z.string().nullable(),
  affiliateEmail: z.string(),
  amount: money,
  reason: z.enum(PAYOUT_RUN_LEFT_OUT),
  message: z.string(),
});
export type PayoutRunLeftOut = z.infer<typeof payoutRunLeftOutSchema>;

export const payoutRunSchema = z.object({
  /** The run's id; null for a dry run or a run that created nothing. */
  id: z.number().int().nullable(),
  status: z.enum(PAYOUT_RUN_STATUSES),
  rail: z.enum(PAYOUT_RAIL_NAMES).nullable(),
  currency: currencyCode,
  /** The sum of `payouts`' amounts. */
  total: money,
  payouts: z.array(payoutRunLineSchema),
  leftOut: z.array(payoutRunLeftOutSchema),
  createdAt: isoDate.nullable(),
});
export type PayoutRun = z.infer<typeof payoutRunSchema>;

export const payoutRunParams = idParams;
