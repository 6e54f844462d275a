import { randomBytes } from 'node:crypto';
import { MESSAGES } from '../../../shared/errors.js';
import type { Payout } from '../../../shared/schemas/payout.js';
import { inLockingTransaction, type Trx } from '../../db/knex.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { connectedRails } from '../../repositories/payoutRails.js';
import { findPayout, startProcessing } from '../../repositories/payouts.js';
import { insertSend, rearmSend } from '../../repositories/payoutSends.js';
import { recordAudit } from '../audit.js';
import type { ServiceDeps } from '../deps.js';
import type { Outbox } from '../webhooks/outbox.js';
import { planSend } from './plan.js';

/**
 * A payout's idempotency reference (docs/payouts-providers.md): derived from the payout and
 * made once, with the intent, so every call and every retry carries the same one. The random
 * tail keeps two installations that share a provider account from colliding on payout ids.
 */
const referenceOf = (payoutId: number) => `aff-${payoutId}-${randomBytes(6).toString('hex')}`;

export interface PayoutSender {
  /**
   * `POST /v1/payouts/{id}/send`: commits the intent (`pending → processing`, the reference, the
   * send queued) and returns; the send queue calls the provider. A payout already sent answers
   * as it is (a send that gave up is due again: the operator's recovery).
   */
  send(campaignId: number, id: number): Promise<Payout>;
  /** The same inside a caller's transaction (a run); undefined: refused by the plan, nothing written. */
  sendIn(trx: Trx, campaignId: number, payout: Payout, now: Date): Promise<Payout | undefined>;
  /**
   * Sends a payout only if it is still `pending` (a stopped run resumed): false when it is not,
   * or the plan refuses it. Unlike `send`, a payout already sent is left alone, never re-armed.
   */
  sendPending(campaignId: number, id: number): Promise<boolean>;
}

export function payoutSender({ db, now: clock }: ServiceDeps, outbox: Outbox, wake: () => void): PayoutSender {
  async function sendIn(trx: Trx, campaignId: number, payout: Payout, now: Date): Promise<Payout | undefined> {
    const plan = planSend(payout, await connectedRails(trx, campaignId));
    if (!plan.ok) return undefined;
    const reference = referenceOf(payout.id);
    if (!(await startProcessing(trx, campaignId, payout.id, { rail: plan.rail, reference, now }))) return undefined;
    await insertSend(trx, {
      campaignId,
      payoutId: payout.id,
      rail: plan.rail,
      reference,
      amountMinor: plan.amount.minor,
      currency: plan.amount.currency,
      payeeAccount:
        plan.payee.rail === 'pix'
          ? plan.payee.pixKey
          : plan.payee.rail === 'paypal'
            ? plan.payee.email
            : plan.payee.account,
      pixKeyType: plan.payee.rail === 'pix' ? plan.payee.pixKeyType : null,
      description: `Affiliate payout ${payout.id}`,
      now,
    });
    const sent = await findPayout(trx, campaignId, payout.id);
    if (!sent) throw new NotFoundError(MESSAGES.payoutNotFound);
    await outbox.record(trx, [{ type: 'payout.processing', campaignId, data: sent }]);
    return sent;
  }

  async function audited(trx: Trx, campaignId: number, sent: Payout, now: Date): Promise<Payout> {
    const figures = { affiliateId: sent.affiliateId, conversions: sent.conversionIds.length };
    await recordAudit(trx, now, [{ campaignId, action: 'payout.send', targetId: sent.id, figures }]);
    return sent;
  }

  return {
    sendIn,
    async sendPending(campaignId, id) {
      const now = clock();
      const sent = await inLockingTransaction(db, async (trx) => {
        const payout = await findPayout(trx, campaignId, id);
        if (payout?.status !== 'pending') return undefined;
        const started = await sendIn(trx, campaignId, payout, now);
        return started && audited(trx, campaignId, started, now);
      });
      if (sent) wake();
      return sent !== undefined;
    },
    async send(campaignId, id) {
      const now = clock();
      const answer = await inLockingTransaction(db, async (trx) => {
        const payout = await findPayout(trx, campaignId, id);
        if (!payout) throw new NotFoundError(MESSAGES.payoutNotFound);
        if (payout.status === 'pending') {
          const plan = planSend(payout, await connectedRails(trx, campaignId));
          if (!plan.ok) throw new ConflictError(plan.message);
          const sent = await sendIn(trx, campaignId, payout, now);
          if (sent) return audited(trx, campaignId, sent, now);
        }
        const current = await findPayout(trx, campaignId, id);
        if (!current) throw new NotFoundError(MESSAGES.payoutNotFound);
        if (current.status === 'failed' || current.rail === null) {
          throw new ConflictError(MESSAGES.payoutNotSendable(current.status));
        }
        return current;
      });
      if (answer.status === 'processing') await rearmSend(db, id, now);
      wake();
      return answer;
    },
  };
}
