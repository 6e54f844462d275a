import type { Db, Trx } from '../db/knex.js';
import { engineOf } from '../db/knex.js';
import { type AffiliateDailyStatsRow, type DbDate, toDate } from '../db/rows.js';
import { INSERT_CHUNK_ROWS } from './events.js';

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
 * Adds what one intake stored (its tracking events and their conversions, found by the intake's
 * id) to the daily counters, in the intake's transaction. Call it after the conversions are
 * inserted. A plain read (no locks; it sees this transaction's own rows): an INSERT … SELECT
 * would take shared next-key locks on the events' index on MySQL and make concurrent intakes wait.
 */
export async function countIntakeInDailyStats(trx: Trx, intakeId: string): Promise<void> {
  const events = await trx('tracking_events as e')
    .leftJoin('conversions as c', 'c.tracking_event_id', 'e.id')
    .where('e.intake_id', intakeId)
    .select<StoredEvent[]>(
      'e.campaign_id',
      'e.affiliate_id',
      'e.event_type',
      'e.occurred_at',
      'c.order_value_cents',
      'c.commission_cents',
    );
  await addToDailyStats(trx, events);
}

/**
 * Adds events just stored in this transaction to the daily counters, so the report counts
 * exactly what is on disk. The intake passes what it knows it stored (no read-back); multi-row
 * upserts that increment, one per 500 counter rows (one for most flushes), in key order.
 */
export async function addToDailyStats(trx: Trx, events: readonly StoredEvent[]): Promise<void> {
  const rows = dailyTotals(events);
  if (rows.length === 0) return;
  const mysql = engineOf(trx) === 'mysql';
  // Written by hand: Knex's builder costs as much as the statement itself at 500 rows.
  const increments = COUNTERS.map((c) => (mysql ? `${c} = ${c} + VALUES(${c})` : `${c} = ${c} + excluded.${c}`));
  const conflict = mysql
    ? `ON DUPLICATE KEY UPDATE ${increments.join(', ')}`
    : `ON CONFLICT (campaign_id, day, affiliate_id) DO UPDATE SET ${increments.join(', ')}`;
  // One statement per INSERT_CHUNK_ROWS rows, within both engines' bound-parameter limits.
  for (let start = 0; start < rows.length; start += INSERT_CHUNK_ROWS) {
    const part = rows.slice(start, start + INSERT_CHUNK_ROWS);
    const bindings = part.flatMap((row) => [
      row.campaign_id,
      row.day,
      row.affiliate_id,
      ...COUNTERS.map((column) => row[column]),
    ]);
    await trx.raw(
      `INSERT INTO affiliate_daily_stats (campaign_id, day, affiliate_id, ${COUNTERS.join(', ')}) ` +
        `VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} ${conflict}`,
      bindings,
    );
  }
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
