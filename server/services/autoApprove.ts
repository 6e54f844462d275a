import type { PeriodicJob, PeriodicRunner } from '../jobs/periodic.js';
import { periodicRunner } from '../jobs/periodic.js';
import { errorSite } from '../logger.js';
import { campaignsWithHoldPeriod } from '../repositories/campaigns.js';
import type { ConversionService } from './conversions.js';
import type { ServiceDeps } from './deps.js';

const DAY_MS = 86_400_000;
/** Conversions approved per call; each call locks and changes them in chunks. */
const BATCH = 1000;

/** The hold period's runner: `runOnce` is one pass over every campaign with a hold period, answering how many it approved. */
export type AutoApproveWorker = PeriodicRunner<number>;

/**
 * The hold period (docs/payouts.md), a periodic job of the job runtime: every
 * `AUTO_APPROVE_INTERVAL_MS`, approves pending conversions that arrived more than the
 * campaign's `autoApproveDays` ago, judged on `createdAt` against `now()` when the run happens,
 * so a changed setting applies to the conversions already waiting. Safe with several daemons:
 * each chunk is picked with row locks (SKIP LOCKED on MySQL) and moved with the conditional
 * update every approval uses, so nothing is approved twice and a concurrent reject is never
 * lost. A row another transaction holds at that moment is skipped and approved by the next run.
 */
export function autoApproveJob(
  { db, config, logger, now }: ServiceDeps,
  conversions: ConversionService,
): PeriodicJob<number> {
  const failure = { message: 'auto-approve failed', level: 'error' as const };
  return {
    name: 'auto-approve',
    everyMs: config.autoApproveIntervalMs,
    // 0 leaves the schedule to other daemons on the same database.
    enabled: config.autoApproveIntervalMs > 0,
    failure,
    async run(signal) {
      const at = now().getTime();
      let approved = 0;
      for (const campaign of await campaignsWithHoldPeriod(db)) {
        const cutoff = new Date(at - campaign.days * DAY_MS);
        try {
          for (;;) {
            const chunk = await conversions.approvePendingBefore(campaign.id, cutoff, BATCH);
            approved += chunk.approved;
            // A full chunk means more may wait, even when a concurrent reject won some of its
            // rows; a stopping daemon ends after the chunk in hand.
            if (chunk.taken < BATCH || signal.aborted) break;
          }
        } catch (err) {
          // One campaign's failure must not starve the others; the next run tries again.
          logger.error(failure.message, {
            campaignId: campaign.id,
            code: (err as { code?: string }).code,
            thrownAt: errorSite(err),
          });
        }
      }
      if (approved > 0) logger.info('auto-approved conversions', { approved });
      return approved;
    },
  };
}

/** The hold period's runner on its own (tests, and operator tools that run one pass). */
export function autoApproveWorker(deps: ServiceDeps, conversions: ConversionService): AutoApproveWorker {
  return periodicRunner(deps, autoApproveJob(deps, conversions));
}
