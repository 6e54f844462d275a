import type { BillingProviderName, BillingPendingRefundRow } from '../db/billingRows.js';
import { inChunks } from '../db/bulk.js';
import type { Trx } from '../db/knex.js';
import type { AffiliateRow } from '../db/rows.js';
import type { ReferralTarget } from './events.js';

/**
 * What billing integrations remember between events (docs/integrations.md): which affiliate a
 * provider customer is bound to, the ids a stored sale may be named by, and refunds waiting for
 * their sale.
 */

/** What attribution needs of an affiliate: intake reads the rest (rules, parent) when it stores the sale. */
export type BillingAffiliate = Pick<ReferralTarget, 'id' | 'campaignId' | 'referralKey' | 'status'>;

/** The affiliates with these ids in the campaign, as attribution sees them. */
export async function affiliatesByIds(
  trx: Trx,
  campaignId: number,
  ids: readonly number[],
): Promise<BillingAffiliate[]> {
  const rows = await inChunks(ids, (part) =>
    trx<AffiliateRow>('affiliates')
      .where('campaign_id', campaignId)
      .whereIn('id', part)
      .select('id', 'campaign_id', 'referral_key', 'status'),
  );
  return rows.map((row) => ({
    id: Number(row.id),
    campaignId: Number(row.campaign_id),
    referralKey: row.referral_key,
    status: row.status,
  }));
}

export async function boundAffiliate(
  trx: Trx,
  campaignId: number,
  provider: BillingProviderName,
  customerId: string,
): Promise<number | undefined> {
  const row = await trx('billing_customers')
    .where({ campaign_id: campaignId, provider, customer_id: customerId })
    .first<{ affiliate_id: number } | undefined>('affiliate_id');
  return row === undefined ? undefined : Number(row.affiliate_id);
}

/**
 * Binds a customer to an affiliate unless it is bound already: the primary key keeps the first
 * binding, whichever daemon wrote it. Answers whether this call bound it.
 */
export async function bindCustomer(
  trx: Trx,
  binding: { campaignId: number; provider: BillingProviderName; customerId: string; affiliateId: number; at: Date },
): Promise<boolean> {
  const row = {
    campaign_id: binding.campaignId,
    provider: binding.provider,
    customer_id: binding.customerId,
    affiliate_id: binding.affiliateId,
    bound_at: binding.at,
  };
  await trx('billing_customers').insert(row).onConflict().ignore();
  return (await boundAffiliate(trx, binding.campaignId, binding.provider, binding.customerId)) === binding.affiliateId;
}

/**
 * The ids a stored sale may be named by; a reference already stored keeps its first sale. Says
 * whether every reference names this sale (false: another sale holds one of them).
 */
export async function rememberOrder(
  trx: Trx,
  order: {
    campaignId: number;
    provider: BillingProviderName;
    references: readonly string[];
    orderId: string;
    conversionId: number;
  },
): Promise<boolean> {
  if (order.references.length === 0) return true;
  await trx('billing_orders')
    .insert(
      order.references.map((reference) => ({
        campaign_id: order.campaignId,
        provider: order.provider,
        reference,
        order_id: order.orderId,
        conversion_id: order.conversionId,
      })),
    )
    .onConflict()
    .ignore();
  // A reference kept by another sale (a checkout and its invoice name one payment intent): the
  // primary key decided which came first, also for two daemons at once.
  const owners = await trx('billing_orders')
    .where({ campaign_id: order.campaignId, provider: order.provider })
    .whereIn('reference', [...order.references])
    .pluck('order_id');
  return owners.every((owner) => owner === order.orderId);
}

