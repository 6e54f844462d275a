import { minorToHundredths, minorUnitExponent } from '../../../shared/currency.js';
import { MESSAGES } from '../../../shared/errors.js';
import { inLockingTransaction, type Trx } from '../../db/knex.js';
import { HttpError, NotFoundError, ValidationError } from '../../errors.js';
import { insertBillingEvent, recordBillingOutcome } from '../../repositories/billingEvents.js';
import { findReceivingCampaign, type ReceivingCampaign } from '../../repositories/billingIntegrations.js';
import { UniqueConflict } from '../../repositories/uniqueConflict.js';
import { ensureMonthlyUsage, monthKey } from '../../repositories/usage.js';
import type { SignedDelivery } from '../../../shared/contract/route.js';
import type { ServiceDeps } from '../deps.js';
import type { SecretBox } from '../webhooks/secretBox.js';
import { attributePayment, bindAttributedCustomer } from './attribution.js';
import type { BillingProvider, ProviderEvent } from './events.js';
import { type BillingLedger, type LedgerResult, resultOf } from './ledger.js';
import { readPaddleEvent } from './paddlePayloads.js';
import { verifyPaddle, verifyStripe, type Verified } from './signatures.js';
import { readStripeEvent } from './stripePayloads.js';

export interface BillingReceipt {
  received: true;
  outcome: LedgerResult['outcome'];
}

/** spec §10.8's largest order value, in hundredths: a provider amount past it is not a sale we can store. */
const MAX_ORDER_VALUE_CENTS = 1_000_000_000_000;
const USAGE_ROWS_REMEMBERED = 1_000;

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

/** A provider's amount in the campaign's money; undefined when it cannot be read. */
function campaignCents(amountMinor: string, currency: string, provider: BillingProvider): number | undefined {
  return minorToHundredths(amountMinor, minorUnitExponent(currency, provider));
}

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
): BillingReceiver {
  const usageRows = new Map<number, string>();
  async function act(
    trx: Trx,
    provider: BillingProvider,
    campaign: ReceivingCampaign,
    event: ProviderEvent,
    now: Date,
  ) {
    const { campaignId } = campaign;
    switch (event.kind) {
      case 'ignored':
        return resultOf('ignored');
      case 'unreadable':
        return resultOf('skipped', 'unreadable_payload');
      case 'binding': {
        if (event.attribution.customerId === null) return resultOf('skipped', 'no_customer');
        const attributed = await attributePayment(trx, campaignId, provider, event.attribution);
        if (!attributed.found) return resultOf('skipped', attributed.reason);
        if (attributed.by === 'customer') return resultOf('customer_bound');
        const bound = await bindAttributedCustomer(
          trx,
          campaignId,
          provider,
          event.attribution.customerId,
          attributed,
          now,
        );
        return bound ? resultOf('customer_bound') : resultOf('skipped', 'customer_bound_to_another_affiliate');
      }
      case 'payment': {
        const { payment } = event;
        if (payment.currency !== campaign.currency) return resultOf('skipped', 'currency_mismatch');
        const cents = campaignCents(payment.amountMinor, payment.currency, provider);
        if (cents === undefined) return resultOf('skipped', 'unreadable_payload');
        if (cents <= 0) return resultOf('skipped', 'zero_amount');
        if (cents > MAX_ORDER_VALUE_CENTS) return resultOf('skipped', 'amount_out_of_range');
        const attributed = await attributePayment(trx, campaignId, provider, payment.attribution);
        if (!attributed.found) return resultOf('skipped', attributed.reason);
        await bindAttributedCustomer(trx, campaignId, provider, payment.attribution.customerId, attributed, now);
        return ledger.storePayment(trx, {
          campaign,
          provider,
          eventId: event.id,
          occurredAt: event.occurredAt,
          now,
          affiliate: attributed.affiliate,
          payment,
          orderValueCents: cents,
        });
      }
      case 'refund': {
        const { refund } = event;
        if (refund.currency !== campaign.currency) return resultOf('skipped', 'currency_mismatch');
        const refundedCents = campaignCents(refund.refundedMinor, refund.currency, provider);
        const ofCents = refund.ofMinor === null ? null : campaignCents(refund.ofMinor, refund.currency, provider);
        if (refundedCents === undefined || ofCents === undefined) return resultOf('skipped', 'unreadable_payload');
        if (refundedCents <= 0 && !refund.full) return resultOf('skipped', 'zero_amount');
        return ledger.storeRefund(trx, { campaign, provider, eventId: event.id, now, refund, refundedCents, ofCents });
      }
    }
  }

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
    // The month's counter row exists before the transaction that reserves from it (see
    // ensureMonthlyUsage); once made, it is remembered, as intake does, saving a commit per sale.
    if (event.kind === 'payment' && usageRows.get(campaign.campaignId) !== monthKey(now)) {
      await ensureMonthlyUsage(db, campaign.campaignId, now);
      if (usageRows.size >= USAGE_ROWS_REMEMBERED) usageRows.clear();
      usageRows.set(campaign.campaignId, monthKey(now));
    }
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
      const outcome = await act(trx, provider, campaign, event, now);
      await recordBillingOutcome(trx, logId, outcome);
      return outcome;
    });
    return { received: true, outcome: result.outcome };
  }

  return { receive };
}
