import { randomBytes } from 'node:crypto';
import type { Db } from '../../server/db/knex.js';

/** Direct inserts for records the API does not create yet (conversions, payouts, events). */
export async function insertTrackingEvent(db: Db, campaignId: number, affiliateId: number): Promise<number> {
  const now = new Date();
  const [id] = await db('tracking_events').insert({
    campaign_id: campaignId,
    affiliate_id: affiliateId,
    event_type: 'page_view',
    intake_id: randomBytes(8).toString('hex'),
    occurred_at: now,
    created_at: now,
  });
  return Number(id);
}

export async function insertPayout(
  db: Db,
  campaignId: number,
  affiliateId: number,
  amountCents: number,
  status: 'pending' | 'paid' | 'failed',
): Promise<number> {
  const now = new Date();
  const [id] = await db('payouts').insert({
    campaign_id: campaignId,
    affiliate_id: affiliateId,
    amount_cents: amountCents,
    status,
    created_at: now,
    paid_at: status === 'paid' ? now : null,
  });
  return Number(id);
}

export async function insertConversion(
  db: Db,
  campaignId: number,
  affiliateId: number,
  commissionCents: number,
  status: 'pending' | 'approved' | 'rejected' | 'paid',
  payoutId: number | null = null,
): Promise<number> {
  const now = new Date();
  const [id] = await db('conversions').insert({
    campaign_id: campaignId,
    affiliate_id: affiliateId,
    order_id: `order-${randomBytes(6).toString('hex')}`,
    order_value_cents: commissionCents * 10,
    commission_cents: commissionCents,
    status,
    payout_id: payoutId,
    occurred_at: now,
    created_at: now,
    updated_at: now,
  });
  return Number(id);
}
