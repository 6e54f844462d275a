import { campaignUsageSchema } from '../schemas/campaign.js';
import { defineRoute } from './route.js';
import { EXAMPLE_CAMPAIGN, EXAMPLE_TIMES } from './examples.js';

export const campaignRoutes = {
  get: defineRoute({
    operationId: 'getCampaign',
    method: 'get',
    path: '/v1/campaign',
    tag: 'Campaign',
    summary: "The API key's campaign, its plan limits and this month's usage",
    auth: 'apiKey',
    rateLimit: 'default',
    responses: { 200: campaignUsageSchema },
    errors: [401],
    examples: {
      response: {
        ...EXAMPLE_CAMPAIGN,
        commissionType: 'percent',
        commissionValue: 10,
        cookieDays: 30,
        autoApproveDays: null,
        payoutMinimum: 0,
        payoutSchedule: 'manual',
        payoutApprovalAbove: null,
        recurring: 'lifetime',
        secondTierPercent: 0,
        products: [],
        currency: 'BRL',
        portal: {
          enabled: true,
          signup: 'open',
          approveAffiliates: 'manual',
          contactEmail: null,
          siteUrl: null,
        },
        createdAt: EXAMPLE_TIMES.written,
        limits: { maxAffiliates: 1000, maxMonthlyConversions: 10000 },
        usage: { month: '2026-11', affiliates: 3, conversions: 3 },
      },
    },
  }),
};
