import { MESSAGES } from '../../shared/errors.js';
import type { Conversion, RefundInput } from '../../shared/schemas/conversion.js';
import { inLockingTransaction } from '../db/knex.js';
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
 * Refunds (docs/payouts.md): pending or approved outside a payout, the conversion becomes
 * rejected. In a payout (pending or paid), it becomes rejected too and a clawback of its
 * commission is recorded against the affiliate, netted off a later payout; the payout itself is
 * not changed. A refund of a rejected conversion changes nothing. One transaction, under the
 * conversion's row lock.
 */
export function refundService({ db, now: clock }: ServiceDeps, outbox: Outbox): RefundService {
  return {
    async refund(campaignId, input) {
      return inLockingTransaction(db, async (trx) => {
        const locked = await lockConversionByOrder(trx, campaignId, input.order_id);
        if (!locked) throw new NotFoundError(MESSAGES.conversionNotFound);
        let changed = false;
        if (locked.status !== 'rejected') {
          const now = clock();
          const reason = input.reason ?? null;
          changed = (await markRefunded(trx, locked, { at: now, reason })) > 0;
          if (changed && locked.payoutId !== null) {
            await insertClawback(trx, {
              campaignId,
              affiliateId: locked.affiliateId,
              conversionId: locked.id,
              sourcePayoutId: locked.payoutId,
              amountCents: locked.commissionCents,
              reason,
              createdAt: now,
            });
          }
        }
        const conversion = await findConversion(trx, campaignId, locked.id);
        if (!conversion) throw new NotFoundError(MESSAGES.conversionNotFound);
        if (changed) await outbox.record(trx, [{ type: 'conversion.rejected', campaignId, data: conversion }]);
        return conversion;
      });
    },
  };
}
