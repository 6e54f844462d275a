import {
  affiliateListSchema,
  affiliateSchema,
  createAffiliateSchema,
  listAffiliatesQuerySchema,
  updateAffiliateSchema,
} from '../schemas/affiliate.js';
import { approvePendingResponseSchema, inviteResponseSchema } from '../schemas/affiliate.js';
import { deleteResponseSchema, idParams } from '../schemas/common.js';
import { defineRoute } from './route.js';
import { EXAMPLE_ANA, EXAMPLE_BRUNO, EXAMPLE_DANI, EXAMPLE_TIMES, exampleAffiliate } from './examples.js';

/** A new affiliate of the examples (the world has Ana, Bruno and Dani). */
const CARLA = {
  email: 'carla@example.com',
  name: 'Carla Dias',
  phone: '+55 21 99876-5432',
  referralId: 'CARLA10',
};
const NO_ACTIVITY = {
  totalConversions: 0,
  totalCommissions: 0,
  totalPaid: 0,
  payoutMethod: null,
  pixKeyType: null,
  payoutAccount: null,
  flags: [],
};

const common = { tag: 'Affiliates', auth: 'apiKey', rateLimit: 'default' } as const;

/** spec §4.1 to §4.5. */
export const affiliateRoutes = {
  create: defineRoute({
    ...common,
    operationId: 'createAffiliate',
    method: 'post',
    path: '/v1/affiliates',
    summary: 'Create an affiliate',
    description:
      'The e-mail is unique within the campaign and the referral code across all campaigns; a code is generated when omitted. ' +
      '`groupId` must be a group of this campaign and `parentAffiliateId` another affiliate of it (else 400). ' +
      '`payoutDetails` sets where the affiliate is paid, checked as the portal checks it (a CPF by its check digits, ' +
      'a Pix phone by its area code; else 400 naming what to send).',
    body: createAffiliateSchema,
    responses: { 201: affiliateSchema },
    errors: [400, 401, 403, 409, 413, 415],
    examples: {
      body: {
        ...CARLA,
        password: 'tulip-garden-9',
        payoutDetails: { method: 'pix', pixKeyType: 'phone', account: CARLA.phone },
      },
      response: {
        id: 4,
        ...CARLA,
        status: 'active',
        createdAt: EXAMPLE_TIMES.written,
        ...NO_ACTIVITY,
        payoutMethod: 'pix',
        pixKeyType: 'phone',
        payoutAccount: '+5521998765432',
        groupId: null,
        commissionOverride: null,
        parentAffiliateId: null,
      },
    },
  }),
  list: defineRoute({
    ...common,
    operationId: 'listAffiliates',
    method: 'get',
    path: '/v1/affiliates',
    summary: 'List affiliates, newest first',
    query: listAffiliatesQuerySchema,
    responses: { 200: affiliateListSchema },
    errors: [400, 401],
    examples: {
      query: { status: 'active', search: 'ana', page: 1, limit: 20 },
      response: { affiliates: [exampleAffiliate()], total: 1, page: 1, limit: 20, totalPages: 1 },
    },
  }),
  get: defineRoute({
    ...common,
    operationId: 'getAffiliate',
    method: 'get',
    path: '/v1/affiliates/{id}',
    summary: 'Get an affiliate',
    params: idParams,
    responses: { 200: affiliateSchema },
    errors: [400, 401, 404],
    examples: { params: { id: EXAMPLE_ANA.id }, response: exampleAffiliate() },
  }),
  update: defineRoute({
    ...common,
    operationId: 'updateAffiliate',
    method: 'patch',
    path: '/v1/affiliates/{id}',
    summary: 'Change some fields of an affiliate',
    description:
      '`null` clears `name`, `phone`, `groupId`, `commissionOverride` or `parentAffiliateId`; fields not sent stay unchanged. ' +
      '`groupId` must be a group of this campaign; `parentAffiliateId` another affiliate of it that is not below this one ' +
      '(no cycles), else 400. A new rule applies to conversions that arrive afterwards. ' +
      '`payoutDetails` replaces the payout details whole (checked as on create); `null` clears them.',
    params: idParams,
    body: updateAffiliateSchema,
    responses: { 200: affiliateSchema },
    errors: [400, 401, 404, 409, 413, 415],
    examples: {
      params: { id: EXAMPLE_ANA.id },
      body: {
        name: 'Ana Souza Lima',
        phone: '+55 11 98888-7777',
        commissionOverride: { commissionType: 'percent', commissionValue: 12 },
      },
      response: exampleAffiliate({
        name: 'Ana Souza Lima',
        phone: '+55 11 98888-7777',
        commissionOverride: { commissionType: 'percent', commissionValue: 12 },
      }),
    },
  }),
  remove: defineRoute({
    ...common,
    operationId: 'deleteAffiliate',
    method: 'delete',
    path: '/v1/affiliates/{id}',
    summary: 'Delete an affiliate and everything recorded for it',
    params: idParams,
    responses: { 200: deleteResponseSchema },
    errors: [400, 401, 404],
    examples: {
      params: { id: EXAMPLE_BRUNO.id },
      response: { success: true, message: 'Affiliate deleted successfully' },
    },
  }),
  approve: defineRoute({
    ...common,
    operationId: 'approveAffiliate',
    method: 'post',
    path: '/v1/affiliates/{id}/approve',
    summary: 'Approve a pending affiliate',
    description:
      'Makes a `pending` affiliate (one who applied through the affiliate portal) `active`, sends `affiliate.approved` and, ' +
      'when the portal can send mail, the affiliate\'s "application approved" e-mail. Any other status is `409`.',
    params: idParams,
    responses: { 200: affiliateSchema },
    errors: [400, 401, 404, 409],
    examples: { params: { id: EXAMPLE_DANI.id }, response: dani({ status: 'active' }) },
  }),
  approvePending: defineRoute({
    ...common,
    operationId: 'approvePendingAffiliates',
    method: 'post',
    path: '/v1/affiliates/approve-pending',
    summary: 'Approve every pending affiliate, oldest first',
    description:
      'Up to 1,000 a request, each as `POST /v1/affiliates/{id}/approve` would; `remaining` says how many are left for the next request.',
    responses: { 200: approvePendingResponseSchema },
    errors: [401],
    examples: { response: { approved: [dani({ status: 'active' })], remaining: 0 } },
  }),
  invite: defineRoute({
    ...common,
    operationId: 'inviteAffiliate',
    method: 'post',
    path: '/v1/affiliates/{id}/invite',
    summary: 'Invite an affiliate to choose its portal password',
    description:
      "A link to the affiliate portal's set-your-password page, for an affiliate the merchant created. When the daemon " +
      'sends mail, the link is mailed to the affiliate (`mailed: true`, `link: null`: only the mail holds it) and works ' +
      'for 7 days from the mail; otherwise it is answered here (`mailed: false`) for the merchant to pass on, and works ' +
      "for 7 days from now. Using it sets the password, spends the affiliate's other links and ends its sessions. " +
      "`409` when the campaign's portal is off or the affiliate is `inactive`.",
    params: idParams,
    responses: { 200: inviteResponseSchema },
    errors: [400, 401, 404, 409],
    examples: {
      params: { id: EXAMPLE_ANA.id },
      response: {
        affiliateId: EXAMPLE_ANA.id,
        email: EXAMPLE_ANA.email,
        mailed: false,
        link: 'https://affiliates.acme.example/portal/acme-store/reset?token=q6v0tO5bX7mJc2Wc4n1r8YVb0k3sL9aPzQeUu2yHf1g',
        // Seven days after the example world's time of writing.
        expiresAt: '2026-12-01T09:30:00.000Z',
      },
    },
  }),
};

/** Dani as the API answers her. */
function dani(overrides: Record<string, unknown>) {
  const { password: _password, id, ...fields } = EXAMPLE_DANI;
  const rules = { groupId: null, commissionOverride: null, parentAffiliateId: null };
  return { id, ...fields, createdAt: EXAMPLE_TIMES.written, ...NO_ACTIVITY, ...rules, ...overrides };
}
