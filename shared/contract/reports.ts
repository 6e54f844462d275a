import { affiliateReportQuerySchema, affiliateReportSchema } from '../schemas/report.js';
import { defineRoute } from './route.js';

export const reportRoutes = {
  affiliates: defineRoute({
    operationId: 'getAffiliateReport',
    method: 'get',
    path: '/v1/reports/affiliates',
    tag: 'Reports',
    summary: 'Page views, leads, conversions, revenue and commissions per affiliate over a range of days',
    description:
      'One row per affiliate of the key’s campaign with any activity in the range. `from` and `to` are ISO 8601 dates (UTC days, both included); by default the last 30 days up to today. Events count on the day they occurred; conversions count whatever their status since, with the commission computed when they arrived.',
    auth: 'apiKey',
    rateLimit: 'default',
    query: affiliateReportQuerySchema,
    responses: { 200: affiliateReportSchema },
    errors: [400, 401],
  }),
};
