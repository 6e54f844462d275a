import type { Server } from 'node:http';
import Router from '@koa/router';
import type { Redis } from 'ioredis';
import Koa from 'koa';
import type { Config } from './config.js';
import type { Db } from './db/knex.js';
import type { Logger } from './logger.js';
import { sdkCors } from './middleware/cors.js';
import { errorHandler } from './middleware/errors.js';
import { rateLimit } from './middleware/rateLimit.js';
import { requestLog } from './middleware/requestLog.js';
import { affiliateRoutes } from './routes/affiliates.js';
import { campaignRoutes } from './routes/campaign.js';
import { eventRoutes } from './routes/events.js';
import { ApiKeyAuthenticator } from './services/auth.js';

export interface AppDeps {
  config: Readonly<Config>;
  db: Db;
  logger: Logger;
  redis?: Redis;
}

/** What a route module gets: its dependencies and the shared key authenticator. */
export interface RouteDeps extends AppDeps {
  authenticator: ApiKeyAuthenticator;
}

/** createApp(deps): request log, error handler, rate limit, routes (auth and body per route). */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: deps.config.trustProxy });
  app.silent = true;
  const routeDeps: RouteDeps = {
    ...deps,
    authenticator: new ApiKeyAuthenticator(deps.db, deps.config.apiKeyCacheMs, deps.logger),
  };
  const router = new Router();
  affiliateRoutes(router, routeDeps);
  eventRoutes(router, routeDeps);
  campaignRoutes(router, routeDeps);

  // The log wraps the error handler so it records the status the client finally got.
  app.use(requestLog(deps.logger));
  app.use(errorHandler(deps.logger));
  app.use(sdkCors());
  app.use(rateLimit(deps.config, deps.logger, deps.redis));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  return app;
}

export type { Server };
