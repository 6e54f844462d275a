import type { Db, Trx } from '../db/knex.js';
import { insertRows } from '../db/bulk.js';
import type { AffiliateDailyStatsRow } from '../db/rows.js';
import { COUNTER_SHARD } from './counterShard.js';

/** The affiliate's activity summed over a range of days, with what the report shows of it. */
export interface AffiliateTotals {
  affiliateId: number;
  referralId: string;
  name: string | null;
  pageViews: number;
  leads: number;
  conversions: number;
  revenueCents: number;
  commissionCents: number;
}

type AffiliateTotalsRow = Omit<AffiliateDailyStatsRow, 'campaign_id' | 'day' | 'shard'> & {
  referral_id: string;
  name: string | null;
};

const COUNTERS = ['page_views', 'leads', 'conversions', 'revenue_cents', 'commission_cents'] as const;

/** `YYYY-MM-DD` of an instant (a Date, or ISO text), in UTC: the report's unit of time. */
export function utcDay(at: Date | string): string {
  return (typeof at === 'string' ? new Date(at) : at).toISOString().slice(0, 10);
}

/** A stored tracking event as the counters see it: conversions carry their order value and commission. */
export interface StoredEvent {
  campaignId: number;
  affiliateId: number;
  eventType: string;
  occurredAt: Date;
  orderValueCents: number | null;
  commissionCents: number | null;
}

