import { campaignUsageSchema } from '../schemas/campaign.js';
import { defineRoute } from './route.js';

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
  }),
};
