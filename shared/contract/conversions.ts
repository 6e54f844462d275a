import { idParams } from '../schemas/common.js';
import {
  bulkUpdateConversionsResponseSchema,
  bulkUpdateConversionsSchema,
  conversionListSchema,
  conversionSchema,
  listConversionsQuerySchema,
  refundSchema,
  updateConversionSchema,
} from '../schemas/conversion.js';
import { defineRoute } from './route.js';
import { EXAMPLE_ANA, EXAMPLE_ORDERS, EXAMPLE_TIMES, exampleConversion } from './examples.js';

/** The world's orders: 1 pending, 2 approved, 3 approved and in payout 1. */
const [FIRST, SECOND, THIRD] = EXAMPLE_ORDERS;

const common = { tag: 'Conversions', auth: 'apiKey', rateLimit: 'default' } as const;

/** The conversion lifecycle (docs/payouts.md). */
export const conversionRoutes = {
  list: defineRoute({
    ...common,
    operationId: 'listConversions',
    method: 'get',
    path: '/v1/conversions',
    summary: 'List conversions, newest first',
    description:
      '`from` and `to` are ISO 8601 dates or date-times compared with `createdAt`, both included: a date is its whole UTC day. A `from` after `to` is 400: a rule between two values, which the schema cannot state. ' +
      '`kind` picks sales or second-tier conversions; `flagged=true` the conversions with a fraud flag.',
    query: listConversionsQuerySchema,
    responses: { 200: conversionListSchema },
    errors: [400, 401],
    examples: {
      query: { status: 'approved', affiliateId: EXAMPLE_ANA.id, page: 1, limit: 20 },
      response: {
        conversions: [exampleConversion(THIRD, 'approved'), exampleConversion(SECOND, 'approved')],
        total: 2,
        page: 1,
        limit: 20,
        totalPages: 1,
      },
    },
  }),
  get: defineRoute({
    ...common,
    operationId: 'getConversion',
    method: 'get',
    path: '/v1/conversions/{id}',
    summary: 'Get a conversion',
    params: idParams,
    responses: { 200: conversionSchema },
    errors: [400, 401, 404],
    examples: { params: { id: FIRST.id }, response: exampleConversion(FIRST, 'pending') },
  }),
  update: defineRoute({
    ...common,
    operationId: 'updateConversion',
    method: 'patch',
    path: '/v1/conversions/{id}',
    summary: 'Approve or reject a conversion',
    description:
      'Legal: pending → approved, pending → rejected, approved → rejected while in no payout; anything else is 409. ' +
      'Asking for the status it already has changes nothing.',
    params: idParams,
    body: updateConversionSchema,
    responses: { 200: conversionSchema },
    errors: [400, 401, 404, 409, 413, 415],
    examples: {
      params: { id: FIRST.id },
      body: { status: 'approved' },
      response: exampleConversion(FIRST, 'approved'),
    },
  }),
  bulkUpdate: defineRoute({
    ...common,
    operationId: 'bulkUpdateConversions',
    method: 'post',
    path: '/v1/conversions/bulk',
    summary: 'Approve or reject many conversions: by id, or the oldest pending ones matching a filter',
    description:
      'Up to 1,000 conversions a request, each with its own outcome (`updated`, `unchanged`, `not_found`, `conflict`). ' +
      'With `filter`, `remaining` says how many matching pending conversions are left for the next request.',
    body: bulkUpdateConversionsSchema,
    responses: { 200: bulkUpdateConversionsResponseSchema },
    errors: [400, 401, 413, 415],
    examples: {
      body: { status: 'approved', ids: [FIRST.id, SECOND.id] },
      response: {
        results: [
          { id: FIRST.id, outcome: 'updated', status: 'approved' },
          { id: SECOND.id, outcome: 'unchanged', status: 'approved' },
        ],
        updated: 1,
        unchanged: 1,
        failed: 0,
        remaining: null,
      },
    },
  }),
};

export const refundRoutes = {
  create: defineRoute({
    ...common,
    operationId: 'createRefund',
    method: 'post',
    path: '/v1/refunds',
    summary:
      'Refund an order, in full or in part: its commission is taken back or lowered, a paid-out part clawed back',
    description:
      'Without `amount` the whole order: the sale becomes rejected (a rejected one stays as it is). With `amount` (at most ' +
      'the order’s value, else 400; at most what is not refunded yet, else 409) the commission drops to its share of what ' +
      'is left of the order. What a refund takes off a commission in a payout is clawed back from the affiliate’s next ' +
      'payout. The sale’s second-tier conversion follows. Each request is a new refund unless it repeats a `refund_id`.',
    body: refundSchema,
    responses: { 200: conversionSchema },
    errors: [400, 401, 404, 409, 413, 415],
    examples: {
      body: { order_id: FIRST.orderId, amount: 50, reason: 'Customer returned one item', refund_id: 're_3Pq8xK2' },
      // 10 % of 199.90 was 19.99; 149.90 of the order is left: 19.99 × 149.90 / 199.90 = 14.99.
      response: exampleConversion(FIRST, 'pending', {
        commission: 14.99,
        refundedAmount: 50,
        refundedAt: EXAMPLE_TIMES.written,
        refundReason: 'Customer returned one item',
      }),
    },
  }),
};
