import type { Db } from '../../db/knex.js';
import { ensureMonthlyUsage, monthKey, readMonthlyUsage } from '../../repositories/usage.js';

/** Campaigns whose month this daemon remembers, at most (then it forgets them all and asks again). */
const MONTHS_REMEMBERED = 1_000;

/**
 * A campaign's conversions of the month (spec §10.8), the counter intake reserves from. One per
 * daemon, built in `createServices` and shared by everything that stores sales (the event
 * endpoints, the billing integrations), so the month a campaign's counter is known to exist is
 * remembered once.
 */
export interface MonthlyUsage {
  /**
   * Makes sure the month's counter rows exist, before the transaction that reserves from them,
   * never inside it (see ensureMonthlyUsage). Remembered: a round trip per campaign and month.
   * Were the rows gone after all, the reservation creates them inside its transaction.
   */
  prepare(campaignId: number, at: Date): Promise<void>;
  /** The month (UTC, `YYYY-MM`) of `at`, and the conversions counted in it so far. */
  read(campaignId: number, at: Date): Promise<{ month: string; conversions: number }>;
}

export function monthlyUsage(db: Db): MonthlyUsage {
  const prepared = new Map<number, string>();
  return {
    async prepare(campaignId, at) {
      const month = monthKey(at);
      if (prepared.get(campaignId) === month) return;
      await ensureMonthlyUsage(db, campaignId, at);
      if (prepared.size >= MONTHS_REMEMBERED) prepared.clear();
      prepared.set(campaignId, month);
    },
    read: (campaignId, at) => readMonthlyUsage(db, campaignId, at),
  };
}
