import Router from '@koa/router';
import type { Redis } from 'ioredis';
import Koa from 'koa';
import { contract } from '../shared/contract/index.js';
import type { Config } from './config.js';
import { docsAssets } from './http/docsAssets.js';
import { referralLinks } from './http/links.js';
import { registerRoutes } from './http/register.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics/metrics.js';
import { errorHandler } from './middleware/errors.js';
import { httpMetrics } from './middleware/httpMetrics.js';
import { metricsEndpoint } from './middleware/metricsEndpoint.js';
import { type RateLimit, rateLimiter } from './middleware/rateLimit.js';
import { requestLog } from './middleware/requestLog.js';
import { dashboard } from './dashboard/index.js';
import { portal } from './portal/index.js';
import { handlers } from './routes/index.js';
import type { Services } from './services/index.js';

/** Counts nothing: a router built only to be read (the test that compares it with the OpenAPI document). */
const noRateLimit: RateLimit = () => (_ctx, next) => next();

/** Every contract route with its handler and middleware chain; exported so a test can compare it with the OpenAPI document. */
export function createRouter(services: Services, rateLimit: RateLimit = noRateLimit): Router {
  const router = new Router();
  registerRoutes(router, contract, handlers, { services, authenticator: services.authenticator, rateLimit });
  return router;
}

export interface AppDeps {
  config: Readonly<Config>;
  logger: Logger;
  services: Services;
  redis?: Redis;
  /** Absent (METRICS_ENABLED=false): no `/metrics`, nothing counted. */
  metrics?: Metrics;
}

/**
 * createApp(deps): request log (and request id), metrics, the affiliate portal and the merchant
 * dashboard (their own pages and errors), error handler, `/metrics`, then the contract's router: per path its method gate (405,
 * OPTIONS), per route its chain (CORS, rate limit, key, body, validation: http/register.ts).
 */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: deps.config.trustProxy });
  app.silent = true;
  const rateLimit = rateLimiter(deps.config, deps.logger, deps.services.authenticator, deps.redis);
  const router = createRouter(deps.services, rateLimit);

  // The log wraps the error handler so it records the status the client finally got.
  app.use(requestLog(deps.logger));
  // Outside everything else, so it counts the portal's pages and the status the client finally got.
  if (deps.metrics) app.use(httpMetrics(deps.metrics));
  // The affiliate portal answers HTML, its errors too: it claims /portal/… before the API's JSON error path.
  app.use(portal(deps));
  // The merchant dashboard likewise claims /dashboard/… (docs/dashboard.md).
  app.use(dashboard(deps));
  app.use(errorHandler(deps.logger));
  // Referral links: where a campaign's traffic lands, so before everything the API's routes do.
  app.use(referralLinks(deps.services.clicks));
  // Before the router's CORS and rate limit: a scraper is neither a browser nor counted.
  if (deps.metrics) app.use(metricsEndpoint(deps.metrics, deps.config.metrics));
  app.use(router.routes());
  // 501 (a method no route has) is set without a body; the error handler gives it the spec's body.
  app.use(router.allowedMethods());
  // Past the router: a path no route has, counted as `default` by the router's not-found answer.
  app.use(docsAssets());
  return app;
}
