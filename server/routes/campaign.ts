import type Router from '@koa/router';
import type { RouteDeps } from '../app.js';
import { authOf, requireApiKey } from '../middleware/auth.js';
import { getCampaignWithUsage } from '../services/campaigns.js';

/** product §4: the key's campaign, its plan and this month's usage. */
export function campaignRoutes(router: Router, deps: RouteDeps): void {
  router.get('/v1/campaign', requireApiKey(deps.authenticator, 'affiliates'), async (ctx) => {
    ctx.body = await getCampaignWithUsage(deps.db, authOf(ctx).campaignId);
  });
}
