import { inTransaction } from '../../db/knex.js';
import type { LeasedItem, QueueJob } from '../../jobs/queue.js';
import type { NextState } from '../../jobs/retry.js';
import { sealedRail } from '../../repositories/payoutRails.js';
import {
  type ClaimedSend,
  claimSends,
  markCalled,
  PAYOUT_SEND_QUEUE,
  settleSend,
} from '../../repositories/payoutSends.js';
import type { ServiceDeps } from '../deps.js';
import type { SecretBox } from '../webhooks/secretBox.js';
import { type OutcomeWriter } from './outcome.js';
import type { PayoutIntent, PayoutProviders, PayoutRail, ProviderOutcome, SentPayout } from './providers/index.js';
import { openRail } from './rails.js';

/** What one attempt came to: the provider's word, or why there was none. */
export type SendResult =
  { ok: true; outcome: Exclude<ProviderOutcome, { status: 'ambiguous' }> } | { ok: false; error: string };

function intentOf(send: ClaimedSend): PayoutIntent {
  const amount = { minor: send.amountMinor, currency: send.currency };
  const description = send.description;
  if (send.rail === 'pix') {
    return {
      reference: send.reference,
      amount,
      description,
      payee: { rail: 'pix', pixKey: send.payeeAccount, pixKeyType: send.pixKeyType ?? 'random' },
    };
  }
  if (send.rail === 'paypal')
    return { reference: send.reference, amount, description, payee: { rail: 'paypal', email: send.payeeAccount } };
  return { reference: send.reference, amount, description, payee: { rail: 'stripe', account: send.payeeAccount } };
}

function sentOf(send: ClaimedSend): SentPayout {
  return {
    reference: send.reference,
    // One payout a call: the batch is the payout (PayPal's sender_batch_id is its reference).
    batchReference: send.reference,
    sentAt: send.calledAt ?? new Date(),
    ...(send.providerId === null ? {} : { providerId: send.providerId }),
    ...(send.providerBatchId === null ? {} : { providerBatchId: send.providerBatchId }),
  };
}

/**
 * The send queue (docs/payouts.md, "Never twice"): claims a committed intent under a lease, and
 * calls the provider outside any transaction. A send that may have left before (`called_at`)
 * is looked up by its reference first, and sent again only when the provider holds nothing for
 * it. `called_at` is written, under the lease, before each call. The outcome is written by
 * conditional updates in one transaction: a lost lease rolls it back, and a payout that a
 * callback settled meanwhile is left as it is. A provider's `processing` is looked up again
 * every `PAYOUT_POLL_MS`; an unclear answer is looked up on `PAYOUT_RETRY_SCHEDULE`, after whose
 * last wait the send waits for an operator (`affiliated payouts send ID`), still `processing`.
 */
export function payoutSendJob(
  deps: ServiceDeps & { box: SecretBox; providers: PayoutProviders; writer: OutcomeWriter },
): QueueJob<ClaimedSend & LeasedItem, SendResult> {
  const { db, now: clock, box, providers, writer } = deps;
  const config = deps.config.payoutSends;

  async function ask<R extends PayoutRail>(rail: R, send: ClaimedSend): Promise<SendResult | undefined> {
    const sealed = await sealedRail(db, send.campaignId, rail);
    if (!sealed) return { ok: false, error: `the ${rail} rail is not connected: connect it to send this payout` };
    const opened = await openRail(box, rail, sealed);
    if (!opened) return { ok: false, error: `the ${rail} rail's credentials cannot be opened with this daemon's key` };
    const provider = providers[rail];
    let outcome: ProviderOutcome | 'unknown' = 'unknown';
    if (send.calledAt !== null) outcome = await provider.lookup(opened.credentials, sentOf(send));
    if (outcome === 'unknown') {
      // Another daemon holds the send now: nothing leaves from here.
      if (!(await markCalled(db, send, clock()))) return undefined;
      const [answer] = await provider.send(opened.credentials, {
        reference: send.reference,
        intents: [intentOf(send)],
      });
      outcome = answer ?? { status: 'ambiguous', reason: 'the provider answered no item' };
    }
    if (outcome.status === 'ambiguous') return { ok: false, error: outcome.reason };
    return { ok: true, outcome };
  }

  return {
    name: 'payouts',
    label: 'payout send',
    idField: 'payoutSendId',
    enabled: true,
    table: PAYOUT_SEND_QUEUE,
    pollMs: Math.min(1_000, config.pollMs),
    leaseMs: config.leaseMs,
    maxInFlight: config.maxInFlight,
    retry: { scheduleMs: config.retryScheduleMs, jitter: 0.1 },
    // No stopGraceMs: a call in flight is never cut, so its answer is written before the daemon stops.
    claim: (ids, now, leaseMs) => claimSends(db, ids, { now, leaseMs }),
    attempt: (send) => ask(send.rail, send),
    async settle(send, result, next) {
      const now = clock();
      await inTransaction(db, async (trx) => {
        if (!result.ok) {
          // Unclear: nothing is known, the payout stays processing; the send waits on the schedule.
          if (!(await settleSend(trx, send, next, { error: result.error, now }))) throw lostLease();
          return;
        }
        const { outcome } = result;
        const seen = {
          ...(outcome.providerId === undefined ? {} : { providerId: outcome.providerId }),
          ...('providerBatchId' in outcome && outcome.providerBatchId !== undefined
            ? { providerBatchId: outcome.providerBatchId }
            : {}),
          now,
        };
        const poll: NextState = { outcome: 'retried', nextAttemptAt: new Date(now.getTime() + config.pollMs) };
        const done: NextState = { outcome: 'succeeded', nextAttemptAt: null };
        if (outcome.status === 'processing') {
          // The provider has it: looked up again at the next poll, unless a callback tells first.
          const still = await writer.isProcessing(trx, send.campaignId, send.payoutId);
          if (!(await settleSend(trx, send, still ? poll : done, { ...seen, error: null }))) throw lostLease();
          return;
        }
        if (
          !(await settleSend(trx, send, done, { ...seen, error: outcome.status === 'failed' ? outcome.reason : null }))
        ) {
          throw lostLease();
        }
        await writer.apply(trx, send.campaignId, send.payoutId, outcome, now);
      });
    },
  };
}

/** Another daemon took the send over: this one's outcome is rolled back, the other writes its own. */
function lostLease(): Error {
  return new Error('the payout send lease was lost before its outcome was written');
}
