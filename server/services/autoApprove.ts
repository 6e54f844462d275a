import { errorSite } from '../logger.js';
import { campaignsWithHoldPeriod } from '../repositories/campaigns.js';
import type { ConversionService } from './conversions.js';
import type { ServiceDeps, Worker } from './deps.js';

const DAY_MS = 86_400_000;
/** Conversions approved per call; each call locks and changes them in chunks. */
const BATCH = 1000;

export interface AutoApproveWorker extends Worker {
  /** One pass over every campaign with a hold period; answers how many conversions it approved. */
  runOnce(): Promise<number>;
}

/**
 * The hold period (docs/payouts.md): every `AUTO_APPROVE_INTERVAL_MS`, approves pending
 * conversions that arrived more than the campaign's `autoApproveDays` ago, judged on
 * `createdAt` against `now()` when the run happens, so a changed setting applies to the
 * conversions already waiting. Safe with several daemons: each chunk is picked with row locks
 * (SKIP LOCKED on MySQL) and moved with the conditional update every approval uses, so nothing
 * is approved twice and a concurrent reject is never lost. A row another transaction holds at
 * that moment is skipped and approved by the next run.
 */
export function autoApproveWorker(
  { db, config, logger, now }: ServiceDeps,
  conversions: ConversionService,
): AutoApproveWorker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let started = false;
  /** Set by stop(): a long run ends after the chunk in hand. */
  let stopping = false;

  const failed = (err: unknown, fields: Record<string, unknown> = {}) =>
    logger.error('auto-approve failed', {
      ...fields,
      code: (err as { code?: string }).code,
      thrownAt: errorSite(err),
    });

  async function runOnce(): Promise<number> {
    const at = now().getTime();
    let approved = 0;
    for (const campaign of await campaignsWithHoldPeriod(db)) {
      const cutoff = new Date(at - campaign.days * DAY_MS);
      try {
        for (;;) {
          const chunk = await conversions.approvePendingBefore(campaign.id, cutoff, BATCH);
          approved += chunk.approved;
          // A full chunk means more may wait, even when a concurrent reject won some of its rows.
          if (chunk.taken < BATCH || stopping) break;
        }
      } catch (err) {
        // One campaign's failure must not starve the others; the next run tries again.
        failed(err, { campaignId: campaign.id });
      }
    }
    if (approved > 0) logger.info('auto-approved conversions', { approved });
    return approved;
  }

  function schedule(): void {
    if (!started) return;
    timer = setTimeout(() => {
      running = runOnce()
        .catch((err: unknown) => failed(err))
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, config.autoApproveIntervalMs);
    timer.unref();
  }

  return {
    name: 'auto-approve',
    runOnce,
    start() {
      // 0 leaves the schedule to other daemons on the same database.
      if (config.autoApproveIntervalMs === 0 || started) return;
      started = true;
      stopping = false;
      schedule();
    },
    /** Waits for a run in progress, so the pool is not closed under it. */
    async stop() {
      stopping = true;
      started = false;
      clearTimeout(timer);
      await running;
    },
  };
}
