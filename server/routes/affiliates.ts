import type Router from '@koa/router';
import { MESSAGES } from '../../shared/errors.js';
import {
  createAffiliateSchema,
  listAffiliatesQuerySchema,
  updateAffiliateSchema,
} from '../../shared/schemas/affiliate.js';
import type { RouteDeps } from '../app.js';
import { authOf, requireApiKey } from '../middleware/auth.js';
import { jsonBody } from '../middleware/body.js';
import { numericId, validateBody, validateQuery } from '../middleware/validate.js';
import { affiliateService } from '../services/affiliates.js';

/** spec 4.1 to 4.5. */
export function affiliateRoutes(router: Router, deps: RouteDeps): void {
  const affiliates = affiliateService(deps.db, deps.config.bcryptRounds);
  const auth = requireApiKey(deps.authenticator, 'affiliates');
  const body = jsonBody();

  router.post('/v1/affiliates', auth, body, async (ctx) => {
    const input = validateBody(ctx, createAffiliateSchema);
    ctx.status = 201;
    ctx.body = await affiliates.create(authOf(ctx).campaignId, input);
  });

  router.get('/v1/affiliates', auth, async (ctx) => {
    const query = validateQuery(ctx, listAffiliatesQuerySchema);
    ctx.body = await affiliates.list(authOf(ctx).campaignId, query);
  });

  router.get('/v1/affiliates/:id', auth, async (ctx) => {
    const id = numericId(ctx, MESSAGES.affiliateNotFound);
    ctx.body = await affiliates.get(authOf(ctx).campaignId, id);
  });

  router.patch('/v1/affiliates/:id', auth, body, async (ctx) => {
    const id = numericId(ctx, MESSAGES.affiliateNotFound);
    const input = validateBody(ctx, updateAffiliateSchema);
    ctx.body = await affiliates.update(authOf(ctx).campaignId, id, input);
  });

  router.delete('/v1/affiliates/:id', auth, async (ctx) => {
    const id = numericId(ctx, MESSAGES.affiliateNotFound);
    await affiliates.remove(authOf(ctx).campaignId, id);
    ctx.body = { success: true, message: 'Affiliate deleted successfully' };
  });
}
