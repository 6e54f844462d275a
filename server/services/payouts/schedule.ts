import type { PeriodicJob } from '../../jobs/periodic.js';
import { errorSite } from '../../logger.js';
import { campaignsWithPayoutSchedule, claimPayoutPeriod } from '../../repositories/campaigns.js';
import type { ServiceDeps } from '../deps.js';
import type { PayoutRunService } from './run.js';

/**
 * The start of the period `at` is in, in UTC (docs/payouts.md#payout-runs): a week starts on
 * Monday at 00:00, a month on its 1st at 00:00.
 */
export function payoutPeriodStart(schedule: 'weekly' | 'monthly', at: Date): Date {
  if (schedule === 'monthly') return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const daysSinceMonday = (at.getUTCDay() + 6) % 7;
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - daysSinceMonday));
}

/**
 * The payout schedule, a periodic job of the job runtime: every `PAYOUT_SCHEDULE_INTERVAL_MS`,
 * each campaign whose weekly or monthly period has begun since its last run is claimed by one
 * conditional update of `payout_run_at` and, by the daemon that claimed it, run as
 * `POST /v1/payout-runs` runs (recorded as scheduled work). Several daemons run each period
 * once; a run that failed waits for the next period (its payouts are already created or not).
 */
export function payoutScheduleJob(
  { db, config, logger, now }: ServiceDeps,
  runs: PayoutRunService,
): PeriodicJob<number> {
  const failure = { message: 'scheduled payout run failed', level: 'error' as const };
  return {
    name: 'payout-schedule',
    everyMs: config.payoutScheduleIntervalMs,
    enabled: config.payoutScheduleIntervalMs > 0,
    failure,
    async run(signal) {
      let ran = 0;
      for (const campaign of await campaignsWithPayoutSchedule(db)) {
        if (signal.aborted) break;
        try {
          const start = payoutPeriodStart(campaign.schedule, now());
          if (!(await claimPayoutPeriod(db, campaign.id, campaign.schedule, start))) continue;
          const run = await runs.start(campaign.id, {});
          ran += 1;
          logger.info('scheduled payout run', { campaignId: campaign.id, runId: run.id, payouts: run.payouts.length });
        } catch (err) {
          // One campaign's failure must not starve the others.
          logger.error(failure.message, {
            campaignId: campaign.id,
            code: (err as { code?: string }).code,
            thrownAt: errorSite(err),
          });
        }
      }
      return ran;
    },
  };
}
