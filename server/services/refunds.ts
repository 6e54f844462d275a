import { MESSAGES } from '../../shared/errors.js';
import { formatCents, shareOf, toCents } from '../../shared/money.js';
import type { Conversion, RefundInput } from '../../shared/schemas/conversion.js';
import { MAX_ORDER_VALUE, MIN_ORDER_VALUE } from '../../shared/schemas/orderValue.js';
import { type Db, inLockingTransaction, TransactionOvertaken, type Trx } from '../db/knex.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { insertClawback } from '../repositories/clawbacks.js';
import {
  changeConversion,
  type ConversionState,
  findConversion,
  findConversionByOrder,
  lockConversionByOrder,
} from '../repositories/conversions.js';
import { insertRefund } from '../repositories/refunds.js';
import { UniqueConflict } from '../repositories/uniqueConflict.js';
import type { ServiceDeps } from './deps.js';
import { followSales, type SaleChange } from './followers.js';
import type { Outbox, OutboxEvent } from './webhooks/outbox.js';

export interface RefundService {
  /** `POST /v1/refunds`: the order refunded in full or in part, its commission lowered or taken back. */
  refund(campaignId: number, input: RefundInput): Promise<Conversion>;
  /** The context check: an `amount` above the order's value (one round of validation, spec §10.6). */
  amountIssues(campaignId: number, body: unknown): Promise<string[]>;
}

/** A `refund_id` the campaign already has: nothing is changed, the conversion is answered as it is. */
class RepeatedRefund extends Error {
  override name = 'RepeatedRefund';
}

/** What a refund of `amountCents` (undefined: the rest of the order) makes of the sale. */
function plan(sale: ConversionState, amountCents: number | undefined) {
  const left = sale.orderValueCents - sale.refundedValueCents;
  if (amountCents !== undefined && amountCents > sale.orderValueCents) {
    throw new ValidationError([MESSAGES.refundOverOrder(formatCents(sale.orderValueCents))]);
  }
  if (amountCents !== undefined && amountCents > left) {
    throw new ConflictError(MESSAGES.refundOverRemaining(formatCents(amountCents), formatCents(left), sale.orderId));
  }
  const full = amountCents === undefined || amountCents === left;
  if (full) {
    // The order is gone: the sale is rejected, its commission kept on it as it stood (spec §10.9).
    return { full, amountCents: left, refundedValueCents: sale.orderValueCents, commissionCents: sale.commissionCents };
  }
  const refundedValueCents = sale.refundedValueCents + amountCents;
  // spec §12.6: the rounded share of the commission computed at intake that the rest of the order keeps.
  const commissionCents = shareOf(
    sale.intakeCommissionCents,
    sale.orderValueCents - refundedValueCents,
    sale.orderValueCents,
  );
  return { full, amountCents, refundedValueCents, commissionCents };
}

/**
 * Refunds (docs/payouts.md#refunds-and-clawbacks, docs/commissions.md#partial-refunds): a full
 * refund rejects the sale; a partial one lowers its commission to its share of what is left of
 * the order. What it took off a commission that sits in a payout is clawed back. The sale's
 * second-tier conversion follows in the same transaction. The sale changes by one conditional
 * update on its commission and refunded value, so concurrent refunds never take more than the
 * order; a `refund_id` the campaign has seen changes nothing (a unique index decides).
 */
export function refundService({ db, now: clock }: ServiceDeps, outbox: Outbox): RefundService {
  async function apply(trx: Trx, campaignId: number, input: RefundInput): Promise<Conversion> {
    const sale = await lockConversionByOrder(trx, campaignId, input.order_id);
    if (!sale) throw new NotFoundError(MESSAGES.conversionNotFound);
    const amountCents = input.amount === undefined ? undefined : toCents(input.amount);
    // A rejected sale earns nothing: refunding it (again) changes nothing.
    if (sale.status !== 'rejected') {
      const at = clock();
      const reason = input.reason ?? null;
      const next = plan(sale, amountCents);
      const changed = await changeConversion(trx, sale, {
        status: next.full ? 'rejected' : sale.status,
        commissionCents: next.commissionCents,
        refundedValueCents: next.refundedValueCents,
        at,
        refund: { reason },
      });
      // Another refund got there first (without a lock to wait for): read the sale again.
      if (!changed) throw new TransactionOvertaken('the sale changed before its refund was written');
      const removedCents = next.full ? sale.commissionCents : sale.commissionCents - next.commissionCents;
      const refundId = await insertRefund(trx, {
        campaignId,
        conversionId: sale.id,
        refundKey: input.refund_id ?? null,
        amountCents: next.amountCents,
        commissionRemovedCents: removedCents,
        reason,
        createdAt: at,
      }).catch((err: unknown) => {
        throw err instanceof UniqueConflict ? new RepeatedRefund() : err;
      });
      if (sale.payoutId !== null && removedCents > 0) {
        await insertClawback(trx, {
          campaignId,
          affiliateId: sale.affiliateId,
          conversionId: sale.id,
          sourcePayoutId: sale.payoutId,
          amountCents: removedCents,
          reason,
          refundId,
          createdAt: at,
        });
      }
      const refund = { id: refundId, reason, refundedValueCents: next.refundedValueCents };
      const change: SaleChange = next.full
        ? { kind: 'rejected', refund }
        : {
            kind: 'lowered',
            saleCommissionCents: next.commissionCents,
            refundedValueCents: next.refundedValueCents,
            refund,
          };
      const followers = await followSales(trx, campaignId, new Map([[sale.id, change]]), at);
      const conversion = await findConversion(trx, campaignId, sale.id);
      if (!conversion) throw new NotFoundError(MESSAGES.conversionNotFound);
      const events: OutboxEvent[] = [{ type: 'conversion.refunded', campaignId, data: conversion }];
      if (next.full) events.push({ type: 'conversion.rejected', campaignId, data: conversion });
      await outbox.record(trx, [...events, ...followers]);
      return conversion;
    }
    const conversion = await findConversion(trx, campaignId, sale.id);
    if (!conversion) throw new NotFoundError(MESSAGES.conversionNotFound);
    return conversion;
  }

  return {
    async refund(campaignId, input) {
      try {
        return await inLockingTransaction(db, (trx) => apply(trx, campaignId, input));
      } catch (err) {
        if (!(err instanceof RepeatedRefund)) throw err;
        const sale = await findConversionByOrder(db, campaignId, input.order_id);
        if (!sale) throw new NotFoundError(MESSAGES.conversionNotFound);
        return sale;
      }
    },

    amountIssues: (campaignId, body) => amountIssues(db, campaignId, body),
  };
}

/** The order's value bounds a refund's `amount`; an unknown order is left to the 404. */
async function amountIssues(db: Db, campaignId: number, body: unknown): Promise<string[]> {
  if (typeof body !== 'object' || body === null) return [];
  const { order_id: orderId, amount } = body as Record<string, unknown>;
  // Anything the schema refuses is its message alone.
  if (
    typeof orderId !== 'string' ||
    typeof amount !== 'number' ||
    !(amount >= MIN_ORDER_VALUE && amount <= MAX_ORDER_VALUE)
  ) {
    return [];
  }
  const sale = await findConversionByOrder(db, campaignId, orderId.trim());
  if (!sale || toCents(amount) <= toCents(sale.orderValue)) return [];
  return [MESSAGES.refundOverOrder(formatCents(toCents(sale.orderValue)))];
}
