import type { BillingEventRow, BillingProviderName } from '../db/billingRows.js';
import type { Db, Trx } from '../db/knex.js';
import { countRows } from '../db/pages.js';
import { toDate, toIso } from '../db/rows.js';
import { conflictsAs } from './uniqueConflict.js';

/** One provider event as the log answers it. */
export interface BillingEventEntry {
  id: number;
  provider: BillingProviderName;
  eventId: string;
  type: string;
  receivedAt: string;
  outcome: string;
  reason: string | null;
  conversionId: number | null;
  orderId: string | null;
  livemode: boolean | null;
}

const toEntry = (row: BillingEventRow): BillingEventEntry => ({
  id: Number(row.id),
  provider: row.provider,
  eventId: row.event_id,
  type: row.event_type,
  receivedAt: toIso(row.received_at),
  outcome: row.outcome,
  reason: row.reason,
  conversionId: row.conversion_id === null ? null : Number(row.conversion_id),
  orderId: row.order_id,
  livemode: row.livemode === null ? null : Boolean(row.livemode),
});

export interface NewBillingEvent {
  campaignId: number;
  provider: BillingProviderName;
  eventId: string;
  type: string;
  livemode: boolean | null;
  receivedAt: Date;
}

/**
 * The event's row, written first in the transaction that acts on it: the unique index on
 * (campaign, provider, event id) refuses a second one (UniqueConflict `providerEventId`), and
 * on MySQL a concurrent insert of the same id waits for the first transaction to end.
 */
export async function insertBillingEvent(trx: Trx, event: NewBillingEvent): Promise<number> {
  const [id] = await conflictsAs({ event_id: 'providerEventId' }, () =>
    trx('billing_events').insert({
      campaign_id: event.campaignId,
      provider: event.provider,
      event_id: event.eventId,
      event_type: event.type.slice(0, 100),
      outcome: 'received',
      reason: null,
      conversion_id: null,
      order_id: null,
      livemode: event.livemode,
      received_at: event.receivedAt,
    }),
  );
  return Number(id);
}

export async function recordBillingOutcome(
  trx: Trx,
  id: number,
  result: { outcome: string; reason: string | null; conversionId: number | null; orderId: string | null },
): Promise<void> {
  await trx('billing_events').where('id', id).update({
    outcome: result.outcome,
    reason: result.reason,
    conversion_id: result.conversionId,
    order_id: result.orderId,
  });
}

export async function listBillingEvents(
  db: Db,
  campaignId: number,
  filter: { provider?: BillingProviderName; outcome?: string; page: number; limit: number },
): Promise<{ events: BillingEventEntry[]; total: number }> {
  const base = db<BillingEventRow>('billing_events').where('campaign_id', campaignId);
  if (filter.provider !== undefined) base.andWhere('provider', filter.provider);
  if (filter.outcome !== undefined) base.andWhere('outcome', filter.outcome);
  const [total, rows] = await Promise.all([
    countRows(base.clone()),
    // Newest first, as every list (spec §10.2), by arrival.
    base
      .clone()
      .orderBy([
        { column: 'received_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(filter.limit)
      .offset((filter.page - 1) * filter.limit)
      .select<BillingEventRow[]>('*'),
  ]);
  return { events: rows.map(toEntry), total };
}

/** Per provider: how many events ended in each outcome, and when the last one arrived. */
export async function billingEventStats(
  db: Db | Trx,
  campaignId: number,
): Promise<Map<BillingProviderName, { counts: Record<string, number>; lastEventAt: Date | null }>> {
  const rows = await db('billing_events')
    .where('campaign_id', campaignId)
    .groupBy('provider', 'outcome')
    .select<
      { provider: BillingProviderName; outcome: string; n: number | string; last: BillingEventRow['received_at'] }[]
    >('provider', 'outcome', db.raw('COUNT(*) as n'), db.raw('MAX(received_at) as last'));
  const stats = new Map<BillingProviderName, { counts: Record<string, number>; lastEventAt: Date | null }>();
  for (const row of rows) {
    const entry = stats.get(row.provider) ?? { counts: {}, lastEventAt: null };
    entry.counts[row.outcome] = Number(row.n);
    const last = row.last === null ? null : toDate(row.last);
    if (last && (!entry.lastEventAt || last > entry.lastEventAt)) entry.lastEventAt = last;
    stats.set(row.provider, entry);
  }
  return stats;
}

/** The outcome of an earlier event, changed later (a held payment counted once its customer is bound). */
export async function recordLaterOutcome(
  trx: Trx,
  event: { campaignId: number; provider: BillingProviderName; eventId: string },
  result: { outcome: string; reason: string | null; conversionId: number | null; orderId: string | null },
): Promise<void> {
  await trx('billing_events')
    .where({ campaign_id: event.campaignId, provider: event.provider, event_id: event.eventId })
    .update({
      outcome: result.outcome,
      reason: result.reason,
      conversion_id: result.conversionId,
      order_id: result.orderId,
    });
}
