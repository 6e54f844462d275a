import { z } from 'zod';
import { PUBLIC_ID } from './campaign.js';

/** `GET /v1/sdk/referrals/{code}`: what the tracking script needs to know about a code. */
export const referralLookupQuerySchema = z.strictObject({
  campaign: z.string().min(1).max(64).meta({
    pattern: PUBLIC_ID.source,
    description: "An existing campaign's public id (a rule of the data, not of the schema: an unknown one is 400)",
  }),
});

export const referralLookupSchema = z.object({
  /** The code as the affiliate has it, when it is an active affiliate's code in the campaign. */
  referralId: z.string().nullable(),
  active: z.boolean(),
  /** How long the browser keeps the code (the campaign's setting). */
  cookieDays: z.number().int(),
});
export type ReferralLookup = z.infer<typeof referralLookupSchema>;

/** `GET /v1/sdk/referrals/{code}`: any text reaches the service, which treats a malformed code as no code. */
export const referralLookupParamsSchema = z.object({
  // Never empty: a path segment the router matched.
  code: z
    .string()
    .min(1)
    .meta({ description: 'A referral code as a link carried it; any other text is simply not active' }),
});

/**
 * The tracking script's body: its JavaScript source, sent as is or gzip-compressed (bytes). Typed
 * as a string in the OpenAPI document, where it is `application/javascript`.
 */
export const trackerScriptSchema = z
  .custom<string | Uint8Array>((value) => typeof value === 'string' || value instanceof Uint8Array)
  .meta({ type: 'string', description: 'The tracking script (JavaScript)' });
