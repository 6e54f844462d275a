import Router from '@koa/router';
import type { Redis } from 'ioredis';
import Koa from 'koa';
import { allRoutes, contract } from '../shared/contract/index.js';
import type { Config } from './config.js';
import { docsAssets } from './http/docsAssets.js';
import { registerRoutes } from './http/register.js';
import { RouteTable } from './http/routeTable.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics/metrics.js';
import { cors } from './middleware/cors.js';
import { errorHandler } from './middleware/errors.js';
import { httpMetrics } from './middleware/httpMetrics.js';
import { metricsEndpoint } from './middleware/metricsEndpoint.js';
import { methodCheck } from './middleware/methods.js';
import { rateLimit } from './middleware/rateLimit.js';
import { requestLog } from './middleware/requestLog.js';
import { portal } from './portal/index.js';
import { handlers } from './routes/index.js';
import type { Services } from './services/index.js';

/** Every contract route with its handler; exported so a test can compare it with the OpenAPI document. */
export function createRouter(services: Services): Router {
  const router = new Router();
  registerRoutes(router, contract, handlers, { services, authenticator: services.authenticator });
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
 * createApp(deps): request log (and request id), metrics, the affiliate portal (its own pages and errors), error handler,
 * `/metrics`, CORS and rate limit (both read the contract
 * route's policy), the method check (405), then the contract's routes (key, body, validation
 * per route).
 */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: deps.config.trustProxy });
  app.silent = true;
  const table = new RouteTable(allRoutes());
  const router = createRouter(deps.services);

  // The log wraps the error handler so it records the status the client finally got.
  app.use(requestLog(deps.logger));
  // Outside everything else, so it counts the portal's pages and the status the client finally got.
  if (deps.metrics) app.use(httpMetrics(deps.metrics, table));
  // The affiliate portal answers HTML, its errors too: it claims /portal/… before the API's JSON error path.
  app.use(portal(deps));
  app.use(errorHandler(deps.logger));
  // Before CORS and the rate limit: a scraper is neither a browser nor counted.
  if (deps.metrics) app.use(metricsEndpoint(deps.metrics, deps.config.metrics));
  app.use(cors(table));
  app.use(rateLimit(deps.config, deps.logger, table, deps.services.authenticator, deps.redis));
  app.use(docsAssets());
  // A method the path lacks is 405 here, before the router could hand it to a sibling route.
  app.use(methodCheck(table));
  app.use(router.routes());
  // 501 (a method no route has) is set without a body; the error handler gives it the spec's body.
  app.use(router.allowedMethods());
  return app;
}
