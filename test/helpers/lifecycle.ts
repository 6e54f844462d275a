import { randomBytes } from 'node:crypto';
import type { Db } from '../../server/db/knex.js';

let sequence = 0;

/** A conversion row as intake would store it, with the commission, status and arrival time a test needs. */
export async function addConversion(
  db: Db,
  campaignId: number,
  affiliateId: number,
  options: {
    commissionCents?: number;
    status?: 'pending' | 'approved' | 'rejected' | 'paid';
    createdAt?: Date;
    orderId?: string;
  } = {},
): Promise<{ id: number; orderId: string }> {
  sequence++;
  const at = options.createdAt ?? new Date();
  const orderId = options.orderId ?? `order-${sequence}-${randomBytes(4).toString('hex')}`;
  const commission = options.commissionCents ?? 1000;
  const [id] = await db('conversions').insert({
    campaign_id: campaignId,
    affiliate_id: affiliateId,
    order_id: orderId,
    order_value_cents: commission * 10,
    commission_cents: commission,
    intake_commission_cents: commission,
    commission_rule: JSON.stringify({ source: 'campaign', commissionType: 'percent', commissionValue: 10 }),
    status: options.status ?? 'pending',
    payout_id: null,
    properties: JSON.stringify({ order_id: orderId }),
    occurred_at: at,
    created_at: at,
    updated_at: at,
  });
  return { id: Number(id), orderId };
}

/** Many at once (multi-row inserts), for the large cases. */
export async function addConversions(
  db: Db,
  campaignId: number,
  affiliateId: number,
  commissions: readonly number[],
  options: { status?: 'pending' | 'approved'; createdAt?: Date } = {},
): Promise<number[]> {
  const at = options.createdAt ?? new Date();
  const tag = randomBytes(4).toString('hex');
  const rows = commissions.map((commission, i) => ({
    campaign_id: campaignId,
    affiliate_id: affiliateId,
    order_id: `bulk-${tag}-${i}`,
    order_value_cents: commission * 10,
    commission_cents: commission,
    intake_commission_cents: commission,
    commission_rule: JSON.stringify({ source: 'campaign', commissionType: 'percent', commissionValue: 10 }),
    status: options.status ?? 'pending',
    payout_id: null,
    properties: null,
    occurred_at: at,
    created_at: at,
    updated_at: at,
  }));
  for (let start = 0; start < rows.length; start += 400) {
    await db('conversions').insert(rows.slice(start, start + 400));
  }
  const ids = await db('conversions')
    .where('campaign_id', campaignId)
    .andWhere('order_id', 'like', `bulk-${tag}-%`)
    .orderBy('id')
    .pluck('id');
  return ids.map(Number);
}

export async function statusesOf(
  db: Db,
  ids: readonly number[],
): Promise<Map<number, { status: string; payoutId: number | null }>> {
  const rows = await db('conversions').whereIn('id', ids).select('id', 'status', 'payout_id');
  return new Map(
    rows.map((row) => [
      Number(row.id),
      { status: row.status, payoutId: row.payout_id === null ? null : Number(row.payout_id) },
    ]),
  );
}
