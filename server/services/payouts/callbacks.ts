import { MESSAGES } from '../../../shared/errors.js';
import type { SignedDelivery } from '../../../shared/contract/route.js';
import type { PayoutCallbackReceipt } from '../../../shared/schemas/payoutRail.js';
import { inTransaction, isDatabaseUnavailable } from '../../db/knex.js';
import { HttpError, NotFoundError, UnauthorizedError, ValidationError } from '../../errors.js';
import { sealedRailOf } from '../../repositories/payoutRails.js';
import { payoutIdByReference } from '../../repositories/payouts.js';
import { dueNow, finishSend } from '../../repositories/payoutSends.js';
import type { ServiceDeps, Worker } from '../deps.js';
import { createGroupCommitter } from '../events/index.js';
import type { SecretBox } from '../webhooks/secretBox.js';
import type { OutcomeWriter } from './outcome.js';
import {
  asaasTokenMatches,
  paypalCertificates,
  type ProviderOutcome,
  readAsaasCallback,
  readPayPalCallback,
  verifyPayPalSignature,
} from './providers/index.js';
import { openRail } from './rails.js';

export interface PayoutCallbacks {
  /** `POST /v1/integrations/asaas-payouts/{campaignPublicId}`: Asaas's `TRANSFER_*` events. */
  asaas(publicId: string, delivery: SignedDelivery): Promise<PayoutCallbackReceipt>;
  /** `POST /v1/integrations/paypal-payouts/{campaignPublicId}`: PayPal's `PAYMENT.PAYOUTS*` webhooks. */
  paypal(publicId: string, delivery: SignedDelivery): Promise<PayoutCallbackReceipt>;
  /** Stops once every settlement handed to the writer is written (before the pool closes). */
  worker: Worker;
}

/** A provider's final word on one payout, waiting to be written. */
interface Settlement {
  campaignId: number;
  payoutId: number;
  outcome: ProviderOutcome;
}

/**
 * Settlements per transaction. A provider may tell of a whole batch at once (PayPal posts one
 * callback per item of a batch, a thousand in a second): written one transaction each, they held
 * SQLite's one writer, and intake's requests behind it, for every fsync.
 */
const FLUSH_SETTLEMENTS = 50;

function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new ValidationError(MESSAGES.malformedJson);
  }
}

/**
 * Providers' callbacks (docs/payouts.md, "Callbacks"). Each is checked before its body is read:
 * Asaas's token in constant time, PayPal's signature as PayPal documents. A payout moves only from
 * `processing`, by the outcome writer's conditional update, so a replayed or late callback
 * changes nothing (`unchanged`); a callback naming no payout of the campaign is `ignored`.
 */
export function payoutCallbacks(
  deps: ServiceDeps & { box: SecretBox; writer: OutcomeWriter; wake: () => void },
): PayoutCallbacks {
  const { db, now: clock, box, writer, wake } = deps;
  const certificates = paypalCertificates(deps.config.payouts.paypalUrl, deps.config.payouts.timeoutMs);

  async function railOf<R extends 'pix' | 'paypal'>(publicId: string, rail: R) {
    const sealed = await sealedRailOf(db, publicId, rail);
    // Unknown campaign and campaign without this rail: the same answer.
    const opened = sealed && (await openRail(box, rail, sealed));
    if (!sealed || !opened) throw new NotFoundError(MESSAGES.notFound);
    return { campaignId: sealed.campaignId, webhookToken: opened.webhookToken };
  }

  // Callbacks that arrive while one settlement is written share the next transaction; each
  // still moves its payout by its own conditional update, so a replay in the same flush is
  // `unchanged`, and a flush that fails is written again job by job.
  const settler = createGroupCommitter<Settlement, boolean>(
    (jobs) =>
      inTransaction(db, async (trx) => {
        const now = clock();
        const moved: { ok: true; value: boolean }[] = [];
        for (const { campaignId, payoutId, outcome } of jobs) {
          const done = await writer.apply(trx, campaignId, payoutId, outcome, now);
          if (done) await finishSend(trx, payoutId, now);
          moved.push({ ok: true, value: done });
        }
        return moved;
      }),
    { maxWeight: FLUSH_SETTLEMENTS, weightOf: () => 1, retryAlone: (err) => !isDatabaseUnavailable(err) },
  );

  async function apply(
    campaignId: number,
    reference: string,
    outcome: ProviderOutcome,
  ): Promise<PayoutCallbackReceipt> {
    const payoutId = await payoutIdByReference(db, campaignId, reference);
    if (payoutId === undefined) return { received: true, outcome: 'ignored' };
    if (outcome.status !== 'paid' && outcome.status !== 'failed') return { received: true, outcome: 'processing' };
    const moved = await settler.submit({ campaignId, payoutId, outcome });
    return { received: true, outcome: moved ? outcome.status : 'unchanged' };
  }

  return {
    async asaas(publicId, delivery) {
      const rail = await railOf(publicId, 'pix');
      if (!asaasTokenMatches(delivery.signature, rail.webhookToken ?? '')) {
        throw new UnauthorizedError(MESSAGES.invalidAsaasToken);
      }
      const callback = readAsaasCallback(jsonOf(delivery.body));
      if (callback.kind !== 'transfer') return { received: true, outcome: 'ignored' };
      return apply(rail.campaignId, callback.reference, callback.outcome);
    },

    async paypal(publicId, delivery) {
      const rail = await railOf(publicId, 'paypal');
      const header = (name: string) => delivery.headers?.[name];
      const certUrl = header('paypal-cert-url');
      const pem = rail.webhookToken && certUrl ? await certificates.get(certUrl) : undefined;
      const verified =
        rail.webhookToken !== undefined &&
        pem !== undefined &&
        verifyPayPalSignature(
          {
            transmissionId: header('paypal-transmission-id'),
            transmissionTime: header('paypal-transmission-time'),
            transmissionSig: delivery.signature,
            certUrl,
            authAlgo: header('paypal-auth-algo'),
          },
          delivery.body,
          rail.webhookToken,
          pem,
          clock(),
        );
      if (!verified) throw new HttpError(400, MESSAGES.invalidPayPalSignature);
      const callback = readPayPalCallback(jsonOf(delivery.body));
      if (callback.kind === 'item') return apply(rail.campaignId, callback.reference, callback.outcome);
      if (callback.kind === 'batch' && callback.batchReference) {
        // A batch's news names no item: its payouts are looked up now rather than at the next poll.
        if ((await dueNow(db, rail.campaignId, callback.batchReference, clock())) > 0) wake();
        return { received: true, outcome: 'lookup' };
      }
      return { received: true, outcome: 'ignored' };
    },

    worker: { name: 'payout callback writer', start: () => undefined, stop: () => settler.drained() },
  };
}
