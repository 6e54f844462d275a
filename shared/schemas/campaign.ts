import { z } from 'zod';
import {
  APPROVAL_MODES,
  COMMISSION_TYPES,
  MAX_AUTO_APPROVE_DAYS,
  PAYOUT_SCHEDULES,
  SIGNUP_MODES,
} from '../vocabulary.js';
import { productRuleSchema, recurringSchema } from './commission.js';

export const planSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  maxAffiliates: z.number().int().nullable(),
  maxMonthlyConversions: z.number().int().nullable(),
});
export type Plan = z.infer<typeof planSchema>;

export { COMMISSION_TYPES };

/** The affiliate portal of the campaign (docs/portal.md). */
export const portalSettingsSchema = z.object({
  /** Served at `/portal/{publicId}/`; off by default. */
  enabled: z.boolean(),
  /** Whether people may apply through the portal's sign-up page. */
  signup: z.enum(SIGNUP_MODES),
  /** `manual`: a sign-up is `pending` until approved; `auto`: `active` at once. */
  approveAffiliates: z.enum(APPROVAL_MODES),
  /** Where the "application received" mail goes; null: no such mail. */
  contactEmail: z.string().nullable(),
  /** The shop's address, which referral links point to; null: affiliates are told to add `?ref=CODE`. */
  siteUrl: z.string().nullable(),
});
export type PortalSettings = z.infer<typeof portalSettingsSchema>;

export const campaignSchema = z.object({
  id: z.number().int(),
  publicId: z.string(),
  name: z.string(),
  plan: z.string(),
  commissionType: z.enum(COMMISSION_TYPES),
  /** percent: 10 means 10 %; fixed: BRL per conversion. */
  commissionValue: z.number(),
  cookieDays: z.number().int(),
  /** Hold period: pending conversions older than this many days are approved; null: by hand. */
  autoApproveDays: z.number().int().nullable(),
  /** Smallest payout in BRL (0: any amount). */
  payoutMinimum: z.number(),
  /** When the daemon runs the payouts by itself (docs/payouts.md#payout-runs): `manual` never. */
  payoutSchedule: z.enum(PAYOUT_SCHEDULES),
  /** A payout run whose total is above this waits for a second person's approval; null: none. */
  payoutApprovalAbove: z.number().nullable(),
  /** Which payments of a customer earn, unless the affiliate's group says otherwise (docs/commissions.md). */
  recurring: recurringSchema,
  /** Percent of a child's commission its parent earns, unless the parent's group says otherwise; 0: none. */
  secondTierPercent: z.number(),
  /** The campaign's product rules. */
  products: z.array(productRuleSchema),
  /** ISO 4217 code of the campaign's money: billing providers' amounts in another currency are skipped. */
  currency: z.string(),
  portal: portalSettingsSchema,
  createdAt: z.string(),
});
export type Campaign = z.infer<typeof campaignSchema>;

export const campaignUsageSchema = campaignSchema.extend({
  limits: z.object({
    maxAffiliates: z.number().int().nullable(),
    maxMonthlyConversions: z.number().int().nullable(),
  }),
  usage: z.object({ month: z.string(), affiliates: z.number().int(), conversions: z.number().int() }),
});
export type CampaignWithUsage = z.infer<typeof campaignUsageSchema>;

export { MAX_AUTO_APPROVE_DAYS };

export const PUBLIC_ID = /^[A-Za-z0-9_-]{3,64}$/;

export const apiKeySchema = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  campaignId: z.number().int(),
  prefix: z.string(),
  lastFour: z.string(),
  status: z.enum(['active', 'revoked']),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type ApiKeyInfo = z.infer<typeof apiKeySchema>;
