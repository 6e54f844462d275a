import { analyticsQuerySchema, analyticsSchema, funnelQuerySchema, funnelSchema } from '../schemas/analytics.js';
import { defineRoute } from './route.js';

export const analyticsRoutes = {
  series: defineRoute({
    operationId: 'getAnalytics',
    method: 'get',
    path: '/v1/analytics',
    tag: 'Reports',
    summary: 'Clicks, page views, leads, sales and money of the key’s campaign as a time series',
    description:
      'Read from rollups kept as events and clicks are stored (exact counts, money in integer hundredths until the answer, in the campaign’s `currency`). Hours, days and months are cut on the clock of `timezone` (a day across a DST change is 23 or 25 hours). At most 744 hours, 366 days or 120 months a query. Bad input, an unknown zone, a zone whose offset is not whole hours over the range, or `from` after `to` is 400. Counting starts with the release that added the rollups (docs/analytics.md).',
    auth: 'apiKey',
    rateLimit: 'default',
    query: analyticsQuerySchema,
    responses: { 200: analyticsSchema },
    errors: [400, 401],
    examples: {
      query: {
        metrics: 'page_views,leads,conversions,revenue',
        from: '2026-11-01',
        to: '2026-11-02',
        timezone: 'America/Sao_Paulo',
      },
      response: {
        from: '2026-11-01',
        to: '2026-11-02',
        timezone: 'America/Sao_Paulo',
        interval: 'day',
        currency: 'BRL',
        metrics: ['page_views', 'leads', 'conversions', 'revenue'],
        series: [
          {
            group: null,
            points: [
              { start: '2026-11-01T00:00:00-03:00', page_views: 1, leads: 0, conversions: 0, revenue: 0 },
              { start: '2026-11-02T00:00:00-03:00', page_views: 2, leads: 1, conversions: 1, revenue: 199.9 },
            ],
          },
        ],
        totals: { page_views: 3, leads: 1, conversions: 1, revenue: 199.9 },
      },
    },
  }),
  funnel: defineRoute({
    operationId: 'getAnalyticsFunnel',
    method: 'get',
    path: '/v1/analytics/funnel',
    tag: 'Reports',
    summary: 'Click → lead → conversion over a range of days, with the rates between the steps',
    description:
      'People’s clicks (bots apart), leads and sales of the key’s campaign over local days of `timezone`; each rate is null when the step before it counted nothing.',
    auth: 'apiKey',
    rateLimit: 'default',
    query: funnelQuerySchema,
    responses: { 200: funnelSchema },
    errors: [400, 401],
    examples: {
      query: { from: '2026-11-01', to: '2026-11-30', timezone: 'America/Sao_Paulo' },
      response: {
        from: '2026-11-01',
        to: '2026-11-30',
        timezone: 'America/Sao_Paulo',
        clicks: 0,
        leads: 1,
        conversions: 3,
        clickToLead: null,
        leadToConversion: 3,
        clickToConversion: null,
      },
    },
  }),
};
