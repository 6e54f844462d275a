import type { PeriodicJob } from '../../jobs/periodic.js';
import { deleteExpiredDashboardRows } from '../../repositories/dashboardSessions.js';
import { deleteExpiredSessions, deleteOldResetTokens } from '../../repositories/portalSessions.js';
import { deleteStaleThrottleRows } from '../../repositories/portalThrottle.js';
import type { ServiceDeps } from '../deps.js';

const EVERY_MS = 10 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes what the portal no longer needs, every 10 minutes (a periodic job of the job
 * runtime): expired sessions, reset tokens a day past their hour, throttling counts a day old,
 * and the merchant dashboard's expired sessions and set-up links.
 * Expired rows are never trusted anyway (every read checks the time): this only keeps the
 * tables small. Any daemon may do it, several at once harmlessly.
 */
export function portalHousekeeping({ db, now }: ServiceDeps): PeriodicJob<void> {
  return {
    name: 'portal-housekeeping',
    everyMs: EVERY_MS,
    enabled: true,
    failure: { message: 'portal housekeeping failed', level: 'warn' },
    async run() {
      const at = now();
      const dayAgo = new Date(at.getTime() - DAY_MS);
      await deleteExpiredSessions(db, at);
      await deleteOldResetTokens(db, dayAgo);
      await deleteStaleThrottleRows(db, dayAgo);
      await deleteExpiredDashboardRows(db, at);
    },
  };
}
