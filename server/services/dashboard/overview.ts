import type { DayTotals } from '../../repositories/dailyStats.js';
import type { ReportService } from '../reports.js';

export interface MonthTotals {
  pageViews: number;
  leads: number;
  conversions: number;
  commissionCents: number;
}

/** docs/dashboard.md#overview: this month so far against the whole of last month, and this month per day. */
export interface Overview {
  thisMonth: MonthTotals;
  lastMonth: MonthTotals;
  /** Every day of this month up to today (UTC), zero where nothing happened. */
  days: DayTotals[];
}

const dayOf = (at: Date) => at.toISOString().slice(0, 10);

function sum(days: readonly DayTotals[]): MonthTotals {
  const total = { pageViews: 0, leads: 0, conversions: 0, commissionCents: 0 };
  for (const d of days) {
    total.pageViews += d.pageViews;
    total.leads += d.leads;
    total.conversions += d.conversions;
    total.commissionCents += d.commissionCents;
  }
  return total;
}

/** From the report's daily counters, one range read from the first of last month to today. */
export async function overview(reports: ReportService, campaignId: number, now: Date): Promise<Overview> {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const firstOfMonth = dayOf(new Date(Date.UTC(year, month, 1)));
  const firstOfLast = dayOf(new Date(Date.UTC(year, month - 1, 1)));
  const today = dayOf(now);
  const rows = await reports.days(campaignId, firstOfLast, today);
  const current = rows.filter((d) => d.day >= firstOfMonth);
  const byDay = new Map(current.map((d) => [d.day, d]));
  const days: DayTotals[] = [];
  for (let n = 1; n <= now.getUTCDate(); n++) {
    const day = dayOf(new Date(Date.UTC(year, month, n)));
    days.push(byDay.get(day) ?? { day, pageViews: 0, leads: 0, conversions: 0, commissionCents: 0 });
  }
  return { thisMonth: sum(current), lastMonth: sum(rows.filter((d) => d.day < firstOfMonth)), days };
}
