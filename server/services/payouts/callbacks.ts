import { MESSAGES } from '../../../shared/errors.js';
import type { SignedDelivery } from '../../../shared/contract/route.js';
import type { PayoutCallbackReceipt } from '../../../shared/schemas/payoutRail.js';
import { inTransaction } from '../../db/knex.js';
import { HttpError, NotFoundError, UnauthorizedError, ValidationError } from '../../errors.js';
import { sealedRailOf } from '../../repositories/payoutRails.js';
import { payoutIdByReference } from '../../repositories/payouts.js';
import { dueNow, finishSend } from '../../repositories/payoutSends.js';
import type { ServiceDeps } from '../deps.js';
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
}

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

  async function apply(
    campaignId: number,
    reference: string,
    outcome: ProviderOutcome,
  ): Promise<PayoutCallbackReceipt> {
    const payoutId = await payoutIdByReference(db, campaignId, reference);
    if (payoutId === undefined) return { received: true, outcome: 'ignored' };
    if (outcome.status !== 'paid' && outcome.status !== 'failed') return { received: true, outcome: 'processing' };
    const now = clock();
    const moved = await inTransaction(db, async (trx) => {
      if (!(await writer.apply(trx, campaignId, payoutId, outcome, now))) return false;
      await finishSend(trx, payoutId, now);
      return true;
    });
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
  };
}
