import { affiliateReportQuerySchema, affiliateReportSchema } from '../schemas/report.js';
import { defineRoute } from './route.js';
import { EXAMPLE_ANA, EXAMPLE_BRUNO } from './examples.js';

export const reportRoutes = {
  affiliates: defineRoute({
    operationId: 'getAffiliateReport',
    method: 'get',
    path: '/v1/reports/affiliates',
    tag: 'Reports',
    summary: 'Page views, leads, conversions, revenue and commissions per affiliate over a range of days',
    description:
      'One row per affiliate of the key’s campaign with any activity in the range. `from` and `to` are ISO 8601 dates (UTC days, both included); by default the last 30 days up to today. A `from` after `to` (today when `to` is not given) is 400: a rule between two values, which the schema cannot state. Events count on the day they occurred; conversions count whatever their status since, with the commission computed when they arrived.',
    auth: 'apiKey',
    rateLimit: 'default',
    query: affiliateReportQuerySchema,
    responses: { 200: affiliateReportSchema },
    errors: [400, 401],
    examples: {
      query: { from: '2026-11-01', to: '2026-11-30' },
      response: {
        from: '2026-11-01',
        to: '2026-11-30',
        affiliates: [
          {
            affiliateId: EXAMPLE_ANA.id,
            referralId: EXAMPLE_ANA.referralId,
            name: EXAMPLE_ANA.name,
            pageViews: 2,
            leads: 1,
            conversions: 3,
            // Fewer page views than conversions: no rate means anything (sales reported by the backend).
            conversionRate: null,
            revenue: 639.8,
            commissions: 63.98,
          },
          {
            affiliateId: EXAMPLE_BRUNO.id,
            referralId: EXAMPLE_BRUNO.referralId,
            name: EXAMPLE_BRUNO.name,
            pageViews: 1,
            leads: 0,
            conversions: 0,
            conversionRate: 0,
            revenue: 0,
            commissions: 0,
          },
        ],
        totals: { pageViews: 3, leads: 1, conversions: 3, conversionRate: 1, revenue: 639.8, commissions: 63.98 },
      },
    },
  }),
};
