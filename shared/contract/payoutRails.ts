import { deleteResponseSchema } from '../schemas/common.js';
import { receivingParams } from '../schemas/integration.js';
import {
  payoutCallbackReceiptSchema,
  payoutRailListSchema,
  payoutRailSchema,
  putPayoutRailSchema,
  railParams,
} from '../schemas/payoutRail.js';
import { z } from 'zod';
import { EXAMPLE_CAMPAIGN, EXAMPLE_TIMES } from './examples.js';
import { defineRoute } from './route.js';

const managing = { tag: 'Payout rails', auth: 'apiKey', rateLimit: 'default' } as const;
/** As billing's receiving routes: the provider's token or signature is the authentication. */
const receiving = { tag: 'Payout rails', auth: 'none', rateLimit: 'none' } as const;

const EXAMPLE_RAIL = {
  rail: 'pix',
  callbackPath: `/v1/integrations/asaas-payouts/${EXAMPLE_CAMPAIGN.publicId}`,
  hasWebhookToken: true,
  createdAt: EXAMPLE_TIMES.written,
  updatedAt: EXAMPLE_TIMES.written,
} as const;

const asaasEventSchema = z
  .looseObject({ event: z.string(), transfer: z.looseObject({}) })
  .meta({ description: 'An Asaas `TRANSFER_*` event as Asaas sends it' });
const paypalEventSchema = z
  .looseObject({ id: z.string(), event_type: z.string(), resource: z.looseObject({}) })
  .meta({ description: 'A PayPal `PAYMENT.PAYOUTS-ITEM.*` or `PAYMENT.PAYOUTSBATCH.*` webhook as PayPal sends it' });

/** Payout rails (docs/payouts.md): the campaign's credentials per rail, and the providers' callbacks. */
export const payoutRailRoutes = {
  list: defineRoute({
    ...managing,
    operationId: 'listPayoutRails',
    method: 'get',
    path: '/v1/payout-rails',
    summary: 'List the campaign’s connected payout rails (never their credentials)',
    responses: { 200: payoutRailListSchema },
    errors: [401],
    examples: { response: { rails: [EXAMPLE_RAIL] } },
  }),
  put: defineRoute({
    ...managing,
    operationId: 'putPayoutRail',
    method: 'put',
    path: '/v1/payout-rails/{rail}',
    summary: 'Connect a payout rail, or replace its credentials',
    description:
      '`pix` (Asaas) takes `apiKey`, `paypal` `clientId` and `clientSecret`, `stripe` `secretKey`; Asaas and PayPal also `webhookToken` ' +
      '(Asaas: the webhook’s authentication token; PayPal: the webhook’s id), without which their callbacks are refused. ' +
      'Everything is stored encrypted and never answered.',
    params: railParams,
    body: putPayoutRailSchema,
    responses: { 200: payoutRailSchema },
    errors: [400, 401, 413, 415],
    examples: {
      params: { rail: 'pix' },
      body: {
        apiKey: '$aact_prod_000MzkwODA2MWY2OGM3MWRlMDU2NWM3MzJlNzZmNGZhZGY6OjA',
        webhookToken: 'whk-8f1c2e0a9b7d',
      },
      response: EXAMPLE_RAIL,
    },
  }),
  remove: defineRoute({
    ...managing,
    operationId: 'deletePayoutRail',
    method: 'delete',
    path: '/v1/payout-rails/{rail}',
    summary: 'Disconnect a payout rail: its payouts still processing wait until it is connected again',
    params: railParams,
    responses: { 200: deleteResponseSchema },
    errors: [400, 401, 404],
    examples: { params: { rail: 'pix' }, response: { success: true, message: 'Payout rail deleted successfully' } },
  }),
  receiveAsaas: defineRoute({
    ...receiving,
    operationId: 'receiveAsaasPayoutEvent',
    method: 'post',
    path: '/v1/integrations/asaas-payouts/{campaignPublicId}',
    summary: 'Receive an Asaas transfer event (the URL to give Asaas)',
    description:
      'Called by Asaas, never by you: `asaas-access-token` must equal the pix rail’s `webhookToken` (compared in constant time), else `401`. ' +
      'A campaign without a pix rail, or unknown, is `404`. A `processing` payout moves to `paid` or `failed` as the transfer says; ' +
      'a replay changes nothing (`unchanged`).',
    params: receivingParams,
    signedBody: {
      header: 'asaas-access-token',
      description: 'The authentication token set on the Asaas webhook',
      example: 'whk-8f1c2e0a9b7d',
      schema: asaasEventSchema,
    },
    responses: { 200: payoutCallbackReceiptSchema },
    errors: [400, 401, 404, 413],
    examples: {
      params: { campaignPublicId: EXAMPLE_CAMPAIGN.publicId },
      body: {
        id: 'evt_05b708f961d739ea7eba7e4db318f621',
        event: 'TRANSFER_DONE',
        transfer: { externalReference: 'aff-7-1a2b3c4d5e6f' },
      },
      response: { received: true, outcome: 'paid' },
    },
  }),
  receivePayPal: defineRoute({
    ...receiving,
    operationId: 'receivePayPalPayoutEvent',
    method: 'post',
    path: '/v1/integrations/paypal-payouts/{campaignPublicId}',
    summary: 'Receive a PayPal Payouts webhook (the URL to give PayPal)',
    description:
      'Called by PayPal, never by you: verified as PayPal documents (`PAYPAL-TRANSMISSION-SIG` over the transmission id, time, the rail’s ' +
      '`webhookToken` as webhook id and the body’s CRC32, with the key of the certificate at `PAYPAL-CERT-URL`), else `400`. ' +
      'An item’s event moves its payout; a batch’s event has the batch’s payouts looked up now (`lookup`).',
    params: receivingParams,
    signedBody: {
      header: 'PAYPAL-TRANSMISSION-SIG',
      description:
        'Base64 SHA256withRSA signature; with `PAYPAL-TRANSMISSION-ID`, `PAYPAL-TRANSMISSION-TIME`, `PAYPAL-CERT-URL` and `PAYPAL-AUTH-ALGO`',
      example: 'Nf4Vz0M1q2r3s4t5u6v7w8x9y0zA==',
      schema: paypalEventSchema,
      otherHeaders: ['PAYPAL-TRANSMISSION-ID', 'PAYPAL-TRANSMISSION-TIME', 'PAYPAL-CERT-URL', 'PAYPAL-AUTH-ALGO'],
    },
    responses: { 200: payoutCallbackReceiptSchema },
    errors: [400, 404, 413],
    examples: {
      params: { campaignPublicId: EXAMPLE_CAMPAIGN.publicId },
      body: {
        id: 'WH-7Y7254563A4550640-11V2185806837105M',
        event_type: 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED',
        resource: {},
      },
      response: { received: true, outcome: 'paid' },
    },
  }),
};
