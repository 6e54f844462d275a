import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MESSAGES } from '../../../shared/errors.js';
import type { Payout } from '../../../shared/schemas/payout.js';
import { inLockingTransaction, type Trx } from '../../db/knex.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { connectedRails } from '../../repositories/payoutRails.js';
import { findPayout, startProcessing } from '../../repositories/payouts.js';
import { insertSend, rearmSend, releaseRunSends } from '../../repositories/payoutSends.js';
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
  sendIn(trx: Trx, campaignId: number, payout: Payout, now: Date, dueAt?: Date): Promise<Payout | undefined>;
  /**
   * A run's sends: each of these payouts still `pending` is sent, and each answered as it is
   * then, with whether this call sent it (not when it was sent already, or the plan refuses it:
   * left as it is, never re-armed). The intents are committed `SEND_CHUNK` a transaction, the
   * event loop turning between them, and due only once the last is committed (or after
   * `RUN_HOLD_MS`, should this daemon stop before): a run's PayPal payouts leave as one batch,
   * and intake waits for one chunk at most.
   */
  sendPending(campaignId: number, ids: readonly number[]): Promise<Array<{ payout: Payout; sent: boolean }>>;
}

/**
 * Intents a transaction commits for a run: about 5 ms of SQLite's one connection
 * (docs/architecture.md, "Commits on SQLite"). All in one held SQLite's writer, and intake
 * with it, for a second; at 25 a transaction intake's page views still waited up to 19 ms.
 */
const SEND_CHUNK = 4;

/**
 * How long a run's intents wait for its last before the queue may take them anyway: a daemon
 * stopped between two chunks leaves its committed intents due by then.
 */
const RUN_HOLD_MS = 60_000;

export function payoutSender({ db, now: clock }: ServiceDeps, outbox: Outbox, wake: () => void): PayoutSender {
  async function sendIn(
    trx: Trx,
    campaignId: number,
    payout: Payout,
    now: Date,
    dueAt = now,
  ): Promise<Payout | undefined> {
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
      dueAt,
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
    async sendPending(campaignId, ids) {
      const answers: Array<{ payout: Payout; sent: boolean }> = [];
      const dueAt = new Date(clock().getTime() + RUN_HOLD_MS);
      for (let from = 0; from < ids.length; from += SEND_CHUNK) {
        await nextTurn();
        const now = clock();
        const chunk = await inLockingTransaction(db, async (trx) => {
          const lines: Array<{ payout: Payout; sent: boolean }> = [];
          for (const id of ids.slice(from, from + SEND_CHUNK)) {
            const payout = await findPayout(trx, campaignId, id);
            if (!payout) continue;
            const started = payout.status === 'pending' ? await sendIn(trx, campaignId, payout, now, dueAt) : undefined;
            lines.push(
              started ? { payout: await audited(trx, campaignId, started, now), sent: true } : { payout, sent: false },
            );
          }
          return lines;
        });
        answers.push(...chunk);
      }
      const sent = answers.filter((answer) => answer.sent).map((answer) => answer.payout.id);
      if (sent.length > 0) {
        await releaseRunSends(db, sent, clock());
        wake();
      }
      return answers;
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
