import { z } from 'zod';

/** `GET /v1/sdk/referrals/{code}`: what the tracking script needs to know about a code. */
export const referralLookupQuerySchema = z.strictObject({ campaign: z.string().min(1).max(64) });

export const referralLookupSchema = z.object({
  /** The code as the affiliate has it, when it is an active affiliate's code in the campaign. */
  referralId: z.string().nullable(),
  active: z.boolean(),
  /** How long the browser keeps the code (the campaign's setting). */
  cookieDays: z.number().int(),
});
export type ReferralLookup = z.infer<typeof referralLookupSchema>;