/** Sums stored events per (campaign, day, affiliate) into this daemon's shard, in primary-key order. */
function dailyTotals(events: readonly StoredEvent[]): AffiliateDailyStatsRow[] {
  const rows = new Map<string, AffiliateDailyStatsRow>();
  for (const event of events) {
    const day = utcDay(event.occurredAt);
    const key = `${event.campaignId}\n${day}\n${event.affiliateId}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        campaign_id: event.campaignId,
        day,
        affiliate_id: event.affiliateId,
        shard: COUNTER_SHARD,
        page_views: 0,
        leads: 0,
        conversions: 0,
        revenue_cents: 0,
        commission_cents: 0,
      };
      rows.set(key, row);
    }
    if (event.eventType === 'page_view') row.page_views++;
    else if (event.eventType === 'lead') row.leads++;
    else if (event.commissionCents !== null) {
      row.conversions++;
      row.revenue_cents += event.orderValueCents ?? 0;
      row.commission_cents += event.commissionCents;
    }
  }
  // The same lock order in every transaction keeps concurrent intakes from deadlocking here.
  return [...rows.keys()]
    .sort()
    .map((key) => rows.get(key))
    .filter((row): row is AffiliateDailyStatsRow => row !== undefined);
}

/**
 * Adds events just stored in this transaction to the daily counters, so the report counts
 * exactly what is on disk. The intake passes what it knows it stored (no read-back); multi-row
 * upserts that increment, one per 500 counter rows (one for most flushes), in key order.
 */
export async function addToDailyStats(trx: Trx, events: readonly StoredEvent[]): Promise<void> {
  const rows = dailyTotals(events);
  if (rows.length === 0) return;
  // Counter rows are in key order (dailyTotals): concurrent flushes lock them in one order.
  await insertRows(trx, 'affiliate_daily_stats', ['campaign_id', 'day', 'affiliate_id', 'shard', ...COUNTERS], rows, {
    key: ['campaign_id', 'day', 'affiliate_id', 'shard'],
    increment: COUNTERS,
  });
  // Then the campaign's days, after the affiliates' (one lock order for every transaction).
  await addToCampaignDays(trx, rows);
}

/** The campaign's counters of a day in one shard: what the overview reads (a few rows a month). */
type CampaignDayRow = Omit<AffiliateDailyStatsRow, 'affiliate_id'>;

/** Adds affiliate counter rows (positive, or negative to take them back) to their campaigns' days, in key order. */
async function addToCampaignDays(trx: Trx, rows: readonly AffiliateDailyStatsRow[]): Promise<void> {
  const days = new Map<string, CampaignDayRow>();
  for (const row of rows) {
    const key = `${row.campaign_id}\n${row.day}\n${row.shard}`;
    const day = days.get(key) ?? {
      ...row,
      page_views: 0,
      leads: 0,
      conversions: 0,
      revenue_cents: 0,
      commission_cents: 0,
    };
    for (const counter of COUNTERS) day[counter] += row[counter];
    days.set(key, day);
  }
  const sorted = [...days.keys()].sort().flatMap((key) => days.get(key) ?? []);
  await insertRows(trx, 'campaign_daily_stats', ['campaign_id', 'day', 'shard', ...COUNTERS], sorted, {
    key: ['campaign_id', 'day', 'shard'],
    increment: COUNTERS,
  });
}

/**
 * Before an affiliate is deleted (its counter rows go with it, by cascade): takes its counters
 * back out of its campaign's days, in this daemon's shard, so the overview keeps equalling the
 * report. Its rows are read locked (the caller holds the affiliate's row, so no new one appears).
 */
export async function withdrawFromCampaignDays(trx: Trx, affiliateId: number): Promise<void> {
  const rows: AffiliateDailyStatsRow[] = await trx('affiliate_daily_stats')
    .where('affiliate_id', affiliateId)
    .forUpdate()
    .select('campaign_id', 'day', 'affiliate_id', 'shard', ...COUNTERS);
  await addToCampaignDays(
    trx,
    rows.map((row) => ({
      campaign_id: row.campaign_id,
      day: row.day,
      affiliate_id: row.affiliate_id,
      shard: COUNTER_SHARD,
      page_views: -Number(row.page_views),
      leads: -Number(row.leads),
      conversions: -Number(row.conversions),
      revenue_cents: -Number(row.revenue_cents),
      commission_cents: -Number(row.commission_cents),
    })),
  );
}

/**
 * Per-affiliate sums over `[fromDay, toDay]` (inclusive, `YYYY-MM-DD`): one range scan of the
 * primary key (campaign_id, day, …), grouped, then one primary-key read per affiliate found.
 */
export async function affiliateTotals(
  db: Db | Trx,
  campaignId: number,
  fromDay: string,
  toDay: string,
): Promise<AffiliateTotals[]> {
  const sums = db('affiliate_daily_stats')
    .where('campaign_id', campaignId)
    .whereBetween('day', [fromDay, toDay])
    .groupBy('affiliate_id')
    .select('affiliate_id')
    .sum({ page_views: 'page_views' })
    .sum({ leads: 'leads' })
    .sum({ conversions: 'conversions' })
    .sum({ revenue_cents: 'revenue_cents' })
    .sum({ commission_cents: 'commission_cents' })
    .as('s');
  const rows = await db
    .from(sums)
    .join('affiliates as a', 'a.id', 's.affiliate_id')
    .select<AffiliateTotalsRow[]>('s.*', 'a.referral_id', 'a.name');
  return rows.map((row) => ({
    affiliateId: Number(row.affiliate_id),
    referralId: row.referral_id,
    name: row.name,
    pageViews: Number(row.page_views),
    leads: Number(row.leads),
    conversions: Number(row.conversions),
    revenueCents: Number(row.revenue_cents),
    commissionCents: Number(row.commission_cents),
  }));
}

/** A campaign's sums of one day. */
export interface DayTotals {
  day: string;
  pageViews: number;
  leads: number;
  conversions: number;
  commissionCents: number;
}

/**
 * The campaign's sums per day over `[fromDay, toDay]` (the dashboard's overview): one range scan
 * of campaign_daily_stats' primary key (campaign_id, day, shard), a row per day and shard,
 * grouped by day. Days without activity are absent. Not affiliate_daily_stats: at 100,000
 * affiliates its two months are up to millions of rows (docs/benchmarks.md, the overview).
 */
export async function campaignDayTotals(
  db: Db,
  campaignId: number,
  fromDay: string,
  toDay: string,
): Promise<DayTotals[]> {
  const rows: { day: string; page_views: number; leads: number; conversions: number; commission_cents: number }[] =
    await db('campaign_daily_stats')
      .where('campaign_id', campaignId)
      .whereBetween('day', [fromDay, toDay])
      .groupBy('day')
      .orderBy('day')
      .select('day')
      .sum({ page_views: 'page_views' })
      .sum({ leads: 'leads' })
      .sum({ conversions: 'conversions' })
      .sum({ commission_cents: 'commission_cents' });
  return rows.map((row) => ({
    day: String(row.day).slice(0, 10),
    pageViews: Number(row.page_views),
    leads: Number(row.leads),
    conversions: Number(row.conversions),
    commissionCents: Number(row.commission_cents),
  }));
}
