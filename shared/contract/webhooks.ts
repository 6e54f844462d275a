import { z } from 'zod';
import { deleteResponseSchema, idParam, idParams } from '../schemas/common.js';
import {
  createWebhookSchema,
  deliveryListSchema,
  deliverySchema,
  listDeliveriesQuerySchema,
  listWebhooksQuerySchema,
  updateWebhookSchema,
  webhookListSchema,
  webhookSchema,
  webhookWithSecretSchema,
} from '../schemas/webhook.js';
import { defineRoute } from './route.js';
import { EXAMPLE_DELIVERY_ID, EXAMPLE_SECRET, EXAMPLE_WEBHOOK, exampleDelivery, exampleWebhook } from './examples.js';

/** A second endpoint of the examples, and the first one's events once it also hears of rejections. */
const CRM = {
  url: 'https://crm.example.com/hooks/affiliated',
  events: ['conversion.created', 'conversion.approved', 'payout.paid'],
  description: 'CRM sync',
};
const WITH_REJECTIONS = ['conversion.approved', 'conversion.rejected', 'payout.paid'];

const common = { tag: 'Webhooks', auth: 'apiKey', rateLimit: 'default' } as const;
const deliveryParams = z.object({ id: idParam, deliveryId: idParam });

/** Signed webhooks (docs/webhooks.md): endpoints, their secrets and their deliveries. */
export const webhookRoutes = {
  create: defineRoute({
    ...common,
    operationId: 'createWebhook',
    method: 'post',
    path: '/v1/webhooks',
    summary: 'Register a webhook endpoint',
    description:
      'The answer carries the signing `secret`, shown this once. Private, loopback and link-local addresses are refused unless the daemon allows them. A campaign has at most `WEBHOOK_MAX_ENDPOINTS` endpoints (20 by default): 409 past it.',
    body: createWebhookSchema,
    responses: { 201: webhookWithSecretSchema },
    errors: [400, 401, 409, 413, 415],
    examples: {
      body: CRM,
      response: { ...exampleWebhook({ id: 2, ...CRM }), secret: EXAMPLE_SECRET },
    },
  }),
  list: defineRoute({
    ...common,
    operationId: 'listWebhooks',
    method: 'get',
    path: '/v1/webhooks',
    summary: 'List webhook endpoints, newest first',
    query: listWebhooksQuerySchema,
    responses: { 200: webhookListSchema },
    errors: [400, 401],
    examples: {
      query: { page: 1, limit: 20 },
      response: { webhooks: [exampleWebhook()], total: 1, page: 1, limit: 20, totalPages: 1 },
    },
  }),
  get: defineRoute({
    ...common,
    operationId: 'getWebhook',
    method: 'get',
    path: '/v1/webhooks/{id}',
    summary: 'Get a webhook endpoint',
    params: idParams,
    responses: { 200: webhookSchema },
    errors: [400, 401, 404],
    examples: { params: { id: EXAMPLE_WEBHOOK.id }, response: exampleWebhook() },
  }),
  update: defineRoute({
    ...common,
    operationId: 'updateWebhook',
    method: 'patch',
    path: '/v1/webhooks/{id}',
    summary: 'Change a webhook endpoint, or disable or enable it',
    params: idParams,
    body: updateWebhookSchema,
    responses: { 200: webhookSchema },
    errors: [400, 401, 404, 413, 415],
    examples: {
      params: { id: EXAMPLE_WEBHOOK.id },
      body: { events: WITH_REJECTIONS, description: 'Shop backend, refunds too' },
      response: exampleWebhook({ events: WITH_REJECTIONS, description: 'Shop backend, refunds too' }),
    },
  }),
  remove: defineRoute({
    ...common,
    operationId: 'deleteWebhook',
    method: 'delete',
    path: '/v1/webhooks/{id}',
    summary: 'Delete a webhook endpoint and its delivery history',
    params: idParams,
    responses: { 200: deleteResponseSchema },
    errors: [400, 401, 404],
    examples: {
      params: { id: EXAMPLE_WEBHOOK.id },
      response: { success: true, message: 'Webhook deleted successfully' },
    },
  }),
  rotateSecret: defineRoute({
    ...common,
    operationId: 'rotateWebhookSecret',
    method: 'post',
    path: '/v1/webhooks/{id}/rotate-secret',
    summary: 'Replace the signing secret; the old one keeps signing for 24 hours',
    description:
      'Every secret a rotation retires keeps signing for its own 24 hours. While `WEBHOOK_MAX_RETIRED_SECRETS` (5 by default) of them still sign, another rotation is 409.',
    params: idParams,
    responses: { 200: webhookWithSecretSchema },
    errors: [400, 401, 404, 409],
    examples: { params: { id: EXAMPLE_WEBHOOK.id }, response: { ...exampleWebhook(), secret: EXAMPLE_SECRET } },
  }),
  deliveries: defineRoute({
    ...common,
    operationId: 'listWebhookDeliveries',
    method: 'get',
    path: '/v1/webhooks/{id}/deliveries',
    summary: 'List deliveries to an endpoint with their attempts, newest first',
    params: idParams,
    query: listDeliveriesQuerySchema,
    responses: { 200: deliveryListSchema },
    errors: [400, 401, 404],
    examples: {
      params: { id: EXAMPLE_WEBHOOK.id },
      query: { status: 'pending', page: 1, limit: 20 },
      response: {
        deliveries: [exampleDelivery({ id: 2 }), exampleDelivery()],
        total: 2,
        page: 1,
        limit: 20,
        totalPages: 1,
      },
    },
  }),
  retry: defineRoute({
    ...common,
    operationId: 'retryWebhookDelivery',
    method: 'post',
    path: '/v1/webhooks/{id}/deliveries/{deliveryId}/retry',
    summary: 'Send a delivery again now',
    params: deliveryParams,
    responses: { 202: deliverySchema },
    errors: [400, 401, 404, 409],
    examples: {
      params: { id: EXAMPLE_WEBHOOK.id, deliveryId: EXAMPLE_DELIVERY_ID },
      response: exampleDelivery(),
    },
  }),
  test: defineRoute({
    ...common,
    operationId: 'testWebhook',
    method: 'post',
    path: '/v1/webhooks/{id}/test',
    summary: 'Send a webhook.test event to the endpoint',
    params: idParams,
    responses: { 202: deliverySchema },
    errors: [400, 401, 404, 409],
    examples: { params: { id: EXAMPLE_WEBHOOK.id }, response: exampleDelivery({ id: 3, eventType: 'webhook.test' }) },
  }),
};
