import {
  referralLookupParamsSchema,
  referralLookupQuerySchema,
  referralLookupSchema,
  trackerScriptSchema,
} from '../schemas/sdk.js';
import { defineRoute } from './route.js';
import { EXAMPLE_ANA, EXAMPLE_CAMPAIGN } from './examples.js';

/** The key-less routes of the browser tracking script (spec §10.11: CORS open on these only). */
export const sdkRoutes = {
  trackerScript: defineRoute({
    operationId: 'getTrackerScript',
    method: 'get',
    path: '/v1/sdk/tracker.js',
    tag: 'Browser SDK',
    summary: 'The browser tracking script, for a `<script>` tag on the merchant’s pages',
    description:
      'Cacheable for an hour, with an ETag (an `If-None-Match` that matches is answered 304) and gzip when the browser accepts it. Not rate limited: it is static.',
    auth: 'none',
    rateLimit: 'none',
    cors: true,
    responses: { 200: { contentType: 'application/javascript; charset=utf-8', schema: trackerScriptSchema } },
    etag: true,
    errors: [],
    examples: {
      response: '(function () {\n  /* affiliated tracking script: stores ?ref= codes, reports page views */\n})();\n',
    },
  }),
  referral: defineRoute({
    operationId: 'getReferral',
    method: 'get',
    path: '/v1/sdk/referrals/{code}',
    tag: 'Browser SDK',
    summary: 'Whether a referral code is an active affiliate’s in a campaign, and how long to keep it',
    description:
      'Asked by the tracking script before it stores a code from a link. Unknown, inactive and pending codes get the same answer: `active: false`.',
    auth: 'none',
    rateLimit: 'sdk',
    cors: true,
    params: referralLookupParamsSchema,
    query: referralLookupQuerySchema,
    responses: { 200: referralLookupSchema },
    errors: [400],
    examples: {
      params: { code: EXAMPLE_ANA.referralId },
      query: { campaign: EXAMPLE_CAMPAIGN.publicId },
      response: { referralId: EXAMPLE_ANA.referralId, active: true, cookieDays: 30 },
    },
  }),
};
