import { chunks } from '../db/bulk.js';
import type { Trx } from '../db/knex.js';
import type { ClawbackRow } from '../db/rows.js';

/** A refunded conversion's commission, owed back once the payout it sat in is paid. */
export interface NewClawback {
  campaignId: number;
  affiliateId: number;
  conversionId: number;
  /** The payout the conversion sat in. */
  sourcePayoutId: number;
  amountCents: number;
  reason: string | null;
  /** The refund that removed the commission; null when its sale was rejected by hand. */
  refundId: number | null;
  createdAt: Date;
}

/**
 * One clawback per refund and conversion (a unique index), whatever races: a refund claws back
 * what it removed of each conversion it changed (its sale's and the second-tier one).
 */
export async function insertClawback(trx: Trx, clawback: NewClawback): Promise<void> {
  const row: Omit<ClawbackRow, 'id'> = {
    campaign_id: clawback.campaignId,
    affiliate_id: clawback.affiliateId,
    conversion_id: clawback.conversionId,
    source_payout_id: clawback.sourcePayoutId,
    netted_payout_id: null,
    amount_cents: clawback.amountCents,
    reason: clawback.reason,
    refund_id: clawback.refundId,
    created_at: clawback.createdAt,
  };
  await trx('clawbacks').insert(row).onConflict(['refund_id', 'conversion_id']).ignore();
}

/**
 * Ids of the affiliate's clawbacks a new payout may net off: not netted by a live payout, and
 * owed, which means the payout that held the refunded conversion was paid (docs/payouts.md).
 * A plain read; `markNetted` is the conditional update that decides.
 */
export async function nettableClawbackIds(trx: Trx, affiliateId: number): Promise<number[]> {
  const rows = await trx('clawbacks as k')
    .join('payouts as source', 'source.id', 'k.source_payout_id')
    .where({ 'k.affiliate_id': affiliateId, 'source.status': 'paid' })
    .whereNull('k.netted_payout_id')
    .select<{ id: number }[]>('k.id');
  return rows.map((row) => Number(row.id));
}

/** Nets the clawbacks no other payout took meanwhile; answers the sum this payout took. */
export async function markNetted(trx: Trx, ids: readonly number[], payoutId: number): Promise<number> {
  for (const part of chunks(ids)) {
    await trx('clawbacks').whereIn('id', part).whereNull('netted_payout_id').update({ netted_payout_id: payoutId });
  }
  const [row] = await trx('clawbacks')
    .where('netted_payout_id', payoutId)
    .sum<{ cents: number | string | null }[]>({ cents: 'amount_cents' });
  return Number(row?.cents ?? 0);
}

/** A failed payout nets nothing: its clawbacks are unsettled again. */
export async function releaseNetted(trx: Trx, payoutId: number): Promise<void> {
  await trx('clawbacks').where('netted_payout_id', payoutId).update({ netted_payout_id: null });
}
