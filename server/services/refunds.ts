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
import { hasRefundKey, insertRefund } from '../repositories/refunds.js';
import { UniqueConflict } from '../repositories/uniqueConflict.js';
import type { ServiceDeps } from './deps.js';
import { recordAudit } from './audit.js';
import { followSales, type SaleChange } from './followers.js';
import type { Outbox, OutboxEvent } from './webhooks/outbox.js';

export interface RefundService {
  /** `POST /v1/refunds`: the order refunded in full or in part, its commission lowered or taken back. */
  refund(campaignId: number, input: RefundInput): Promise<Conversion>;
  /** The context check: an `amount` above the order's value (one round of validation, spec §10.6). */
  amountIssues(campaignId: number, body: unknown): Promise<string[]>;
}

/** A `refund_id` the campaign already has: nothing is changed, the conversion is answered as it is. */
export class RepeatedRefund extends Error {
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

/** A refund of an order: `amountCents` undefined refunds what is left of it. */
export interface OrderRefund {
  campaignId: number;
  orderId: string;
  amountCents: number | undefined;
  /** The caller's `refund_id`: a second refund with it throws RepeatedRefund. */
  refundKey: string | null;
  reason: string | null;
  at: Date;
}

/** A refund's amount in hundredths as `amountOf` decides it for a sale it has locked. */
export type RefundAmount = (sale: ConversionState) => number | undefined;

/**
 * A refund of an order inside the caller's transaction, under the sale's row lock: `changed`
 * false when the sale was rejected already (a rejected sale earns nothing: refunding it again
 * changes nothing). `amount` may be decided from the locked sale (a provider's running total of
 * what it refunded). Undefined when the campaign has no such order.
 */
export async function refundOrder(
  trx: Trx,
  outbox: Outbox,
  refund: Omit<OrderRefund, 'amountCents'> & { amountCents: number | undefined | RefundAmount },
): Promise<{ conversion: Conversion; changed: boolean } | undefined> {
  const { campaignId, at, reason } = refund;
  const sale = await lockConversionByOrder(trx, campaignId, refund.orderId);
  if (!sale) return undefined;
  const amountCents = typeof refund.amountCents === 'function' ? refund.amountCents(sale) : refund.amountCents;
  if (sale.status === 'rejected' || amountCents === 0) {
    const conversion = await findConversion(trx, campaignId, sale.id);
    return conversion && { conversion, changed: false };
  }
  // A repeated refund_id is known before its amount is judged: a retry of a refund that was
  // applied (its answer lost) would otherwise be measured against what that refund left. Under
  // the sale's lock, a refund with this id committed before is seen; the unique index still
  // judges two that race.
  if (refund.refundKey !== null && (await hasRefundKey(trx, campaignId, refund.refundKey))) {
    throw new RepeatedRefund();
  }
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
    refundKey: refund.refundKey,
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
  const stored = { id: refundId, reason, refundedValueCents: next.refundedValueCents };
  const change: SaleChange = next.full
    ? { kind: 'rejected', refund: stored }
    : {
        kind: 'lowered',
        saleCommissionCents: next.commissionCents,
        refundedValueCents: next.refundedValueCents,
        refund: stored,
      };
  const followers = await followSales(trx, campaignId, new Map([[sale.id, change]]), at);
  const conversion = await findConversion(trx, campaignId, sale.id);
  if (!conversion) return undefined;
  const events: OutboxEvent[] = [{ type: 'conversion.refunded', campaignId, data: conversion }];
  if (next.full) events.push({ type: 'conversion.rejected', campaignId, data: conversion });
  await outbox.record(trx, [...events, ...followers]);
  await recordAudit(trx, at, [
    {
      campaignId,
      action: 'refund.create',
      targetId: refundId,
      figures: { conversionId: sale.id },
      money: { amount: next.amountCents, commissionRemoved: removedCents },
    },
  ]);
  return { conversion, changed: true };
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
  return {
    async refund(campaignId, input) {
      try {
        return await inLockingTransaction(db, async (trx) => {
          const refunded = await refundOrder(trx, outbox, {
            campaignId,
            orderId: input.order_id,
            amountCents: input.amount === undefined ? undefined : toCents(input.amount),
            refundKey: input.refund_id ?? null,
            reason: input.reason ?? null,
            at: clock(),
          });
          if (!refunded) throw new NotFoundError(MESSAGES.conversionNotFound);
          return refunded.conversion;
        });
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
