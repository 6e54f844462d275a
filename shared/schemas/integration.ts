import { z } from 'zod';
import { BILLING_OUTCOMES, BILLING_PROVIDERS, COUPON_CODE_PATTERN } from '../vocabulary.js';
import { isoDate, paginationFields, paginationQuery } from './common.js';

export { BILLING_OUTCOMES, BILLING_PROVIDERS };

export const billingProvider = z.enum(BILLING_PROVIDERS);
export type BillingProviderName = z.infer<typeof billingProvider>;
export const billingOutcome = z.enum(BILLING_OUTCOMES);
export type BillingOutcome = z.infer<typeof billingOutcome>;

export const providerParams = z.strictObject({
  provider: billingProvider.meta({ description: 'The billing provider: `stripe` or `paddle`' }),
});

export const receivingParams = z.strictObject({
  campaignPublicId: z
    .string()
    .min(1)
    .max(255)
    .meta({ description: 'The campaign’s public id (`GET /v1/campaign`): an unknown one is 404' }),
});

/** What the provider's dashboard shows once: Stripe's `whsec_…`, Paddle's `pdl_ntfset_…` secret key. */
export const putIntegrationSchema = z.strictObject({
  signingSecret: z
    .string()
    // Printable ASCII, spelt as a range: `\S` is not one set in every regex dialect (JavaScript's
    // counts U+00A0 as a space, an ASCII-only reading of the document's pattern does not).
    .regex(/^[!-~]{8,255}$/, {
      error: 'must be 8 to 255 printable ASCII characters without spaces (paste the secret as shown)',
    })
    .meta({
      description: 'The endpoint’s signing secret from the provider’s dashboard; stored encrypted, never shown again',
    }),
});
export type PutIntegrationInput = z.infer<typeof putIntegrationSchema>;

export const integrationSchema = z.object({
  provider: billingProvider,
  /** The path to give the provider, under the daemon's public address. */
  receivePath: z.string(),
  /** The event types to enable in the provider's dashboard. */
  eventTypes: z.array(z.string()),
  createdAt: isoDate,
  updatedAt: isoDate,
  /** Until when the secret replaced by the last rotation still verifies; null without one. */
  previousSecretExpiresAt: isoDate.nullable(),
  lastEventAt: isoDate.nullable(),
  /** How many received events ended in each outcome. */
  outcomes: z.record(z.string(), z.number().int()),
});
export type Integration = z.infer<typeof integrationSchema>;

export const integrationListSchema = z.object({ integrations: z.array(integrationSchema) });
export type IntegrationList = z.infer<typeof integrationListSchema>;

export const listIntegrationEventsQuerySchema = z.strictObject({
  provider: billingProvider.optional(),
  outcome: billingOutcome.optional(),
  ...paginationQuery,
});
export type ListIntegrationEventsQuery = z.infer<typeof listIntegrationEventsQuerySchema>;

export const integrationEventSchema = z.object({
  id: z.number().int(),
  provider: billingProvider,
  eventId: z.string(),
  type: z.string(),
  receivedAt: isoDate,
  outcome: z.string(),
  reason: z.string().nullable(),
  conversionId: z.number().int().nullable(),
  orderId: z.string().nullable(),
  livemode: z.boolean().nullable(),
});
export const integrationEventListSchema = z.object({ events: z.array(integrationEventSchema), ...paginationFields });
export type IntegrationEventList = z.infer<typeof integrationEventListSchema>;

export const receiptSchema = z.object({ received: z.literal(true), outcome: billingOutcome });

/** What a verified provider event is, for the document: the service reads it after the signature. */
export const stripeEventSchema = z
  .looseObject({
    id: z.string().min(1).max(255),
    object: z.literal('event'),
    type: z.string().min(1).max(255),
    data: z.looseObject({ object: z.looseObject({}) }),
  })
  .meta({ description: 'A Stripe event as Stripe sends it (any API version from 2024-06-20 on)' });
export const paddleEventSchema = z
  .looseObject({
    event_id: z.string().min(1).max(255),
    event_type: z.string().min(1).max(255),
    occurred_at: z.string(),
    data: z.looseObject({}),
  })
  .meta({ description: 'A Paddle Billing notification as Paddle sends it' });

export const couponCode = z.string().regex(new RegExp(COUPON_CODE_PATTERN), {
  error: 'must be 2 to 64 letters, digits, "-" or "_"',
});
export const createCouponSchema = z.strictObject({
  code: couponCode.meta({
    description: 'The Stripe coupon or promotion-code id, or the Paddle discount id, exactly as the provider shows it',
  }),
});
export type CreateCouponInput = z.infer<typeof createCouponSchema>;
export const couponSchema = z.object({ code: z.string(), createdAt: isoDate });
export const couponListSchema = z.object({ coupons: z.array(couponSchema) });
export type CouponList = z.infer<typeof couponListSchema>;
