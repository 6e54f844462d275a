import { MESSAGES } from '../../../shared/errors.js';
import type { EventsResponse, TrackingEvent } from '../../../shared/schemas/event.js';
import { type Db, inTransaction, isDatabaseUnavailable } from '../../db/knex.js';
import { ForbiddenError } from '../../errors.js';
import type { Observer } from '../deps.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { MonthlyLimitReached, type Stored, storeFlush } from './flush.js';
import { createGroupCommitter, type GroupCommitStats } from './groupCommit.js';
import type { IntakeJob, MonthlyLimit } from './records.js';
import type { MonthlyUsage } from './usage.js';

/** Stores validated events: `(events, campaign of each event, the key's campaign and monthly limit)`. */
export interface EventIntake {
  (
    events: readonly TrackingEvent[],
    campaignOf: (event: TrackingEvent) => number,
    limit: MonthlyLimit | undefined,
  ): Promise<EventsResponse>;
  /** Holds the writer: requests sent meanwhile share the next flush (tests). */
  hold(): () => void;
  /** Resolves once `count` requests wait for the writer. */
  queued(count: number): Promise<void>;
  stats(): GroupCommitStats;
  /** Resolves once every request handed to the writer has its answer. */
  drained(): Promise<void>;
}

/** Events per flush, at most (a flush always takes at least one request, up to 1,000 events). */
const FLUSH_EVENTS = 5_000;

/**
 * A request of more events than this is a batch: batches flush in a lane of their own, so a
 * request of a few events never shares a batch's transaction (docs/architecture.md: one
 * campaign's batches of 300 conversions held every request of their flush until they committed).
 */
const BATCH_EVENTS = 100;

/** The month's counter of each request that may reserve from it, made sure of before the flush's transaction. */
async function prepareMonths(usage: MonthlyUsage, jobs: readonly IntakeJob[]): Promise<void> {
  for (const { limit, events, now } of jobs) {
    if (limit && events.some((event) => event.event_type === 'conversion')) await usage.prepare(limit.campaignId, now);
  }
}

/**
 * Event intake after validation, with group commit (docs/architecture.md): requests that
 * arrive while a flush is being written share the next one, one transaction and one fsync;
 * each is answered only after that commit, with its own accepted, skipped or 403.
 * One `now` per request: it stamps the rows and picks the calendar month (UTC) whose
 * conversion counter the request reserves from (spec §10.8).
 */
export function createEventIntake(
  db: Db,
  outbox: WebhookOutbox,
  usage: MonthlyUsage,
  observer: Observer | undefined,
  /** Off only for the bench's baseline (`ROLLUP_UPKEEP=false`, docs/benchmarks.md). */
  rollups: boolean,
): EventIntake {
  const committer = createGroupCommitter<IntakeJob, Stored>(
    async (jobs) => {
      await prepareMonths(usage, jobs);
      return inTransaction(db, (trx) => storeFlush(trx, jobs, outbox, rollups));
    },
    {
      maxWeight: FLUSH_EVENTS,
      weightOf: (job) => job.events.length,
      batchOver: BATCH_EVENTS,
      // Unreachable: every request of the flush gets its 503 now, not one timeout after another.
      retryAlone: (err) => !isDatabaseUnavailable(err),
      onFlush: observer && ((requests, events) => observer.intakeFlushed(requests, events)),
    },
  );

  async function intake(
    events: readonly TrackingEvent[],
    campaignOf: (event: TrackingEvent) => number,
    limit: MonthlyLimit | undefined,
  ): Promise<EventsResponse> {
    const now = new Date();
    let stored: Stored = { accepted: 0, skipped: [] };
    if (events.length > 0) {
      try {
        stored = await committer.submit({ events, campaignIds: events.map(campaignOf), limit, now });
      } catch (err) {
        if (!(err instanceof MonthlyLimitReached) || !limit || limit.maxMonthlyConversions === null) throw err;
        observer?.eventsRefused('monthly_limit', events.length);
        // spec §7: whole batch refused, nothing of it stored (its transaction or savepoint rolled back).
        throw new ForbiddenError(MESSAGES.conversionLimit(limit.planName, err.current, limit.maxMonthlyConversions));
      }
    }
    observer?.eventsStored(stored.accepted, stored.skipped);
    return { success: true, received: events.length, accepted: stored.accepted, skipped: stored.skipped };
  }

  return Object.assign(intake, {
    hold: committer.hold,
    queued: committer.queued,
    stats: committer.stats,
    drained: committer.drained,
  });
}
