import { MESSAGES } from '../../../shared/errors.js';
import { inLockingTransaction } from '../../db/knex.js';
import { HttpError, NotFoundError, ValidationError } from '../../errors.js';
import { insertBillingEvent, recordBillingOutcome } from '../../repositories/billingEvents.js';
import { findReceivingCampaign } from '../../repositories/billingIntegrations.js';
import { UniqueConflict } from '../../repositories/uniqueConflict.js';
import type { SignedDelivery } from '../../../shared/contract/route.js';
import type { ServiceDeps } from '../deps.js';
import type { MonthlyUsage } from '../events/index.js';
import type { SecretBox } from '../webhooks/secretBox.js';
import { eventEffects } from './effects.js';
import type { BillingProvider, ProviderEvent } from './events.js';
import { type BillingLedger, type LedgerResult, resultOf } from './ledger.js';
import { readPaddleEvent } from './paddlePayloads.js';
import { verifyPaddle, verifyStripe, type Verified } from './signatures.js';
import { readStripeEvent } from './stripePayloads.js';

export interface BillingReceipt {
  received: true;
  outcome: LedgerResult['outcome'];
}

/**
 * Whether another event's row may wait for this one (a held payment, a kept refund), to be
 * looked for once more after the event's transaction has committed: a sale, a binding, a kept
 * refund, a payment held as unattributed, or a redelivery (after a settling that failed).
 * Other skips (another currency, zero amount…) leave nothing waiting.
 */
function mayLeaveRowsWaiting(result: LedgerResult): boolean {
  if (result.outcome === 'skipped') return result.reason === 'unattributed';
  return ['conversion_created', 'customer_bound', 'refund_pending', 'duplicate'].includes(result.outcome);
}

const PROVIDERS: Record<
  BillingProvider,
  {
    verify: (body: Buffer, header: string | undefined, secrets: readonly string[]) => Verified;
    read: (json: unknown) => ProviderEvent | undefined;
  }
> = {
  stripe: { verify: verifyStripe, read: readStripeEvent },
  paddle: { verify: verifyPaddle, read: readPaddleEvent },
};

/**
 * `POST /v1/integrations/{provider}/{campaignPublicId}` (docs/integrations.md): the signature
 * first, on the raw bytes; then the event, once per campaign: its log row and its effect are
 * written in one transaction, so a redelivery (or ten at once, on any daemon) finds the row and
 * changes nothing.
 */
export interface BillingReceiver {
  receive(provider: BillingProvider, campaignPublicId: string, delivery: SignedDelivery): Promise<BillingReceipt>;
}

export function billingReceiver(
  { db, now: clock }: ServiceDeps,
  box: SecretBox,
  ledger: BillingLedger,
  usage: MonthlyUsage,
): BillingReceiver {
  const effects = eventEffects(ledger);

  async function receive(
    provider: BillingProvider,
    publicId: string,
    delivery: SignedDelivery,
  ): Promise<BillingReceipt> {
    const now = clock();
    const campaign = await findReceivingCampaign(db, publicId, provider, now);
    // Unknown campaign and campaign without this integration: the same answer.
    if (!campaign) throw new NotFoundError(MESSAGES.notFound);
    const secrets = (await Promise.all(campaign.sealedSecrets.map((sealed) => box.open(sealed)))).filter(
      (secret): secret is string => secret !== undefined,
    );
    const verified = PROVIDERS[provider].verify(delivery.body, delivery.signature, secrets);
    if (!verified.ok) {
      throw verified.reason === 'json'
        ? new ValidationError(MESSAGES.malformedJson)
        : new HttpError(400, MESSAGES.invalidSignature(provider));
    }
    const event = PROVIDERS[provider].read(verified.json);
    if (!event) throw new ValidationError(MESSAGES.notAProviderEvent(provider));
    // The month's counter exists before the transaction that reserves from it (intake's cache).
    if (event.kind === 'payment') await usage.prepare(campaign.campaignId, now);
    const result = await inLockingTransaction(db, async (trx) => {
      let logId: number;
      try {
        logId = await insertBillingEvent(trx, {
          campaignId: campaign.campaignId,
          provider,
          eventId: event.id,
          type: event.type,
          livemode: event.livemode,
          receivedAt: now,
        });
      } catch (err) {
        if (err instanceof UniqueConflict) return resultOf('duplicate');
        throw err;
      }
      const outcome = await effects.act({ trx, campaign, provider, now }, event);
      await recordBillingOutcome(trx, logId, outcome);
      return outcome;
    });
    if (mayLeaveRowsWaiting(result)) {
      await inLockingTransaction(db, (trx) => effects.settle({ trx, campaign, provider, now }, event));
    }
    return { received: true, outcome: result.outcome };
  }

  return { receive };
}
