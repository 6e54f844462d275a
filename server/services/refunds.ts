import { MESSAGES } from '../../shared/errors.js';
import type { Conversion, RefundInput } from '../../shared/schemas/conversion.js';
import { inLockingTransaction, type Trx } from '../db/knex.js';
import { NotFoundError } from '../errors.js';
import { insertClawback } from '../repositories/clawbacks.js';
import { findConversion, lockConversionByOrder, markRefunded } from '../repositories/conversions.js';
import type { ServiceDeps } from './deps.js';
import type { Outbox } from './webhooks/outbox.js';

export interface RefundService {
  /** `POST /v1/refunds`: the order's conversion, rejected; a clawback if its commission was paid out. */
  refund(campaignId: number, input: RefundInput): Promise<Conversion>;
}

/**
 * A full refund of an order inside the caller's transaction (docs/payouts.md): pending or
 * approved outside a payout, the conversion becomes rejected. In a payout (pending or paid), it
 * becomes rejected too and a clawback of its commission is recorded against the affiliate,
 * netted off a later payout; the payout itself is not changed. A refund of a rejected conversion
 * changes nothing. Undefined when the campaign has no such order.
 */
export async function refundOrder(
  trx: Trx,
  outbox: Outbox,
  refund: { campaignId: number; orderId: string; reason: string | null; at: Date },
): Promise<{ conversion: Conversion; changed: boolean } | undefined> {
  const { campaignId, reason, at } = refund;
  const locked = await lockConversionByOrder(trx, campaignId, refund.orderId);
  if (!locked) return undefined;
  let changed = false;
  if (locked.status !== 'rejected') {
    changed = (await markRefunded(trx, locked, { at, reason })) > 0;
    if (changed && locked.payoutId !== null) {
      await insertClawback(trx, {
        campaignId,
        affiliateId: locked.affiliateId,
        conversionId: locked.id,
        sourcePayoutId: locked.payoutId,
        amountCents: locked.commissionCents,
        reason,
        createdAt: at,
      });
    }
  }
  const conversion = await findConversion(trx, campaignId, locked.id);
  if (!conversion) return undefined;
  if (changed) await outbox.record(trx, [{ type: 'conversion.rejected', campaignId, data: conversion }]);
  return { conversion, changed };
}

/** One transaction, under the conversion's row lock. */
export function refundService({ db, now: clock }: ServiceDeps, outbox: Outbox): RefundService {
  return {
    async refund(campaignId, input) {
      return inLockingTransaction(db, async (trx) => {
        const refunded = await refundOrder(trx, outbox, {
          campaignId,
          orderId: input.order_id,
          reason: input.reason ?? null,
          at: clock(),
        });
        if (!refunded) throw new NotFoundError(MESSAGES.conversionNotFound);
        return refunded.conversion;
      });
    },
  };
}
