import { deleteResponseSchema, idParam } from '../schemas/common.js';
import {
  couponListSchema,
  couponSchema,
  createCouponSchema,
  integrationEventListSchema,
  integrationListSchema,
  integrationSchema,
  listIntegrationEventsQuerySchema,
  paddleEventSchema,
  providerParams,
  putIntegrationSchema,
  receiptSchema,
  receivingParams,
  stripeEventSchema,
} from '../schemas/integration.js';
import { z } from 'zod';
import {
  EXAMPLE_ANA,
  EXAMPLE_CAMPAIGN,
  EXAMPLE_COUPON,
  EXAMPLE_STRIPE_EVENT,
  EXAMPLE_PADDLE_EVENT,
  EXAMPLE_TIMES,
  exampleIntegration,
  exampleIntegrationEvent,
} from './examples.js';
import { defineRoute } from './route.js';

const managing = { tag: 'Integrations', auth: 'apiKey', rateLimit: 'default' } as const;

/**
 * Receiving routes take no API key: the provider's signature is the authentication. They are not
 * counted by the rate limit either: a provider answered 429 delays every commission behind it,
 * and a forged request costs one indexed read and one HMAC before it is refused
 * (docs/integrations.md).
 */
const receiving = { tag: 'Integrations', auth: 'none', rateLimit: 'none' } as const;

/** Billing integrations (docs/integrations.md): Stripe and Paddle send sales, renewals and refunds. */
export const integrationRoutes = {
  receiveStripe: defineRoute({
    ...receiving,
    operationId: 'receiveStripeEvent',
    method: 'post',
    path: '/v1/integrations/stripe/{campaignPublicId}',
    summary: 'Receive a Stripe event (the URL to give Stripe)',
    description:
      'Called by Stripe, never by you: the `Stripe-Signature` header is checked against the integration’s signing secrets (and the previous one for 24 hours after a rotation) on the raw body, within 300 seconds, before anything is read. A missing, wrong or stale signature is `400 Invalid Stripe signature`; a campaign without a Stripe integration, or unknown, `404`. Every verified event is `200` with its `outcome`, so Stripe never retries what was understood.',
    params: receivingParams,
    signedBody: {
      header: 'Stripe-Signature',
      description:
        '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, made by Stripe with the signing secret',
      example: 't=1764000060,v1=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39',
      schema: stripeEventSchema,
    },
    responses: { 200: receiptSchema },
    errors: [400, 404, 413],
    examples: {
      params: { campaignPublicId: EXAMPLE_CAMPAIGN.publicId },
      body: EXAMPLE_STRIPE_EVENT,
      response: { received: true, outcome: 'conversion_created' },
    },
  }),
  receivePaddle: defineRoute({
    ...receiving,
    operationId: 'receivePaddleEvent',
    method: 'post',
    path: '/v1/integrations/paddle/{campaignPublicId}',
    summary: 'Receive a Paddle Billing notification (the URL to give Paddle)',
    description:
      'Called by Paddle, never by you: `Paddle-Signature` is checked against the integration’s secret keys on the raw body, within 300 seconds, before anything is read. A missing, wrong or stale signature is `400 Invalid Paddle signature`; a campaign without a Paddle integration, or unknown, `404`. Every verified notification is `200` with its `outcome`.',
    params: receivingParams,
    signedBody: {
      header: 'Paddle-Signature',
      description:
        '`ts=<unix seconds>;h1=<hex HMAC-SHA256 of "<ts>:<raw body>">`, made by Paddle with the secret key; several `h1` may be present',
      example: 'ts=1764000060;h1=eb4d0dc8853be92b7f063b9f3ba5233eb920a09459b6e6b2c26705b4364db151',
      schema: paddleEventSchema,
    },
    responses: { 200: receiptSchema },
    errors: [400, 404, 413],
    examples: {
      params: { campaignPublicId: EXAMPLE_CAMPAIGN.publicId },
      body: EXAMPLE_PADDLE_EVENT,
      response: { received: true, outcome: 'conversion_created' },
    },
  }),
  list: defineRoute({
    ...managing,
    operationId: 'listIntegrations',
    method: 'get',
    path: '/v1/integrations',
    summary: 'List the campaign’s billing integrations, with what their events became',
    responses: { 200: integrationListSchema },
    errors: [401],
    examples: {
      response: {
        integrations: [
          exampleIntegration({
            provider: 'paddle',
            receivePath: `/v1/integrations/paddle/${EXAMPLE_CAMPAIGN.publicId}`,
            eventTypes: ['transaction.completed', 'adjustment.created', 'adjustment.updated'],
            lastEventAt: null,
            outcomes: {},
          }),
          exampleIntegration(),
        ],
      },
    },
  }),
  put: defineRoute({
    ...managing,
    operationId: 'putIntegration',
    method: 'put',
    path: '/v1/integrations/{provider}',
    summary: 'Create an integration, or rotate its signing secret',
    description:
      'The secret is stored encrypted and never answered. Sent again, it rotates: the previous secret keeps verifying for 24 hours.',
    params: providerParams,
    body: putIntegrationSchema,
    responses: { 200: integrationSchema },
    errors: [400, 401, 413, 415],
    examples: {
      params: { provider: 'stripe' },
      body: { signingSecret: 'whsec_Zr4Lp8Qt2Wx6Ny0Bv3Kc7Hm1Sd5Fg9Ja' },
      // A second PUT rotates: the world's first secret keeps verifying for 24 hours.
      response: exampleIntegration({ previousSecretExpiresAt: EXAMPLE_TIMES.november(25, '09:30:00.000') }),
    },
  }),
  remove: defineRoute({
    ...managing,
    operationId: 'deleteIntegration',
    method: 'delete',
    path: '/v1/integrations/{provider}',
    summary: 'Remove an integration: its URL answers 404 from then on (the log is kept)',
    params: providerParams,
    responses: { 200: deleteResponseSchema },
    errors: [400, 401, 404],
    examples: {
      params: { provider: 'stripe' },
      response: { success: true, message: 'Integration deleted successfully' },
    },
  }),
  events: defineRoute({
    ...managing,
    operationId: 'listIntegrationEvents',
    method: 'get',
    path: '/v1/integrations/events',
    summary: 'The provider events received, newest first, with their outcome',
    query: listIntegrationEventsQuerySchema,
    responses: { 200: integrationEventListSchema },
    errors: [400, 401],
    examples: {
      query: { provider: 'stripe', page: 1, limit: 20 },
      response: { events: [exampleIntegrationEvent()], total: 1, page: 1, limit: 20, totalPages: 1 },
    },
  }),
};

