import { isReversed } from '../../shared/dateRange.js';
import { MESSAGES } from '../../shared/errors.js';
import { fromCents } from '../../shared/money.js';
import type { AffiliateReport, AffiliateReportQuery, AffiliateReportRow } from '../../shared/schemas/report.js';
import { ValidationError } from '../errors.js';
import { affiliateTotals, campaignDayTotals, type DayTotals, utcDay } from '../repositories/dailyStats.js';
import type { ServiceDeps } from './deps.js';

export interface ReportService {
  /** `GET /v1/reports/affiliates`: per-affiliate activity of a campaign over a range of days. */
  affiliates(campaignId: number, query: AffiliateReportQuery): Promise<AffiliateReport>;
  /** The campaign's sums per UTC day over `[from, to]` (`YYYY-MM-DD`), days without activity absent: the dashboard's overview. */
  days(campaignId: number, from: string, to: string): Promise<DayTotals[]>;
}

/** The default range: the last 30 days up to today, both ends included. */
const DEFAULT_REPORT_DAYS = 30;
const DAY_MS = 86_400_000;

interface Sums {
  pageViews: number;
  leads: number;
  conversions: number;
  revenueCents: number;
  commissionCents: number;
}

/**
 * conversions ÷ page views to four decimals. With no page views, or fewer than conversions,
 * there is no rate to give: conversions come from the merchant's backend, page views from the
 * tag, so more sales than visits means visits the tag did not see (494,400 % said nothing).
 */
function rate(conversions: number, pageViews: number): number | null {
  if (pageViews === 0 || conversions > pageViews) return null;
  return Math.round((conversions / pageViews) * 10_000) / 10_000;
}

/** Counts and money of the answer; money stays in integer centavos until here (exact sums). */
function counts(sums: Sums) {
  return {
    pageViews: sums.pageViews,
    leads: sums.leads,
    conversions: sums.conversions,
    conversionRate: rate(sums.conversions, sums.pageViews),
    revenue: fromCents(sums.revenueCents),
    commissions: fromCents(sums.commissionCents),
  };
}

/** The range's first and last UTC day: both given, one given, or the last 30 days up to `now`. */
function reportRange(query: AffiliateReportQuery, now: Date): { from: string; to: string } {
  const shift = (day: string, days: number) => utcDay(new Date(Date.parse(day) + days * DAY_MS));
  const to = query.to === undefined ? utcDay(now) : utcDay(query.to);
  const from = query.from === undefined ? shift(to, -(DEFAULT_REPORT_DAYS - 1)) : utcDay(query.from);
  // One rule for date ranges (shared/dateRange.ts): a reversed range is refused, never empty.
  if (from > to || isReversed(query.from, query.to)) {
    throw new ValidationError([MESSAGES.rangeReversed(query.from ?? from, query.to ?? to)]);
  }
  return { from, to };
}

/**
 * One row per affiliate of the campaign with activity in the range, from the daily counters
 * kept at intake (never a scan of the events). Rows come most revenue first, then most
 * conversions, leads and page views; ties by affiliate id.
 */
export function reportService({ db, now }: ServiceDeps): ReportService {
  return {
    days: (campaignId, from, to) => campaignDayTotals(db, campaignId, from, to),

    async affiliates(campaignId, query) {
      const { from, to } = reportRange(query, now());
      const rows = await affiliateTotals(db, campaignId, from, to);
      const total: Sums = { pageViews: 0, leads: 0, conversions: 0, revenueCents: 0, commissionCents: 0 };
      const affiliates: AffiliateReportRow[] = rows
        .sort(
          (a, b) =>
            b.revenueCents - a.revenueCents ||
            b.conversions - a.conversions ||
            b.leads - a.leads ||
            b.pageViews - a.pageViews ||
            a.affiliateId - b.affiliateId,
        )
        .map(({ affiliateId, referralId, name, ...sums }) => {
          for (const key of Object.keys(total) as (keyof Sums)[]) total[key] += sums[key];
          return { affiliateId, referralId, name, ...counts(sums) };
        });
      return { from, to, affiliates, totals: counts(total) };
    },
  };
}
