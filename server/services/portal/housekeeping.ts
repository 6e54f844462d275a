import { errorSite } from '../../logger.js';
import { deleteExpiredSessions, deleteOldResetTokens } from '../../repositories/portalSessions.js';
import { deleteStaleThrottleRows } from '../../repositories/portalThrottle.js';
import type { ServiceDeps, Worker } from '../deps.js';

const EVERY_MS = 10 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes what the portal no longer needs: expired sessions, reset tokens a day past their
 * hour, throttling counts a day old. Expired rows are never trusted anyway (every read checks
 * the time): this only keeps the tables small. Any daemon may do it, several at once harmlessly.
 */
export function portalHousekeeping({ db, logger, now }: ServiceDeps): Worker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  async function sweep(): Promise<void> {
    const at = now();
    const dayAgo = new Date(at.getTime() - DAY_MS);
    try {
      await deleteExpiredSessions(db, at);
      await deleteOldResetTokens(db, dayAgo);
      await deleteStaleThrottleRows(db, dayAgo);
    } catch (err) {
      logger.warn('portal housekeeping failed', { code: (err as { code?: string }).code, thrownAt: errorSite(err) });
    }
  }
  return {
    name: 'portal-housekeeping',
    start() {
      if (timer) return;
      timer = setInterval(() => {
        running ??= sweep().finally(() => {
          running = undefined;
        });
      }, EVERY_MS);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
