import { inTransaction, type Trx } from '../../db/knex.js';
import type { QueueJob } from '../../jobs/queue.js';
import type { NextState } from '../../jobs/retry.js';
import { sealedRail } from '../../repositories/payoutRails.js';
import {
  type ClaimedSend,
  markCalled,
  PAYOUT_SEND_QUEUE,
  releaseSends,
  settleSend,
} from '../../repositories/payoutSends.js';
import type { ServiceDeps } from '../deps.js';
import type { SecretBox } from '../webhooks/secretBox.js';
import { type OutcomeWriter } from './outcome.js';
import type { PayoutIntent, PayoutProviders, PayoutRail, ProviderOutcome, SentPayout } from './providers/index.js';
import { type Pacer, pacer } from './pace.js';
import { openRail } from './rails.js';
import { batchOf, batchReferenceOf, claimWork, type SendWork } from './sendBatch.js';

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
    batchReference: batchOf(send) ?? send.reference,
    sentAt: send.calledAt ?? new Date(),
    ...(send.providerId === null ? {} : { providerId: send.providerId }),
    ...(send.providerBatchId === null ? {} : { providerBatchId: send.providerBatchId }),
  };
}

/** One attempt: a result per send of the work, in its order. */
export interface WorkResult {
  ok: boolean;
  results: SendResult[];
}

/**
 * The send queue (docs/payouts.md, "Never twice"): claims committed intents under a lease, and
 * calls the provider outside any transaction: PayPal payouts due together for a campaign in one
 * batch call, Pix and Stripe payouts one call each, paced per account (pace.ts). A send that may
 * have left before (`called_at`) is looked up by its reference first, and sent again only when
 * the provider holds nothing for it; a PayPal batch is sent again whole, under the
 * `sender_batch_id` it first left with. `called_at` (and the batch's reference) is written,
 * under the lease, before each call. Outcomes are written by conditional updates in one
 * transaction: a lost lease rolls it back, and a payout that a callback settled meanwhile is left
 * as it is. A provider's `processing` is looked up again every `PAYOUT_POLL_MS`; an unclear
 * answer on `PAYOUT_RETRY_SCHEDULE`, after whose last wait the send waits for an operator
 * (`affiliated payouts send ID`), still `processing`.
 */
