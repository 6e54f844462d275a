import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { SKIP_REASONS } from '../../shared/schemas/event.js';
import { type Db, poolUse, type RetryReason, watchTransactionRetries } from '../db/knex.js';
import type { RuntimeFigures } from '../jobs/figures.js';
import type { Logger } from '../logger.js';
import type { Observer } from '../services/deps.js';
import type { PayoutProviders } from '../services/payouts/providers/index.js';
import { processMetrics } from './process.js';
import { type ProviderCallCounter, providerCallMetrics } from './providerCalls.js';
import { registerQueueMetrics } from './queues.js';

/**
 * A daemon's metrics (docs/operations.md#metrics). Labels hold only bounded values: a route's
 * template (never its path), a method, a status, a reason or a state; never a campaign, an
 * affiliate or anything a client chooses.
 */
export interface Metrics {
  /** What services report (intake). */
  readonly observer: Observer;
  /** One answered request: `route` is its template (`/v1/affiliates/:id`) or a fixed word. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** The text a scrape answers, and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
  /** Reads the job runtime's queues at each scrape from now on (the runtime is built after the metrics). */
  readQueues(runtime: RuntimeFigures): void;
  /**
   * The payout provider registry, every call it makes counted by rail, operation and outcome and
   * timed (server/metrics/providerCalls.ts). The provider metrics appear once a registry is
   * decorated, so a daemon that makes no provider calls exports none.
   */
  payoutProviders(providers: PayoutProviders): PayoutProviders;
}

export interface MetricsDeps {
  logger: Logger;
  /** The daemon's database: its pool and its transactions' retries. */
  db?: Db;
  /** The job runtime's queues, read at each scrape. */
  runtime?: RuntimeFigures;
}

/** Methods a label may name; anything else is `other`, so a client cannot mint series. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** From a cached get by id (about a millisecond) to a request that waited for a slow database. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const RETRY_REASONS: readonly RetryReason[] = [
  'deadlock',
  'lock_wait_timeout',
  'snapshot_conflict',
  'group_replication_conflict',
  'node_not_ready',
  'overtaken',
  'sqlite_busy',
];

export function createMetrics({ logger, db, runtime }: MetricsDeps): Metrics {
  const registry = new Registry();
  const registers = [registry];

  const requests = new Counter({
    name: 'affiliated_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const latency = new Histogram({
    name: 'affiliated_http_request_duration_seconds',
    help: 'Time from a request reaching the daemon to its answer, by method and route template',
    labelNames: ['method', 'route'],
    buckets: LATENCY_BUCKETS,
    registers,
  });

  const accepted = new Counter({
    name: 'affiliated_events_accepted_total',
    help: 'Events stored by POST /v1/events and POST /v1/sdk/events',
    registers,
  });
  const skipped = new Counter({
    name: 'affiliated_events_skipped_total',
    help: 'Events answered as skipped, by reason (spec §4.6)',
    labelNames: ['reason'],
    registers,
  });
  const refused = new Counter({
    name: 'affiliated_events_refused_total',
    help: 'Events of requests refused whole after validation, by reason (monthly_limit: the 403 of the plan)',
    labelNames: ['reason'],
    registers,
  });
  const flushRequests = new Histogram({
    name: 'affiliated_intake_flush_requests',
    help: 'Requests written by one transaction of the intake writer (group commit)',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
    registers,
  });
  const flushEvents = new Histogram({
    name: 'affiliated_intake_flush_events',
    help: 'Events written by one transaction of the intake writer (group commit)',
    buckets: [1, 10, 50, 100, 250, 500, 1000, 2500, 5000],
    registers,
  });
  // Every reason from the start, so that a rate over a reason that has not happened yet reads 0.
  for (const reason of SKIP_REASONS) skipped.inc({ reason }, 0);
  refused.inc({ reason: 'monthly_limit' }, 0);

  if (db) {
    const retries = new Counter({
      name: 'affiliated_db_transaction_retries_total',
      help: 'Transactions the database took back and the daemon ran again, by reason (deadlock includes Galera certification conflicts)',
      labelNames: ['reason'],
      registers,
    });
    const givenUp = new Counter({
      name: 'affiliated_db_transactions_given_up_total',
      help: 'Transactions taken back on their last run (the request got a 503), by reason',
      labelNames: ['reason'],
      registers,
    });
    for (const reason of RETRY_REASONS) {
      retries.inc({ reason }, 0);
      givenUp.inc({ reason }, 0);
    }
    watchTransactionRetries(db, (reason, retried) => (retried ? retries : givenUp).inc({ reason }));
    new Gauge({
      name: 'affiliated_db_pool_connections',
      help: 'Database connections of this daemon by state: used (lent out), free (idle), pending (requests waiting for one)',
      labelNames: ['state'],
      registers,
      collect() {
        const use = poolUse(db);
        this.set({ state: 'used' }, use.used);
        this.set({ state: 'free' }, use.free);
        this.set({ state: 'pending' }, use.pending);
      },
    });
    new Gauge({
      name: 'affiliated_db_pool_max',
      help: 'The most connections the pool opens',
      registers,
      collect() {
        this.set(poolUse(db).max);
      },
    });
  }
  if (runtime) registerQueueMetrics(registry, runtime, logger);
  let providerCalls: ProviderCallCounter | undefined;
  const payoutProviders = (providers: PayoutProviders) => {
    providerCalls ??= providerCallMetrics(registry);
    return providerCalls(providers);
  };

  // Each request's series, found once: prom-client checks and hashes a label object on every call,
  // which is most of what metrics cost a request. Bounded as the labels are (routes × methods × statuses).
  const requestSeries = new Map<
    string,
    { count: ReturnType<typeof requests.labels>; time: ReturnType<typeof latency.labels> }
  >();

  return {
    observer: {
      intakeFlushed(requestCount, eventCount) {
        flushRequests.observe(requestCount);
        flushEvents.observe(eventCount);
      },
      eventsStored(count, skips) {
        if (count > 0) accepted.inc(count);
        for (const skip of skips) skipped.inc({ reason: skip.reason });
      },
      eventsRefused(reason, count) {
        refused.inc({ reason }, count);
      },
      payoutProviders: (providers) => payoutProviders(providers),
    },
    request(method, route, status, seconds) {
      const m = METHODS.has(method) ? method : 'other';
      const key = `${m} ${route} ${status}`;
      let series = requestSeries.get(key);
      if (!series) {
        series = { count: requests.labels(m, route, String(status)), time: latency.labels(m, route) };
        requestSeries.set(key, series);
      }
      series.count.inc();
      series.time.observe(seconds);
    },
    readQueues(figures) {
      registerQueueMetrics(registry, figures, logger);
    },
    payoutProviders,
    async scrape() {
      const [own, processes] = await Promise.all([registry.metrics(), processMetrics().metrics()]);
      return { contentType: registry.contentType, body: `${own}${processes}` };
    },
  };
}
