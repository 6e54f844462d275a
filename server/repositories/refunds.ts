import type { Trx } from '../db/knex.js';
import type { RefundRow } from '../db/rows.js';
import { conflictsAs } from './uniqueConflict.js';

/** One refund of an order: what it took off the order's value and off the sale's commission. */
export interface NewRefund {
  campaignId: number;
  conversionId: number;
  /** The caller's `refund_id`: a second refund with it is a UniqueConflict (`refundId`). */
  refundKey: string | null;
  amountCents: number;
  commissionRemovedCents: number;
  reason: string | null;
  createdAt: Date;
}

/** Stores a refund; answers its id. The unique (campaign_id, refund_key) makes a repeated `refund_id` a no-op. */
export async function insertRefund(trx: Trx, refund: NewRefund): Promise<number> {
  const row: Omit<RefundRow, 'id'> = {
    campaign_id: refund.campaignId,
    conversion_id: refund.conversionId,
    refund_key: refund.refundKey,
    amount_cents: refund.amountCents,
    commission_removed_cents: refund.commissionRemovedCents,
    reason: refund.reason,
    created_at: refund.createdAt,
  };
  const [id] = await conflictsAs({ refund_key: 'refundId' }, () => trx('refunds').insert(row));
  return Number(id);
}

/** Whether the campaign has a refund with this `refund_id` (spec §12.6: a repeat changes nothing). */
export async function hasRefundKey(trx: Trx, campaignId: number, refundKey: string): Promise<boolean> {
  const row = await trx('refunds').where({ campaign_id: campaignId, refund_key: refundKey }).first('id');
  return row !== undefined;
}
