import { MESSAGES } from '../../shared/errors.js';
import { formatCents, fromCents, toCents } from '../../shared/money.js';
import type { ClawbackList, ListClawbacksQuery } from '../../shared/schemas/clawback.js';
import type {
  BulkCreatePayoutsResponse,
  ListPayoutsQuery,
  Payout,
  PayoutList,
  UpdatePayoutInput,
} from '../../shared/schemas/payout.js';
import { type Db, inLockingTransaction, type Trx } from '../db/knex.js';
import { ConflictError, HttpError, NotFoundError } from '../errors.js';
import { lockAffiliate } from '../repositories/affiliates.js';
import { payoutMinimumCents } from '../repositories/campaigns.js';
import { listClawbacks, markNetted, nettableClawbackIds } from '../repositories/clawbacks.js';
import {
  findPayout,
  insertPendingPayout,
  listPayouts,
  payableAffiliateIds,
  setPayoutAmounts,
  settlePayout,
  takeApprovedConversions,
} from '../repositories/payouts.js';
import { recordAudit } from './audit.js';
import type { ServiceDeps } from './deps.js';
import { pageOf } from './pages.js';
import type { MailOutbox } from './mail/outbox.js';
import type { Outbox } from './webhooks/outbox.js';
import { settlementEffects } from './payouts/settlement.js';

export interface PayoutService {
  list(campaignId: number, query: ListPayoutsQuery): Promise<PayoutList>;
  /** `GET /v1/clawbacks`: what refunds took back of commissions in payouts, partial ones included. */
  clawbacks(campaignId: number, query: ListClawbacksQuery): Promise<ClawbackList>;
  get(campaignId: number, id: number): Promise<Payout>;
  /** `POST /v1/payouts`: every approved conversion of the affiliate in no payout, less clawbacks. */
  create(campaignId: number, affiliateId: number, options?: { payoutRunId?: number }): Promise<Payout>;
  /** One payout per affiliate named (default: every affiliate with something approved to pay). */
  createMany(campaignId: number, affiliateIds?: readonly number[]): Promise<BulkCreatePayoutsResponse>;
  /** `PATCH /v1/payouts/{id}`: `pending → paid | failed`. */
  update(campaignId: number, id: number, to: UpdatePayoutInput['status']): Promise<Payout>;
}

/** What the audit log keeps of a payout: its affiliate's id, its size and amount, nothing personal. */
function payoutFigures(payout: Payout) {
  return {
    fields: ['status'],
    figures: { affiliateId: payout.affiliateId, conversions: payout.conversionIds.length },
    money: { amount: toCents(payout.amount) },
  };
}

export function payoutService({ db, now: clock }: ServiceDeps, outbox: Outbox, mail: MailOutbox): PayoutService {
  const settle = settlementEffects(outbox, mail);
  async function load(trx: Db | Trx, campaignId: number, id: number): Promise<Payout> {
    const payout = await findPayout(trx, campaignId, id);
    if (!payout) throw new NotFoundError(MESSAGES.payoutNotFound);
    return payout;
  }

  /**
   * One transaction under the affiliate's row lock, so that payouts of one affiliate are made
   * one after the other: the conversions go in with one conditional update, clawbacks are
   * netted with another, and a refusal (409) rolls all of it back.
   */
  async function create(
    campaignId: number,
    affiliateId: number,
    options: { payoutRunId?: number } = {},
  ): Promise<Payout> {
    return inLockingTransaction(db, async (trx) => {
      if (!(await lockAffiliate(trx, campaignId, affiliateId))) {
        throw new NotFoundError(MESSAGES.affiliateNotFound);
      }
      const now = clock();
      const id = await insertPendingPayout(trx, { campaignId, affiliateId, createdAt: now, ...options });
      const taken = await takeApprovedConversions(trx, campaignId, affiliateId, id, now);
      if (taken.count === 0) throw new ConflictError(MESSAGES.nothingToPay(affiliateId));
      const clawbackCents = await markNetted(trx, await nettableClawbackIds(trx, affiliateId), id);
      // A clawback larger than what is approved carries forward whole: no payout of nothing.
      if (clawbackCents >= taken.commissionCents) {
        throw new ConflictError(
          MESSAGES.clawbacksCoverPayout(formatCents(taken.commissionCents), formatCents(clawbackCents)),
        );
      }
      const amountCents = taken.commissionCents - clawbackCents;
      const minimumCents = await payoutMinimumCents(trx, campaignId);
      if (amountCents < minimumCents) {
        throw new ConflictError(MESSAGES.belowPayoutMinimum(formatCents(amountCents), formatCents(minimumCents)));
      }
      await setPayoutAmounts(trx, id, { commission: taken.commissionCents, clawback: clawbackCents });
      const payout = await load(trx, campaignId, id);
      await outbox.record(trx, [{ type: 'payout.created', campaignId, data: payout }]);
      await recordAudit(trx, now, [{ campaignId, action: 'payout.create', targetId: id, ...payoutFigures(payout) }]);
      return payout;
    });
  }

  async function update(campaignId: number, id: number, to: UpdatePayoutInput['status']): Promise<Payout> {
    return inLockingTransaction(db, async (trx) => {
      const now = clock();
      if (!(await settlePayout(trx, campaignId, id, to, now))) {
        const current = await load(trx, campaignId, id);
        if (current.status === to) return current;
        throw new ConflictError(MESSAGES.illegalTransition('Payout', current.status, to));
      }
      const payout =
        to === 'paid' ? await settle.paid(trx, campaignId, id, now) : await settle.failed(trx, campaignId, id, now);
      const action = to === 'paid' ? 'payout.mark_paid' : 'payout.mark_failed';
      await recordAudit(trx, now, [{ campaignId, action, targetId: id, ...payoutFigures(payout) }]);
      return payout;
    });
  }

  return {
    async list(campaignId, query) {
      const { payouts, total } = await listPayouts(db, campaignId, query);
      return { payouts, ...pageOf(query, total) };
    },

    async clawbacks(campaignId, query) {
      const { clawbacks, total, owedCents } = await listClawbacks(db, campaignId, query);
      return { clawbacks, ...pageOf(query, total), owedAmount: fromCents(owedCents) };
    },

    get: (campaignId, id) => load(db, campaignId, id),
    create,
    update,

    async createMany(campaignId, affiliateIds) {
      const targets = affiliateIds ? [...new Set(affiliateIds)] : await payableAffiliateIds(db, campaignId);
      const answer: BulkCreatePayoutsResponse = { created: [], skipped: [] };
      for (const affiliateId of targets) {
        try {
          answer.created.push(await create(campaignId, affiliateId));
        } catch (err) {
          if (!(err instanceof HttpError)) throw err;
          const message = Array.isArray(err.messages) ? err.messages.join('; ') : err.messages;
          answer.skipped.push({ affiliateId, statusCode: err.status, message });
        }
      }
      return answer;
    },
  };
}
