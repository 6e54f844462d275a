import { idParams } from '../schemas/common.js';
import {
  bulkCreatePayoutsResponseSchema,
  bulkCreatePayoutsSchema,
  createPayoutSchema,
  listPayoutsQuerySchema,
  payoutListSchema,
  payoutSchema,
  updatePayoutSchema,
} from '../schemas/payout.js';
import { clawbackListSchema, listClawbacksQuerySchema } from '../schemas/clawback.js';
import { payoutRunSchema, startPayoutRunSchema } from '../schemas/payoutRun.js';
import { defineRoute } from './route.js';
import { MESSAGES } from '../errors.js';
import {
  EXAMPLE_ANA,
  EXAMPLE_BRUNO,
  EXAMPLE_ORDERS,
  EXAMPLE_PAYOUT,
  EXAMPLE_TIMES,
  examplePayout,
} from './examples.js';

/** What paying Ana now creates: payout 2, for ORDER-1002 (approved after payout 1). */
const SECOND_PAYOUT = examplePayout({
  id: 2,
  amount: EXAMPLE_ORDERS[1].commission,
  commissionAmount: EXAMPLE_ORDERS[1].commission,
  conversionIds: [EXAMPLE_ORDERS[1].id],
});

const common = { tag: 'Payouts', auth: 'apiKey', rateLimit: 'default' } as const;

