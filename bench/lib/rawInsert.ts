import type { Db } from '../../server/db/knex.js';
import { engineOf } from '../../server/db/knex.js';

/**
 * The floor under batched intake: the rows a batch of conversions becomes (one tracking event
 * and one pending conversion each), written straight through Knex in one transaction per batch,
 * on the same database and connection settings as the daemon (SQLite: WAL, synchronous=FULL).
 * The event ids are read back by intake id, as the conversions need them. No validation, dedupe,
 * plan limit, counters or HTTP: what the intake does beyond this is what the ratio measures.
 */
export async function rawInsertBatch(
  db: Db,
  batch: { campaignId: number; affiliateIds: readonly number[]; orderIds: readonly string[]; intakeId: string },
): Promise<void> {
  // Multi-row inserts stay within SQLite's 500 terms of a compound SELECT.
  const chunk = engineOf(db) === 'sqlite' ? 500 : 1000;
  const now = new Date();
  await db.transaction(async (trx) => {
    const events = batch.orderIds.map((orderId, i) => ({
      campaign_id: batch.campaignId,
      affiliate_id: batch.affiliateIds[i % batch.affiliateIds.length],
      event_type: 'conversion',
      event_id: null,
      order_id: orderId,
      session_id: null,
      properties: JSON.stringify({ order_id: orderId, order_value: 49.9 }),
      device_info: null,
      intake_id: batch.intakeId,
      occurred_at: now,
      created_at: now,
    }));
    for (let i = 0; i < events.length; i += chunk) await trx('tracking_events').insert(events.slice(i, i + chunk));
    const stored = await trx('tracking_events')
      .where('intake_id', batch.intakeId)
      .select<Array<{ id: number; affiliate_id: number; order_id: string }>>('id', 'affiliate_id', 'order_id');
    const conversions = stored.map((row) => ({
      campaign_id: batch.campaignId,
      affiliate_id: row.affiliate_id,
      tracking_event_id: row.id,
      order_id: row.order_id,
      order_value_cents: 4990,
      commission_cents: 499,
      intake_commission_cents: 499,
      commission_rule: JSON.stringify({ source: 'campaign', commissionType: 'percent', commissionValue: 10 }),
      status: 'pending' as const,
      payout_id: null,
      properties: JSON.stringify({ order_id: row.order_id, order_value: 49.9 }),
      occurred_at: now,
      created_at: now,
      updated_at: now,
    }));
    for (let i = 0; i < conversions.length; i += chunk)
      await trx('conversions').insert(conversions.slice(i, i + chunk));
  });
}
