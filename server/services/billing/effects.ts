import { minorToHundredths, minorUnitExponent } from '../../../shared/currency.js';
import type { Trx } from '../../db/knex.js';
import { recordLaterOutcome } from '../../repositories/billingEvents.js';
import type { ReceivingCampaign } from '../../repositories/billingIntegrations.js';
import { type BillingAffiliate, holdPayment, takeHeldPayments } from '../../repositories/billingLedger.js';
import { attributePayment, bindAttributedCustomer } from './attribution.js';
import type { BillingProvider, ProviderEvent, ProviderPayment } from './events.js';
import { type BillingLedger, type LedgerResult, resultOf } from './ledger.js';

/** spec §10.8's largest order value, in hundredths: a provider amount past it is not a sale we can store. */
const MAX_ORDER_VALUE_CENTS = 1_000_000_000_000;

/** A provider's amount in the campaign's money; undefined when it cannot be read. */
function campaignCents(amountMinor: string, currency: string, provider: BillingProvider): number | undefined {
  return minorToHundredths(amountMinor, minorUnitExponent(currency, provider));
}

/** What a held payment keeps: the payment, when it happened and its value in the campaign's money. */
interface Held {
  payment: ProviderPayment;
  occurredAt: string;
  cents: number;
}

/** Where an event acts: the campaign, the provider, the transaction of the event's log row, the time. */
interface Scene {
  trx: Trx;
  campaign: ReceivingCampaign;
  provider: BillingProvider;
  now: Date;
}

/**
 * What a verified event does (docs/integrations.md), inside the transaction that wrote its log
 * row: its outcome. Payments and refunds are stored through the ledger.
 */
export function eventEffects(ledger: BillingLedger) {
  /**
   * Payments held for a customer that is now bound (Stripe may send a subscription's first
   * invoice before its checkout): counted for the affiliate, and their log rows say so.
   */
  async function countHeldPayments(scene: Scene, customerId: string, affiliate: BillingAffiliate): Promise<void> {
    const { trx, campaign, provider, now } = scene;
    for (const held of await takeHeldPayments(trx, campaign.campaignId, provider, customerId)) {
      const kept = JSON.parse(held.payment) as Held;
      const result = await ledger.storePayment(trx, {
        campaign,
        provider,
        eventId: held.eventId,
        occurredAt: new Date(kept.occurredAt),
        now,
        affiliate,
        payment: kept.payment,
        orderValueCents: kept.cents,
      });
      await recordLaterOutcome(trx, { campaignId: campaign.campaignId, provider, eventId: held.eventId }, result);
    }
  }

  async function binding(scene: Scene, event: Extract<ProviderEvent, { kind: 'binding' }>): Promise<LedgerResult> {
    const { trx, campaign, provider, now } = scene;
    const customerId = event.attribution.customerId;
    if (customerId === null) return resultOf('skipped', 'no_customer');
    const attributed = await attributePayment(trx, campaign.campaignId, provider, event.attribution);
    if (!attributed.found) return resultOf('skipped', attributed.reason);
    if (attributed.by === 'customer') return resultOf('customer_bound');
    if (!(await bindAttributedCustomer(trx, campaign.campaignId, provider, customerId, attributed, now))) {
      return resultOf('skipped', 'customer_bound_to_another_affiliate');
    }
    await countHeldPayments(scene, customerId, attributed.affiliate);
    return resultOf('customer_bound');
  }

  async function payment(scene: Scene, event: Extract<ProviderEvent, { kind: 'payment' }>): Promise<LedgerResult> {
    const { trx, campaign, provider, now } = scene;
    const { payment: paid } = event;
    if (paid.currency !== campaign.currency) return resultOf('skipped', 'currency_mismatch');
    const cents = campaignCents(paid.amountMinor, paid.currency, provider);
    if (cents === undefined) return resultOf('skipped', 'unreadable_payload');
    if (cents <= 0) return resultOf('skipped', 'zero_amount');
    if (cents > MAX_ORDER_VALUE_CENTS) return resultOf('skipped', 'amount_out_of_range');
    const customerId = paid.attribution.customerId;
    const attributed = await attributePayment(trx, campaign.campaignId, provider, paid.attribution);
    if (!attributed.found) {
      if (attributed.reason === 'unattributed' && customerId !== null) {
        const held: Held = { payment: paid, occurredAt: event.occurredAt.toISOString(), cents };
        await holdPayment(trx, {
          campaignId: campaign.campaignId,
          provider,
          customerId,
          eventId: event.id,
          payment: JSON.stringify(held),
          at: now,
        });
      }
      return resultOf('skipped', attributed.reason);
    }
    const bound = await bindAttributedCustomer(trx, campaign.campaignId, provider, customerId, attributed, now);
    const result = await ledger.storePayment(trx, {
      campaign,
      provider,
      eventId: event.id,
      occurredAt: event.occurredAt,
      now,
      affiliate: attributed.affiliate,
      payment: paid,
      orderValueCents: cents,
    });
    if (bound && customerId !== null) await countHeldPayments(scene, customerId, attributed.affiliate);
    return result;
  }

  async function refund(scene: Scene, event: Extract<ProviderEvent, { kind: 'refund' }>): Promise<LedgerResult> {
    const { trx, campaign, provider, now } = scene;
    const { refund: refunded } = event;
    if (refunded.currency !== campaign.currency) return resultOf('skipped', 'currency_mismatch');
    const refundedCents = campaignCents(refunded.refundedMinor, refunded.currency, provider);
    const ofCents = refunded.ofMinor === null ? null : campaignCents(refunded.ofMinor, refunded.currency, provider);
    if (refundedCents === undefined || ofCents === undefined) return resultOf('skipped', 'unreadable_payload');
    if (refundedCents <= 0 && !refunded.full) return resultOf('skipped', 'zero_amount');
    return ledger.storeRefund(trx, {
      campaign,
      provider,
      eventId: event.id,
      now,
      refund: refunded,
      refundedCents,
      ofCents,
    });
  }

  /**
   * After the event's transaction committed: what another event stored meanwhile, which that
   * transaction could not see. Stripe sends a new subscription's checkout and first invoice at
   * once, maybe to two daemons; a refund may race its sale. Whichever commits second finds the
   * other's row here: held payments of a customer now bound, refunds kept for a sale now stored.
   */
  async function settle(scene: Scene, event: ProviderEvent): Promise<void> {
    const { trx, campaign, provider, now } = scene;
    const attribution =
      event.kind === 'payment' ? event.payment.attribution : event.kind === 'binding' ? event.attribution : null;
    const customerId = attribution?.customerId ?? null;
    if (customerId !== null) {
      const bound = await attributePayment(trx, campaign.campaignId, provider, {
        referralCodes: [],
        couponCodes: [],
        customerId,
      });
      if (bound.found) await countHeldPayments(scene, customerId, bound.affiliate);
    }
    const references =
      event.kind === 'payment' ? event.payment.references : event.kind === 'refund' ? event.refund.references : [];
    if (references.length > 0) await ledger.settleRefunds(trx, { campaign, provider, now, references });
  }

  async function act(scene: Scene, event: ProviderEvent): Promise<LedgerResult> {
    switch (event.kind) {
      case 'ignored':
        return resultOf('ignored');
      case 'unreadable':
        return resultOf('skipped', 'unreadable_payload');
      case 'binding':
        return binding(scene, event);
      case 'payment':
        return payment(scene, event);
      case 'refund':
        return refund(scene, event);
    }
  }

  return { act, settle };
}