const coupons = { tag: 'Coupons', auth: 'apiKey', rateLimit: 'default' } as const;
const couponParams = z.strictObject({
  id: idParam,
  code: z.string().min(1).max(255).meta({ description: 'The coupon code (any case)' }),
});

/** An affiliate's coupons: a provider payment that used one counts for the affiliate. */
export const couponRoutes = {
  list: defineRoute({
    ...coupons,
    operationId: 'listCoupons',
    method: 'get',
    path: '/v1/affiliates/{id}/coupons',
    summary: 'List an affiliate’s coupons, newest first',
    params: z.strictObject({ id: idParam }),
    responses: { 200: couponListSchema },
    errors: [400, 401, 404],
    examples: { params: { id: EXAMPLE_ANA.id }, response: { coupons: [EXAMPLE_COUPON] } },
  }),
  create: defineRoute({
    ...coupons,
    operationId: 'createCoupon',
    method: 'post',
    path: '/v1/affiliates/{id}/coupons',
    summary: 'Give an affiliate a coupon code',
    description:
      'Unique per campaign whatever the case: a code the campaign has is `409 Coupon code is not available`.',
    params: z.strictObject({ id: idParam }),
    body: createCouponSchema,
    responses: { 201: couponSchema },
    errors: [400, 401, 404, 409, 413, 415],
    examples: {
      params: { id: EXAMPLE_ANA.id },
      body: { code: 'ANA-WINTER' },
      response: { code: 'ANA-WINTER', createdAt: EXAMPLE_COUPON.createdAt },
    },
  }),
  remove: defineRoute({
    ...coupons,
    operationId: 'deleteCoupon',
    method: 'delete',
    path: '/v1/affiliates/{id}/coupons/{code}',
    summary: 'Take a coupon from an affiliate',
    params: couponParams,
    responses: { 200: deleteResponseSchema },
    errors: [400, 401, 404],
    examples: {
      params: { id: EXAMPLE_ANA.id, code: EXAMPLE_COUPON.code },
      response: { success: true, message: 'Coupon deleted successfully' },
    },
  }),
};
