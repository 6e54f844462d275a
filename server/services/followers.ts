import type { WebhookEventType } from '../../shared/schemas/webhook.js';
import { TransactionOvertaken, type Trx } from '../db/knex.js';
import { insertClawback } from '../repositories/clawbacks.js';
import {
  approveFollowers,
  changeConversion,
  type ConversionState,
  findConversions,
  lockFollowers,
} from '../repositories/conversions.js';
import { secondTierCents } from './events/index.js';
import type { OutboxEvent } from './webhooks/outbox.js';

/**
 * What happened to a sale, for the second-tier conversion that follows it (spec §12.5): it is
 * approved and rejected with its sale, and a refund of the sale lowers it in the same proportion.
 */
export type SaleChange =
  | { kind: 'approved' }
  /** By hand, or by a full refund (`refund` set). */
  | { kind: 'rejected'; refund?: RefundOfSale }
  /** A partial refund: the sale's commission and refunded value after it. */
  | { kind: 'lowered'; saleCommissionCents: number; refundedValueCents: number; refund: RefundOfSale };

export interface RefundOfSale {
  id: number;
  reason: string | null;
  refundedValueCents: number;
}

/**
 * Takes a follower out (rejected): a commission already in a payout is clawed back from the
 * parent, as a refund of its own would (docs/payouts.md#refunds-and-clawbacks).
 */
async function reject(
  trx: Trx,
  campaignId: number,
  follower: ConversionState,
  refund: RefundOfSale | undefined,
  at: Date,
) {
  if (follower.status === 'rejected') return false;
  const done = await changeConversion(trx, follower, {
    status: 'rejected',
    commissionCents: follower.commissionCents,
    refundedValueCents: refund?.refundedValueCents ?? follower.refundedValueCents,
    at,
    ...(refund && { refund: { reason: refund.reason } }),
  });
  if (!done) throw new TransactionOvertaken('a second-tier conversion changed under its sale');
  if (follower.payoutId !== null && follower.commissionCents > 0) {
    await insertClawback(trx, {
      campaignId,
      affiliateId: follower.affiliateId,
      conversionId: follower.id,
      sourcePayoutId: follower.payoutId,
      amountCents: follower.commissionCents,
      reason: refund?.reason ?? null,
      refundId: refund?.id ?? null,
      createdAt: at,
    });
  }
  return true;
}

/** A partial refund of the sale: the follower keeps its percent of the sale's new commission. */
async function lower(
  trx: Trx,
  campaignId: number,
  follower: ConversionState,
  change: Extract<SaleChange, { kind: 'lowered' }>,
  at: Date,
) {
  if (follower.status === 'rejected') return false;
  const commissionCents = secondTierCents(change.saleCommissionCents, follower.ruleHundredths);
  const removed = follower.commissionCents - commissionCents;
  const done = await changeConversion(trx, follower, {
    status: follower.status,
    commissionCents,
    refundedValueCents: change.refundedValueCents,
    at,
    refund: { reason: change.refund.reason },
  });
  if (!done) throw new TransactionOvertaken('a second-tier conversion changed under its sale');
  if (follower.payoutId !== null && removed > 0) {
    await insertClawback(trx, {
      campaignId,
      affiliateId: follower.affiliateId,
      conversionId: follower.id,
      sourcePayoutId: follower.payoutId,
      amountCents: removed,
      reason: change.refund.reason,
      refundId: change.refund.id,
      createdAt: at,
    });
  }
  return true;
}

const eventOf = { approved: 'conversion.approved', rejected: 'conversion.rejected' } as const;

/**
 * Applies the sales' changes to their second-tier conversions, in the transaction of the sales'
 * change, and answers the webhook events of the followers that changed.
 */
export async function followSales(
  trx: Trx,
  campaignId: number,
  changes: ReadonlyMap<number, SaleChange>,
  at: Date,
): Promise<OutboxEvent[]> {
  if (changes.size === 0) return [];
  const followers = await lockFollowers(trx, [...changes.keys()]);
  if (followers.length === 0) return [];
  const types = new Map<number, WebhookEventType[]>();
  const pendingApprovals: number[] = [];
  for (const follower of followers) {
    const change = follower.sourceConversionId === null ? undefined : changes.get(follower.sourceConversionId);
    if (!change) continue;
    if (change.kind === 'approved') {
      if (follower.status === 'pending') pendingApprovals.push(follower.id);
    } else if (change.kind === 'rejected') {
      if (await reject(trx, campaignId, follower, change.refund, at)) {
        types.set(follower.id, change.refund ? ['conversion.refunded', eventOf.rejected] : [eventOf.rejected]);
      }
    } else if (await lower(trx, campaignId, follower, change, at)) {
      types.set(follower.id, ['conversion.refunded']);
    }
  }
  for (const id of await approveFollowers(trx, pendingApprovals, at)) types.set(id, [eventOf.approved]);
  const changed = await findConversions(trx, campaignId, [...types.keys()]);
  return changed.flatMap((conversion) =>
    (types.get(conversion.id) ?? []).map((type) => ({ campaignId, type, data: conversion })),
  );
}