/** The stored sale that one of `references` names, trying them in order. */
export async function orderByReferences(
  trx: Trx,
  campaignId: number,
  provider: BillingProviderName,
  references: readonly string[],
): Promise<{ orderId: string; conversionId: number } | undefined> {
  if (references.length === 0) return undefined;
  const rows = await trx('billing_orders')
    .where({ campaign_id: campaignId, provider })
    .whereIn('reference', [...references])
    .select<{ reference: string; order_id: string; conversion_id: number }[]>('reference', 'order_id', 'conversion_id');
  for (const reference of references) {
    const row = rows.find((candidate) => candidate.reference === reference);
    if (row) return { orderId: row.order_id, conversionId: Number(row.conversion_id) };
  }
  return undefined;
}

export interface PendingRefund {
  id: number;
  eventId: string;
  refund: string;
  reason: string;
}

/** Keeps a refund until its sale arrives, under each id the sale may come with. */
export async function keepPendingRefund(
  trx: Trx,
  pending: {
    campaignId: number;
    provider: BillingProviderName;
    references: readonly string[];
    eventId: string;
    refund: string;
    reason: string;
    at: Date;
  },
): Promise<void> {
  await trx('billing_pending_refunds').insert(
    pending.references.map((reference) => ({
      campaign_id: pending.campaignId,
      provider: pending.provider,
      reference,
      event_id: pending.eventId,
      refund: pending.refund,
      reason: pending.reason,
      created_at: pending.at,
    })),
  );
}

/**
 * Takes the refunds waiting for a sale named by one of `references`: each is deleted (every row
 * of its event), and answered only when this call deleted it, so two daemons never apply one twice.
 */
export async function takePendingRefunds(
  trx: Trx,
  campaignId: number,
  provider: BillingProviderName,
  references: readonly string[],
  reason?: string,
): Promise<PendingRefund[]> {
  if (references.length === 0) return [];
  const query = trx<BillingPendingRefundRow>('billing_pending_refunds')
    .where({ campaign_id: campaignId, provider })
    .whereIn('reference', [...references]);
  if (reason !== undefined) query.andWhere('reason', reason);
  const rows = await query.orderBy('id').select('id', 'event_id', 'refund', 'reason');
  const taken: PendingRefund[] = [];
  for (const row of rows) {
    if (taken.some((refund) => refund.eventId === row.event_id)) continue;
    const deleted = await trx('billing_pending_refunds')
      .where({ campaign_id: campaignId, provider, event_id: row.event_id })
      .delete();
    if (deleted > 0) taken.push({ id: Number(row.id), eventId: row.event_id, refund: row.refund, reason: row.reason });
  }
  return taken;
}

/** A payment held until its customer is bound: its event id and the payment as read (JSON). */
export interface HeldPayment {
  eventId: string;
  payment: string;
}

/** Holds a payment of a customer no affiliate is bound to yet. */
export async function holdPayment(
  trx: Trx,
  held: {
    campaignId: number;
    provider: BillingProviderName;
    customerId: string;
    eventId: string;
    payment: string;
    at: Date;
  },
): Promise<void> {
  await trx('billing_held_payments').insert({
    campaign_id: held.campaignId,
    provider: held.provider,
    customer_id: held.customerId,
    event_id: held.eventId,
    payment: held.payment,
    created_at: held.at,
  });
}

/**
 * Takes the payments held for a customer, oldest first: each is deleted and answered only when
 * this call deleted it, so two daemons binding the same customer never count one twice.
 */
export async function takeHeldPayments(
  trx: Trx,
  campaignId: number,
  provider: BillingProviderName,
  customerId: string,
): Promise<HeldPayment[]> {
  const rows = await trx('billing_held_payments')
    .where({ campaign_id: campaignId, provider, customer_id: customerId })
    .orderBy('id')
    .select<{ id: number; event_id: string; payment: string }[]>('id', 'event_id', 'payment');
  const taken: HeldPayment[] = [];
  for (const row of rows) {
    if ((await trx('billing_held_payments').where('id', row.id).delete()) > 0) {
      taken.push({ eventId: row.event_id, payment: row.payment });
    }
  }
  return taken;
}
