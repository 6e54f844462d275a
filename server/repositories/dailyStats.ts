import type { Db, Trx } from '../db/knex.js';
import { insertRows } from '../db/bulk.js';
import { type AffiliateDailyStatsRow, type DbDate, toDate } from '../db/rows.js';

/** The affiliate's activity summed over a range of days, with what the report shows of it. */
export interface AffiliateTotalsRow {
  affiliate_id: number;
  referral_id: string;
  name: string | null;
  page_views: number;
  leads: number;
  conversions: number;
  revenue_cents: number;
  commission_cents: number;
}

const COUNTERS = ['page_views', 'leads', 'conversions', 'revenue_cents', 'commission_cents'] as const;

/** `YYYY-MM-DD` of an instant, in UTC: the report's unit of time. */
export function utcDay(at: DbDate): string {
  return toDate(at).toISOString().slice(0, 10);
}

/** A stored tracking event as the counters see it: conversions carry their order value and commission. */
export interface StoredEvent {
  campaign_id: number;
  affiliate_id: number;
  event_type: string;
  occurred_at: DbDate;
  order_value_cents: number | string | null;
  commission_cents: number | string | null;
}

/** Sums stored events per (campaign, day, affiliate), in primary-key order. */
function dailyTotals(events: readonly StoredEvent[]): AffiliateDailyStatsRow[] {
  const rows = new Map<string, AffiliateDailyStatsRow>();
  for (const event of events) {
    const day = utcDay(event.occurred_at);
    const key = `${event.campaign_id}\n${day}\n${event.affiliate_id}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        campaign_id: Number(event.campaign_id),
        day,
        affiliate_id: Number(event.affiliate_id),
        page_views: 0,
        leads: 0,
        conversions: 0,
        revenue_cents: 0,
        commission_cents: 0,
      };
      rows.set(key, row);
    }
    if (event.event_type === 'page_view') row.page_views++;
    else if (event.event_type === 'lead') row.leads++;
    else if (event.commission_cents !== null) {
      row.conversions++;
      row.revenue_cents += Number(event.order_value_cents);
      row.commission_cents += Number(event.commission_cents);
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
  await insertRows(trx, 'affiliate_daily_stats', ['campaign_id', 'day', 'affiliate_id', ...COUNTERS], rows, {
    key: ['campaign_id', 'day', 'affiliate_id'],
    increment: COUNTERS,
  });
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
): Promise<AffiliateTotalsRow[]> {
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
    affiliate_id: Number(row.affiliate_id),
    referral_id: row.referral_id,
    name: row.name,
    page_views: Number(row.page_views),
    leads: Number(row.leads),
    conversions: Number(row.conversions),
    revenue_cents: Number(row.revenue_cents),
    commission_cents: Number(row.commission_cents),
  }));
}
