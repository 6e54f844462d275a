import type { PeriodicJob } from '../../jobs/periodic.js';
import { errorSite } from '../../logger.js';
import { stalledPayoutRuns } from '../../repositories/payoutRuns.js';
import type { ServiceDeps } from '../deps.js';
import type { PayoutRunService } from './run.js';

/** Runs resumed by one pass at most; the next pass takes the rest. */
const RUNS_PER_PASS = 20;

/**
 * Resumes payout runs a crash stopped (docs/payouts.md#recovery-a-run-that-stopped-half-way), a
 * periodic job of the job runtime: every `PAYOUT_RESUME_AFTER_MS`, each run still `creating` or
 * `sending` that began longer ago than that is closed and its pending payouts are sent. Each send
 * is the payout's own conditional update (`pending → processing`, the intent first), so a run
 * resumed by several daemons at once, or still going on its own daemon, sends each payout once.
 */
export function payoutResumeJob(
  { db, config, logger, now }: Pick<ServiceDeps, 'db' | 'config' | 'logger' | 'now'>,
  runs: PayoutRunService,
): PeriodicJob<number> {
  const failure = { message: 'resuming a stopped payout run failed', level: 'error' as const };
  return {
    name: 'payout-resume',
    everyMs: config.payoutResumeAfterMs,
    enabled: config.payoutResumeAfterMs > 0,
    failure,
    async run(signal) {
      let sent = 0;
      const before = new Date(now().getTime() - config.payoutResumeAfterMs);
      for (const run of await stalledPayoutRuns(db, before, RUNS_PER_PASS)) {
        if (signal.aborted) break;
        try {
          const count = await runs.resume(run);
          sent += count;
          logger.warn('resumed a stopped payout run', { campaignId: run.campaignId, runId: run.id, sent: count });
        } catch (err) {
          // One run's failure must not stop the others.
          logger.error(failure.message, {
            campaignId: run.campaignId,
            runId: run.id,
            code: (err as { code?: string }).code,
            thrownAt: errorSite(err),
          });
        }
      }
      return sent;
    },
  };
}
