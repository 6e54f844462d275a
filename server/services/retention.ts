import type { PeriodicJob } from '../jobs/periodic.js';
import { deleteClicksBefore, deletePageViewsBefore } from '../repositories/retention.js';
import { clickIdFloor } from './clicks/clickId.js';
import type { ServiceDeps } from './deps.js';

const EVERY_MS = 10 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** A breath between batches, so intake and clicks never wait long behind retention. */
const PAUSE_MS = 20;

export interface RetentionRun {
  clicks: number;
  pageViews: number;
}

const pause = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS));

/**
 * `EVENTS_RETENTION_DAYS` (docs/analytics.md#retention): every 10 minutes, raw page views and
 * clicks older than that are deleted in batches of 500, until none is left or the daemon stops.
 * Never leads, conversions, the report's daily counters or the analytics rollups: totals stay.
 * Any daemon may run it, several at once harmlessly (a row deleted twice is deleted once).
 */
export function eventsRetention({
  db,
  config,
  now,
}: Pick<ServiceDeps, 'db' | 'config' | 'now'>): PeriodicJob<RetentionRun> {
  const days = config.eventsRetentionDays;
  return {
    name: 'events-retention',
    everyMs: EVERY_MS,
    enabled: days !== undefined,
    failure: { message: 'events retention failed', level: 'warn' },
    async run(signal) {
      const done: RetentionRun = { clicks: 0, pageViews: 0 };
      if (days === undefined) return done;
      const before = new Date(now().getTime() - days * DAY_MS);
      const floor = clickIdFloor(before);
      for (let deleted = -1; deleted !== 0 && !signal.aborted;) {
        deleted = await deleteClicksBefore(db, floor);
        done.clicks += deleted;
        if (deleted > 0) await pause();
      }
      for (let after: number | undefined = 0; after !== undefined && !signal.aborted;) {
        const batch = await deletePageViewsBefore(db, after, before);
        done.pageViews += batch.deleted;
        after = batch.next;
        if (after !== undefined) await pause();
      }
      return done;
    },
  };
}