/** Payouts (docs/payouts.md). */
export const payoutRoutes = {
  list: defineRoute({
    ...common,
    operationId: 'listPayouts',
    method: 'get',
    path: '/v1/payouts',
    summary: 'List payouts, newest first',
    query: listPayoutsQuerySchema,
    responses: { 200: payoutListSchema },
    errors: [400, 401],
    examples: {
      query: { affiliateId: EXAMPLE_ANA.id, status: 'pending', page: 1, limit: 20 },
      response: { payouts: [examplePayout()], total: 1, page: 1, limit: 20, totalPages: 1 },
    },
  }),
  clawbacks: defineRoute({
    ...common,
    operationId: 'listClawbacks',
    method: 'get',
    path: '/v1/clawbacks',
    summary: 'List clawbacks, newest first: what refunds, full or partial, took back of commissions in payouts',
    description:
      'One clawback per refund and conversion whose commission sat in a payout (a sale’s and its second-tier one). ' +
      '`status`: `waiting` until that payout is paid, `owed` once it is, `netting` while a pending payout nets it, ' +
      '`settled` once that payout is paid, `void` when the payout that held the commission failed. `owedAmount` sums ' +
      'the listed ones neither settled nor void, over every page.',
    query: listClawbacksQuerySchema,
    responses: { 200: clawbackListSchema },
    errors: [400, 401],
    examples: {
      query: { affiliateId: EXAMPLE_ANA.id, page: 1, limit: 20 },
      response: { clawbacks: [], total: 0, page: 1, limit: 20, totalPages: 0, owedAmount: 0 },
    },
  }),
  get: defineRoute({
    ...common,
    operationId: 'getPayout',
    method: 'get',
    path: '/v1/payouts/{id}',
    summary: 'Get a payout',
    params: idParams,
    responses: { 200: payoutSchema },
    errors: [400, 401, 404],
    examples: { params: { id: EXAMPLE_PAYOUT.id }, response: examplePayout() },
  }),
  create: defineRoute({
    ...common,
    operationId: 'createPayout',
    method: 'post',
    path: '/v1/payouts',
    summary: 'Pay an affiliate every approved commission not yet in a payout, less unsettled clawbacks',
    description:
      '409 when there is nothing to pay, when clawbacks cover it, or when the amount is below the campaign’s `payoutMinimum`.',
    body: createPayoutSchema,
    responses: { 201: payoutSchema },
    errors: [400, 401, 404, 409, 413, 415],
    examples: { body: { affiliateId: EXAMPLE_ANA.id }, response: SECOND_PAYOUT },
  }),
  bulkCreate: defineRoute({
    ...common,
    operationId: 'bulkCreatePayouts',
    method: 'post',
    path: '/v1/payouts/bulk',
    summary: 'One payout for each affiliate named, or for every affiliate with approved commission to pay',
    description:
      'Affiliates that get no payout are listed in `skipped` with the status and message a single request would get.',
    body: bulkCreatePayoutsSchema,
    responses: { 200: bulkCreatePayoutsResponseSchema },
    errors: [400, 401, 413, 415],
    examples: {
      body: { affiliateIds: [EXAMPLE_ANA.id, EXAMPLE_BRUNO.id] },
      response: {
        created: [SECOND_PAYOUT],
        skipped: [{ affiliateId: EXAMPLE_BRUNO.id, statusCode: 409, message: MESSAGES.nothingToPay(EXAMPLE_BRUNO.id) }],
      },
    },
  }),
  update: defineRoute({
    ...common,
    operationId: 'updatePayout',
    method: 'patch',
    path: '/v1/payouts/{id}',
    summary: 'Mark a payout paid or failed',
    description:
      'paid: its conversions become paid and the affiliate’s totalPaid grows. failed: its conversions are released ' +
      'for a later payout. Only a pending payout moves; asking for the status it already has changes nothing.',
    params: idParams,
    body: updatePayoutSchema,
    responses: { 200: payoutSchema },
    errors: [400, 401, 404, 409, 413, 415],
    examples: {
      params: { id: EXAMPLE_PAYOUT.id },
      body: { status: 'paid' },
      response: examplePayout({ status: 'paid', paidAt: EXAMPLE_TIMES.written }),
    },
  }),
  send: defineRoute({
    ...common,
    operationId: 'sendPayout',
    method: 'post',
    path: '/v1/payouts/{id}/send',
    summary: 'Send a pending payout on the rail of the affiliate’s payout details',
    description:
      'The payout becomes `processing` with its `reference` at once; the daemon then calls the provider, and the payout becomes ' +
      '`paid` (with the provider’s `receipt`) or `failed` (`failureReason`) on the provider’s word only (docs/payouts.md). ' +
      '409 when it cannot be sent, the message led by the reason: `no_payout_details`, `rail_not_connected`, ' +
      '`currency_not_supported` (Pix pays BRL only), `amount_not_payable`. A payout already sent answers as it is.',
    params: idParams,
    responses: { 200: payoutSchema },
    errors: [400, 401, 404, 409],
    examples: {
      params: { id: EXAMPLE_PAYOUT.id },
      response: examplePayout({ status: 'processing', rail: 'pix', reference: 'aff-1-1a2b3c4d5e6f' }),
    },
  }),
  run: defineRoute({
    ...common,
    operationId: 'startPayoutRun',
    method: 'post',
    path: '/v1/payout-runs',
    summary: 'Pay every affiliate whose balance reaches the payout minimum, on the rail of their payout details',
    description:
      'One payout per affiliate whose approved commissions less clawbacks reach `payoutMinimum` and who can be paid on a ' +
      'connected rail, each sent straight away, as `POST /v1/payouts/{id}/send` sends one (`processing`). `leftOut` names the others and why: ' +
      '`below_minimum`, `no_payout_details`, `rail_not_connected`, `currency_not_supported` (Pix pays BRL only), ' +
      '`amount_not_payable`. `dryRun` answers the same list and creates nothing (`status` `dry_run`). A run whose total is above ' +
      'the campaign’s `payoutApprovalAbove` sends nothing: `status` `awaiting_approval`, its payouts pending until a second ' +
      'owner or admin approves it in the dashboard (docs/payouts.md#payout-runs). Two runs at once never pay a conversion twice.',
    body: startPayoutRunSchema,
    responses: { 200: payoutRunSchema },
    errors: [400, 401, 413, 415],
    examples: {
      body: { rail: 'pix' },
      response: {
        id: 1,
        status: 'sent',
        rail: 'pix',
        currency: 'BRL',
        total: SECOND_PAYOUT.amount,
        payouts: [
          {
            affiliateId: EXAMPLE_ANA.id,
            affiliateName: EXAMPLE_ANA.name,
            affiliateEmail: EXAMPLE_ANA.email,
            rail: 'pix',
            amount: SECOND_PAYOUT.amount,
            payoutId: SECOND_PAYOUT.id,
            status: 'processing',
          },
        ],
        leftOut: [],
        createdAt: EXAMPLE_TIMES.written,
      },
    },
  }),
};
