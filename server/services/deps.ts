import type { Config } from '../config.js';
import type { Db } from '../db/knex.js';
import type { Logger } from '../logger.js';
import type { RedisClient } from '../repositories/portalThrottle.js';

/** What every service is built from: each is built once, in `createServices` (docs/architecture.md). */
export interface ServiceDeps {
  db: Db;
  config: Readonly<Config>;
  logger: Logger;
  /** The time now; tests that control the clock pass their own. */
  now: () => Date;
  /** The daemon's Redis (`REDIS_URL`), shared state for every daemon; absent: the database holds it. */
  redis?: RedisClient;
}

/** Background work with a lifecycle: started after the daemon listens, stopped before the pool closes. */
export interface Worker {
  readonly name: string;
  start(): void;
  /** Resolves once work in progress has finished; nothing starts after it is called. */
  stop(): Promise<void>;
}
