import { MESSAGES } from '../../../shared/errors.js';
import { toCents } from '../../../shared/money.js';
import type { Payout } from '../../../shared/schemas/payout.js';
import type { Trx } from '../../db/knex.js';
import { NotFoundError } from '../../errors.js';
import { releaseNetted } from '../../repositories/clawbacks.js';
import { findConversions } from '../../repositories/conversions.js';
import { findPayout, markConversionsPaid, releaseConversions } from '../../repositories/payouts.js';
import type { MailOutbox } from '../mail/outbox.js';
import type { Outbox } from '../webhooks/outbox.js';

/**
 * What follows a payout's move to `paid` or `failed`, by hand (`PATCH /v1/payouts/{id}`) or on a
 * provider's word (docs/payouts.md): in the transaction of the move, so it happens exactly once.
 */
export interface SettlementEffects {
  /** Its conversions become paid; `payout.paid`, `conversion.paid` and the affiliate's mail (with the receipt). */
  paid(trx: Trx, campaignId: number, id: number, now: Date): Promise<Payout>;
  /** Its conversions and netted clawbacks are released for a later payout; `payout.failed`. */
  failed(trx: Trx, campaignId: number, id: number, now: Date): Promise<Payout>;
}

export function settlementEffects(outbox: Outbox, mail: MailOutbox): SettlementEffects {
  async function load(trx: Trx, campaignId: number, id: number): Promise<Payout> {
    const payout = await findPayout(trx, campaignId, id);
    if (!payout) throw new NotFoundError(MESSAGES.payoutNotFound);
    return payout;
  }

  return {
    async paid(trx, campaignId, id, now) {
      const paidIds = await markConversionsPaid(trx, id, now);
      const payout = await load(trx, campaignId, id);
      const paid = await findConversions(trx, campaignId, paidIds);
      await outbox.record(trx, [
        { type: 'payout.paid', campaignId, data: payout },
        ...paid.map((conversion) => ({ type: 'conversion.paid' as const, campaignId, data: conversion })),
      ]);
      // docs/portal.md: the affiliate's "you were paid" mail, unless turned off in the portal.
      await mail.record(trx, [
        {
          kind: 'payout_paid',
          affiliateId: payout.affiliateId,
          payoutId: id,
          amountCents: toCents(payout.amount),
          ...(payout.receipt === null ? {} : { receipt: payout.receipt }),
        },
      ]);
      return payout;
    },

    async failed(trx, campaignId, id, now) {
      await releaseConversions(trx, id, now);
      await releaseNetted(trx, id);
      const payout = await load(trx, campaignId, id);
      await outbox.record(trx, [{ type: 'payout.failed', campaignId, data: payout }]);
      return payout;
    },
  };
}
