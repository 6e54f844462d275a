import type Router from '@koa/router';
import type { RouteDeps } from '../app.js';
import { authOf, requireApiKey } from '../middleware/auth.js';
import { jsonBody } from '../middleware/body.js';
import { SDK_EVENTS_PATH } from '../middleware/cors.js';
import { eventService } from '../services/events.js';

/** spec 4.6 and 4.7 (product §3.5 to §3.11). Validation needs the caller's campaign, so the service does it. */
export function eventRoutes(router: Router, deps: RouteDeps): void {
  const events = eventService(deps.db);
  const body = jsonBody();

  // spec §5.7: a revoked key is 403 here, not 401.
  router.post('/v1/events', requireApiKey(deps.authenticator, 'events'), body, async (ctx) => {
    ctx.body = await events.track(authOf(ctx), ctx.request.body);
  });

  // product §3.11: called by browsers, so no key; CORS is answered by `sdkCors` in the app.
  router.post(SDK_EVENTS_PATH, body, async (ctx) => {
    ctx.body = await events.trackFromBrowser(ctx.request.body);
  });
}
