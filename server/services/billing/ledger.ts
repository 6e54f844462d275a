import { createHash } from 'node:crypto';
import { proportion } from '../../../shared/currency.js';
import { fromCents } from '../../../shared/money.js';
import type { TrackingEvent } from '../../../shared/schemas/event.js';
import type { BILLING_OUTCOMES } from '../../../shared/vocabulary.js';
import type { Trx } from '../../db/knex.js';
import type { ReceivingCampaign } from '../../repositories/billingIntegrations.js';
import {
  type BillingAffiliate,
  keepPendingRefund,
  orderByReferences,
  rememberOrder,
  takePendingRefunds,
} from '../../repositories/billingLedger.js';
import { recordLaterOutcome } from '../../repositories/billingEvents.js';
import type { RecordSale, SaleRecorded } from '../events/index.js';
import { type RefundAmount, RepeatedRefund, refundOrder } from '../refunds.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import type { BillingProvider, ProviderPayment, ProviderRefund } from './events.js';

/** What the log records of an event, and the answer's `outcome` (docs/integrations.md). */
export type BillingOutcome = (typeof BILLING_OUTCOMES)[number];

export interface LedgerResult {
  outcome: BillingOutcome;
  reason: string | null;
  conversionId: number | null;
  orderId: string | null;
}

/** Another event stored this sale first, under a reference this one shares (rolls its savepoint back). */
class SaleStoredBefore extends Error {
  override name = 'SaleStoredBefore';
}

export const resultOf = (outcome: BillingOutcome, reason: string | null = null): LedgerResult => ({
  outcome,
  reason,
  conversionId: null,
  orderId: null,
});

/** An attributed payment in the campaign's money, ready to store. */
export interface Sale {
  campaign: ReceivingCampaign;
  provider: BillingProvider;
  eventId: string;
  occurredAt: Date;
  now: Date;
  affiliate: BillingAffiliate;
  payment: ProviderPayment;
  /** Hundredths of the campaign's currency, above 0. */
  orderValueCents: number;
}

/** Where a sale's refunds are looked for: its campaign, provider and the ids it is known by. */
export interface SaleReferences {
  campaign: ReceivingCampaign;
  provider: BillingProvider;
  now: Date;
  references: readonly string[];
}

/** A refund in the campaign's money: of `ofCents` when the provider said what it is a part of. */
export interface Refund {
  campaign: ReceivingCampaign;
  provider: BillingProvider;
  eventId: string;
  now: Date;
  refund: ProviderRefund;
  refundedCents: number;
  ofCents: number | null;
}

/**
 * The seam between what a provider said and what the daemon stores: one function stores a
 * payment, one a refund, both inside the caller's transaction (the one that wrote the event's log
 * row, so the effect and the dedupe commit together). Payments go through intake's flush
 * (commission, monthly limit, report counters, `conversion.created`); refunds through the
 * refund of `POST /v1/refunds`.
 */
export interface BillingLedger {
  storePayment(trx: Trx, sale: Sale): Promise<LedgerResult>;
  storeRefund(trx: Trx, refund: Refund): Promise<LedgerResult>;
  settleRefunds(trx: Trx, at: SaleReferences): Promise<void>;
}

/** Intake keeps `event_id` at 128 characters: a longer provider id is kept as its digest. */
const EVENT_ID_LIMIT = 100;

/** The conversion event intake stores for a sale: the payment's facts in `properties`. */
function conversionEvent(sale: Sale): TrackingEvent {
  const { payment, provider, eventId } = sale;
  const providerEventId =
    eventId.length <= EVENT_ID_LIMIT ? eventId : createHash('sha256').update(eventId).digest('hex');
  return {
    event_type: 'conversion',
    campaign_id: sale.campaign.publicId,
    affiliate_id: sale.affiliate.referralKey,
    properties: {
      order_id: payment.orderId,
      // Integer hundredths over 100, read back by intake's `toCents` as the same integer.
      order_value: fromCents(sale.orderValueCents),
      timestamp: sale.occurredAt.toISOString(),
      ...(payment.product !== undefined && { product: payment.product }),
      ...(payment.productId !== undefined && { product_id: payment.productId }),
      ...(payment.customerEmail !== undefined && { customer_email: payment.customerEmail }),
      ...(payment.attribution.customerId !== null && { customer_id: payment.attribution.customerId }),
      provider,
      provider_event_id: providerEventId,
      currency: sale.campaign.currency,
      payment: payment.renewal ? 'renewal' : 'first',
    },
  };
}

/** The refunds table keeps a key of 128 characters: a longer provider key is kept as its digest. */
const REFUND_KEY_LIMIT = 128;