export function payoutSendJob(
  deps: ServiceDeps & { box: SecretBox; providers: PayoutProviders; writer: OutcomeWriter },
): QueueJob<SendWork, WorkResult> {
  const { db, now: clock, box, providers, writer } = deps;
  const config = deps.config.payoutSends;
  const pacers: Record<PayoutRail, Pacer | undefined> = {
    pix: pacer(config.asaasPerSecond),
    // One call carries a whole batch, and PayPal publishes no rate for Payouts.
    paypal: undefined,
    stripe: pacer(config.stripePerSecond),
  };
  const paced = async <T>(rail: PayoutRail, campaignId: number, call: () => Promise<T>): Promise<T> => {
    await pacers[rail]?.turn(String(campaignId));
    return call();
  };

  /** Marks the sends called, all or none (false: another daemon holds one of them now). */
  async function commitCall(sends: readonly ClaimedSend[], batchReference: string | null): Promise<boolean> {
    try {
      return await inTransaction(db, async (trx) => {
        if ((await markCalled(trx, sends, clock(), batchReference)) !== sends.length) throw lostLease();
        return true;
      });
    } catch (err) {
      if (err instanceof LostLease) return false;
      throw err;
    }
  }

  async function ask<R extends PayoutRail>(rail: R, work: SendWork): Promise<WorkResult | undefined> {
    const { sends } = work;
    const campaignId = sends[0]?.campaignId ?? 0;
    const all = (error: string): WorkResult => ({ ok: false, results: sends.map(() => ({ ok: false, error })) });
    const sealed = await sealedRail(db, campaignId, rail);
    if (!sealed) return all(`the ${rail} rail is not connected: connect it to send this payout`);
    const opened = await openRail(box, rail, sealed);
    if (!opened) return all(`the ${rail} rail's credentials cannot be opened with this daemon's key`);
    const provider = providers[rail];
    const { credentials } = opened;
    const outcomes = new Map<ClaimedSend, ProviderOutcome | 'unknown'>();
    const called = sends.filter((send) => send.calledAt !== null);
    if (called.length > 0) {
      const sent = called.map(sentOf);
      const lookupAll = provider.lookupAll?.bind(provider);
      const found = lookupAll
        ? await lookupAll(credentials, sent)
        : await Promise.all(sent.map((one) => paced(rail, campaignId, () => provider.lookup(credentials, one))));
      called.forEach((send, i) => outcomes.set(send, found[i] ?? 'unknown'));
    }
    const unsent = sends.filter((send) => (outcomes.get(send) ?? 'unknown') === 'unknown');
    if (unsent.length > 0) {
      const reference = rail === 'paypal' ? batchReferenceOf(unsent) : (unsent[0]?.reference ?? '');
      if (!(await commitCall(unsent, rail === 'paypal' ? reference : null))) {
        // Another daemon holds the work now: nothing leaves from here.
        await releaseSends(db, sends);
        return undefined;
      }
      const answers = await paced(rail, campaignId, () =>
        provider.send(credentials, { reference, intents: unsent.map(intentOf) }),
      );
      unsent.forEach((send, i) =>
        outcomes.set(send, answers[i] ?? { status: 'ambiguous', reason: 'the provider answered no item' }),
      );
    }
    const results = sends.map((send): SendResult => {
      const outcome = outcomes.get(send) ?? 'unknown';
      if (outcome === 'unknown') return { ok: false, error: 'the provider answered nothing for this payout' };
      if (outcome.status === 'ambiguous') return { ok: false, error: outcome.reason };
      return { ok: true, outcome };
    });
    return { ok: results.every((result) => result.ok), results };
  }

  /** One send's outcome, inside the work's transaction; `next` when it is unclear. */
  async function settleOne(trx: Trx, send: ClaimedSend, result: SendResult, next: NextState, now: Date) {
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
    if (!(await settleSend(trx, send, done, { ...seen, error: outcome.status === 'failed' ? outcome.reason : null }))) {
      throw lostLease();
    }
    await writer.apply(trx, send.campaignId, send.payoutId, outcome, now);
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
    claim: (ids, now, leaseMs) => claimWork(db, ids, { now, leaseMs, batchMax: config.paypalBatchMax }),
    attempt: (work) => ask(work.sends[0]?.rail ?? 'pix', work),
    async settle(work, result, next) {
      const now = clock();
      // A batch's sends were tried together: an unclear one waits as the batch does (the head's
      // schedule). Its outcomes are written a slice per transaction, each send's on its own
      // conditions, so a batch of thousands never holds the writer (SQLite's, intake's too) long.
      for (let from = 0; from < work.sends.length; from += SETTLE_SLICE) {
        if (from > 0) await new Promise((resolve) => setImmediate(resolve));
        await inTransaction(db, async (trx) => {
          for (const [i, send] of work.sends.slice(from, from + SETTLE_SLICE).entries()) {
            await settleOne(trx, send, result.results[from + i] ?? { ok: false, error: 'no answer' }, next, now);
          }
        });
      }
    },
  };
}

/**
 * Sends of a batch whose outcomes one transaction writes: about 5 ms of SQLite's one connection
 * (docs/architecture.md, "Commits on SQLite"); at 50, intake's page views waited up to 30 ms
 * behind one slice.
 */
const SETTLE_SLICE = 5;

class LostLease extends Error {}

/** Another daemon took the send over: this one's outcome is rolled back, the other writes its own. */
function lostLease(): Error {
  return new LostLease('the payout send lease was lost before its outcome was written');
}
