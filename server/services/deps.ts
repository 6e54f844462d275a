import type { Config } from '../config.js';
import type { Db } from '../db/knex.js';
import type { CountryOf } from '../geoip.js';
import type { Logger } from '../logger.js';
import type { RedisClient } from '../repositories/portalThrottle.js';
import type { PayoutProviders } from './payouts/providers/index.js';

/** What every service is built from: each is built once, in `createServices` (docs/architecture.md). */
export interface ServiceDeps {
  db: Db;
  config: Readonly<Config>;
  logger: Logger;
  /** The time now; tests that control the clock pass their own. */
  now: () => Date;
  /** The daemon's Redis (`REDIS_URL`), shared state for every daemon; absent: the database holds it. */
  redis?: RedisClient;
  /** What metrics count (server/metrics/); absent (operator commands, METRICS_ENABLED=false): nothing. */
  observer?: Observer;
  /** A client address's country, from `GEOIP_DB` read at start; absent: every country is unknown. */
  countryOf?: CountryOf;
}

/** Why a whole request of events was refused, as metrics count it. */
export type RefusalReason = 'monthly_limit';

/**
 * What services tell metrics (docs/operations.md#metrics). Each call only adds to counters:
 * it is synchronous and cheap, because intake calls it for every request.
 */
export interface Observer {
  /** One transaction of the intake writer (group commit) committed or failed, with so many requests and events. */
  intakeFlushed(requests: number, events: number): void;
  /** One request's events as stored: how many were accepted, and each skipped one's reason. */
  eventsStored(accepted: number, skipped: readonly { reason: string }[]): void;
  /** A request whose events were all refused (so many events). */
  eventsRefused(reason: RefusalReason, events: number): void;
  /** The payout rails, each call counted by rail, operation and outcome (server/metrics/providerCalls.ts). */
  payoutProviders(providers: PayoutProviders): PayoutProviders;
}

/** Background work with a lifecycle: started after the daemon listens, stopped before the pool closes. */
export interface Worker {
  readonly name: string;
  start(): void;
  /** Resolves once work in progress has finished; nothing starts after it is called. */
  stop(): Promise<void>;
}