const refundKeyOf = (key: string) =>
  key.length <= REFUND_KEY_LIMIT ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`;

/**
 * How much of the sale this refund takes, in hundredths, decided on the locked sale: undefined
 * for the rest of the order, 0 for nothing more. A provider's amount is of the whole charge (tax
 * included) when it says what it is a part of: the order's share of it is taken, half up. A
 * running total takes only what the sale has not refunded yet.
 */
function refundedPart(request: Refund): RefundAmount {
  return (sale) => {
    const { refund, refundedCents, ofCents } = request;
    if (refund.full) return undefined;
    const ofOrder =
      ofCents === null || ofCents <= 0
        ? refundedCents
        : proportion(sale.orderValueCents, BigInt(refundedCents), BigInt(ofCents));
    const part = refund.cumulative ? ofOrder - sale.refundedValueCents : ofOrder;
    const left = sale.orderValueCents - sale.refundedValueCents;
    if (part <= 0) return 0;
    return part >= left ? undefined : part;
  };
}

/** What a sale intake skipped is in the ledger's words: a duplicate of a stored one, or skipped. */
const skipOutcome = (reason: string): BillingOutcome =>
  reason === 'duplicate_order_id' || reason === 'duplicate_event_id' ? 'duplicate' : 'skipped';

/** Refunds go through the refund of `POST /v1/refunds` (and its `outbox`), sales through intake's `recordSale`. */
export function billingLedger(outbox: WebhookOutbox, recordSale: RecordSale): BillingLedger {
  /**
   * The refund of a stored sale through the refund of `POST /v1/refunds` (full or partial, its
   * commission lowered in proportion, the paid part clawed back), inside a savepoint: a refund
   * key the campaign has seen rolls back this refund alone, not the event's log row.
   */
  async function refundStoredOrder(trx: Trx, request: Refund, orderId: string): Promise<LedgerResult> {
    const { campaign, provider, refund, now } = request;
    let refunded;
    try {
      refunded = await trx.transaction((savepoint) =>
        refundOrder(savepoint, outbox, {
          campaignId: campaign.campaignId,
          orderId,
          amountCents: refundedPart(request),
          refundKey: refundKeyOf(refund.refundKey),
          reason: `${provider} refund`,
          at: now,
        }),
      );
    } catch (err) {
      if (err instanceof RepeatedRefund) return { ...resultOf('duplicate', 'refund_already_applied'), orderId };
      throw err;
    }
    if (!refunded) return { ...resultOf('skipped', 'sale_not_found'), orderId };
    const result = { conversionId: refunded.conversion.id, orderId };
    if (!refunded.changed) return { outcome: 'skipped', reason: 'already_refunded', ...result };
    return { outcome: 'refund_applied', reason: null, ...result };
  }

  async function storeRefund(trx: Trx, request: Refund): Promise<LedgerResult> {
    const { campaign, provider, refund } = request;
    const order = await orderByReferences(trx, campaign.campaignId, provider, refund.references);
    if (order) return refundStoredOrder(trx, request, order.orderId);
    // Providers do not promise order: the sale may come later, and the refund is applied then.
    await keepPendingRefund(trx, {
      campaignId: campaign.campaignId,
      provider,
      references: refund.references,
      eventId: request.eventId,
      refund: JSON.stringify({ ...refund, refundedCents: request.refundedCents, ofCents: request.ofCents }),
      reason: 'sale_not_received',
      at: request.now,
    });
    return { ...resultOf('refund_pending', 'sale_not_received'), orderId: refund.references[0] ?? null };
  }

  /** Refunds that arrived before this sale: applied now that it is stored, and their log rows say so. */
  async function applyWaitingRefunds(trx: Trx, at: SaleReferences, orderId: string): Promise<void> {
    const { campaign, provider } = at;
    const waiting = await takePendingRefunds(trx, campaign.campaignId, provider, at.references);
    for (const pending of waiting) {
      const kept = JSON.parse(pending.refund) as ProviderRefund & { refundedCents: number; ofCents: number | null };
      const { refundedCents, ofCents, ...refund } = kept;
      const result = await refundStoredOrder(
        trx,
        { campaign, provider, eventId: pending.eventId, now: at.now, refund, refundedCents, ofCents },
        orderId,
      );
      await recordLaterOutcome(trx, { campaignId: campaign.campaignId, provider, eventId: pending.eventId }, result);
    }
  }

  /**
   * Refunds kept for a sale that is stored now, applied: run after an event's transaction
   * commits, for a refund and its sale that arrived at once and could not see each other.
   */
  async function settleRefunds(trx: Trx, at: SaleReferences): Promise<void> {
    const order = await orderByReferences(trx, at.campaign.campaignId, at.provider, at.references);
    if (order) await applyWaitingRefunds(trx, at, order.orderId);
  }

  async function storePayment(trx: Trx, sale: Sale): Promise<LedgerResult> {
    const { campaign, payment } = sale;
    const { orderId } = payment;
    let recorded: SaleRecorded;
    try {
      // A savepoint: a sale another event stored first rolls back the conversion, not the event's log row.
      recorded = await trx.transaction(async (savepoint) => {
        const sold = await recordSale(savepoint, {
          limit: {
            campaignId: campaign.campaignId,
            planName: campaign.planName,
            maxMonthlyConversions: campaign.maxMonthlyConversions,
          },
          event: conversionEvent(sale),
          // The recurring limit counts the provider's customer (docs/commissions.md#recurring).
          providerCustomerId: payment.attribution.customerId,
          now: sale.now,
        });
        if (sold.outcome !== 'stored') return sold;
        const ours = await rememberOrder(savepoint, {
          campaignId: campaign.campaignId,
          provider: sale.provider,
          references: payment.references,
          orderId,
          conversionId: sold.conversionId,
        });
        if (!ours) throw new SaleStoredBefore();
        return sold;
      });
    } catch (err) {
      // A checkout and the invoice it created name one payment: one sale, one conversion.
      if (err instanceof SaleStoredBefore) return { ...resultOf('duplicate', 'sale_already_stored'), orderId };
      throw err;
    }
    switch (recorded.outcome) {
      case 'monthly_limit_reached':
        return { ...resultOf('skipped', 'monthly_limit_reached'), orderId };
      case 'skipped':
        return { ...resultOf(skipOutcome(recorded.reason), recorded.reason), orderId };
      case 'stored':
        await applyWaitingRefunds(
          trx,
          { campaign, provider: sale.provider, now: sale.now, references: payment.references },
          orderId,
        );
        return { outcome: 'conversion_created', reason: null, conversionId: recorded.conversionId, orderId };
    }
  }

  return { storePayment, storeRefund, settleRefunds };
}
