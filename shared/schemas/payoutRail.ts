import { z } from 'zod';
import { PAYOUT_RAIL_NAMES } from '../vocabulary.js';
import { isoDate } from './common.js';

export { PAYOUT_RAIL_NAMES };
export const payoutRailName = z.enum(PAYOUT_RAIL_NAMES);
export type PayoutRailName = z.infer<typeof payoutRailName>;

export const railParams = z.strictObject({
  rail: payoutRailName.meta({ description: 'The payout rail: `pix` (Asaas), `paypal` or `stripe`' }),
});

/**
 * A provider credential: printable ASCII, spelt as a range, because `\S` is not one set in every
 * regex dialect (JavaScript's counts U+00A0 as a space, an ASCII-only reading of the document's
 * pattern does not, so a fuzzer took such a key as valid). Providers' keys are ASCII.
 */
const required = (description: string) =>
  z
    .string()
    .regex(/^[!-~]{8,512}$/, {
      error: 'must be 8 to 512 printable ASCII characters without spaces (paste it as the provider shows it)',
    })
    .meta({ description: `${description}; stored encrypted, never shown again` });

const secret = (description: string) => required(description).optional();

/** Each rail's body (docs/payouts.md#payout-rails): what its provider's credentials are made of. */
export const putPixRailSchema = z.strictObject({
  apiKey: required('Asaas: the account’s API key (`$aact_…`)'),
  webhookToken: secret('The authentication token of the Asaas transfer webhook; without it callbacks are refused'),
});
export const putPayPalRailSchema = z.strictObject({
  clientId: required('PayPal: the REST app’s client id'),
  clientSecret: required('PayPal: the REST app’s secret'),
  webhookToken: secret('The id of the PayPal webhook; without it callbacks are refused'),
});
export const putStripeRailSchema = z.strictObject({
  secretKey: required('Stripe: the platform’s secret key (`sk_live_…`, `sk_test_…`)'),
});

/** Any rail's body, as the service takes it. */
export type PutPayoutRailInput = {
  apiKey?: string;
  clientId?: string;
  clientSecret?: string;
  secretKey?: string;
  webhookToken?: string;
};

export const payoutRailSchema = z.object({
  rail: payoutRailName,
  /** Where the provider posts its callbacks, under the daemon's public address; null for Stripe (none needed). */
  callbackPath: z.string().nullable(),
  /** Whether a webhook token is set: callbacks are refused without one. */
  hasWebhookToken: z.boolean(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type PayoutRail = z.infer<typeof payoutRailSchema>;

export const payoutRailListSchema = z.object({ rails: z.array(payoutRailSchema) });
export type PayoutRailList = z.infer<typeof payoutRailListSchema>;

/** What a provider's payout callback became: the payout moved, was already settled, stays processing, or none was named. */
export const PAYOUT_CALLBACK_OUTCOMES = ['paid', 'failed', 'processing', 'unchanged', 'lookup', 'ignored'] as const;
export const payoutCallbackReceiptSchema = z.object({
  received: z.literal(true),
  outcome: z.enum(PAYOUT_CALLBACK_OUTCOMES),
});
export type PayoutCallbackReceipt = z.infer<typeof payoutCallbackReceiptSchema>;
