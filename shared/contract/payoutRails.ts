import { deleteResponseSchema } from '../schemas/common.js';
import { receivingParams } from '../schemas/integration.js';
import {
  payoutCallbackReceiptSchema,
  payoutRailListSchema,
  payoutRailSchema,
  putPayPalRailSchema,
  putPixRailSchema,
  putStripeRailSchema,
} from '../schemas/payoutRail.js';
import { z } from 'zod';
import { EXAMPLE_CAMPAIGN, EXAMPLE_RAILS, EXAMPLE_TIMES } from './examples.js';
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

const EXAMPLE_STRIPE_RAIL = { ...EXAMPLE_RAIL, rail: 'stripe', callbackPath: null, hasWebhookToken: false } as const;

const asaasEventSchema = z
  .looseObject({ event: z.string(), transfer: z.looseObject({}) })
  .meta({ description: 'An Asaas `TRANSFER_*` event as Asaas sends it' });
const paypalEventSchema = z
  .looseObject({ id: z.string(), event_type: z.string(), resource: z.looseObject({}) })
  .meta({ description: 'A PayPal `PAYMENT.PAYOUTS-ITEM.*` or `PAYMENT.PAYOUTSBATCH.*` webhook as PayPal sends it' });

const PROVIDER = { pix: 'Asaas (Pix)', paypal: 'PayPal', stripe: 'Stripe Connect' } as const;

/** `PUT /v1/payout-rails/{rail}`, one operation per rail so that each body's shape is its own. */
function putRoute<R extends 'pix' | 'paypal' | 'stripe', B extends z.ZodType>(
  rail: R,
  operationId: string,
  body: B,
  example: z.input<B>,
  response: Record<string, unknown>,
) {
  return defineRoute({
    ...managing,
    operationId,
    method: 'put',
    path: `/v1/payout-rails/${rail}`,
    summary: `Connect the ${rail} rail (${PROVIDER[rail]}), or replace its credentials`,
    description: 'Everything is stored encrypted and never answered.',
    body,
    responses: { 200: payoutRailSchema },
    errors: [400, 401, 413, 415],
    examples: { body: example, response },
  });
}

/** `DELETE /v1/payout-rails/{rail}`, literal like its `PUT`, so the router finds both on one path. */
function removeRoute(rail: 'pix' | 'paypal' | 'stripe', operationId: string) {
  return defineRoute({
    ...managing,
    operationId,
    method: 'delete',
    path: `/v1/payout-rails/${rail}`,
    summary: `Disconnect the ${rail} rail: its payouts still processing wait until it is connected again`,
    responses: { 200: deleteResponseSchema },
    errors: [401, 404],
    examples: { response: { success: true, message: 'Payout rail deleted successfully' } },
  });
}

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
    examples: {
      response: {
        rails: [
          {
            ...EXAMPLE_RAIL,
            rail: 'paypal',
            callbackPath: `/v1/integrations/paypal-payouts/${EXAMPLE_CAMPAIGN.publicId}`,
          },
          EXAMPLE_RAIL,
          EXAMPLE_STRIPE_RAIL,
        ],
      },
    },
  }),
  putPix: putRoute('pix', 'putPixPayoutRail', putPixRailSchema, EXAMPLE_RAILS.pix, EXAMPLE_RAIL),
  putPayPal: putRoute('paypal', 'putPayPalPayoutRail', putPayPalRailSchema, EXAMPLE_RAILS.paypal, {
    ...EXAMPLE_RAIL,
    rail: 'paypal',
    callbackPath: `/v1/integrations/paypal-payouts/${EXAMPLE_CAMPAIGN.publicId}`,
  }),
  putStripe: putRoute('stripe', 'putStripePayoutRail', putStripeRailSchema, EXAMPLE_RAILS.stripe, EXAMPLE_STRIPE_RAIL),
  removePix: removeRoute('pix', 'deletePixPayoutRail'),
  removePayPal: removeRoute('paypal', 'deletePayPalPayoutRail'),
  removeStripe: removeRoute('stripe', 'deleteStripePayoutRail'),
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
      example: EXAMPLE_RAILS.pix.webhookToken,
      schema: asaasEventSchema,
    },
    responses: { 200: payoutCallbackReceiptSchema },
    errors: [400, 401, 404, 413],
    examples: {
      params: { campaignPublicId: EXAMPLE_CAMPAIGN.publicId },
      // An event of a transfer no payout of the campaign made (one sent from Asaas's dashboard): nothing moves.
      body: { id: 'evt_05b708f961d739ea7eba7e4db318f621', event: 'TRANSFER_CREATED', transfer: { id: 'f1a9e5c0' } },
      response: { received: true, outcome: 'ignored' },
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
      // A verified event about no payout of the campaign (PayPal's webhook simulator sends such): nothing moves.
      body: { id: 'WH-7Y7254563A4550640-11V2185806837105M', event_type: 'PAYMENT.SALE.COMPLETED', resource: {} },
      response: { received: true, outcome: 'ignored' },
    },
  }),
};
