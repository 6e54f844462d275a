import {
  amountAt,
  arrayAt,
  distinct,
  eventTime,
  idAt,
  type Json,
  objectAt,
  productOf,
  type ProviderEvent,
  textAt,
} from './events.js';

/**
 * Paddle Billing events as docs/integrations.md lists them: `transaction.completed`, and
 * `adjustment.created` / `adjustment.updated` that are approved refunds. Amounts are strings in
 * the currency's smallest unit.
 */

function net(totals: Json | undefined): bigint | undefined {
  const total = amountAt(totals?.total);
  if (total === undefined) return undefined;
  return BigInt(total) - BigInt(amountAt(totals?.tax) ?? '0');
}

function transactionCompleted(transaction: Json, base: Omit<ProviderEvent, 'kind'>): ProviderEvent {
  const id = idAt(transaction.id);
  const totals = objectAt(objectAt(transaction.details)?.totals);
  const amount = net(totals);
  const currency = textAt(transaction.currency_code) ?? textAt(totals?.currency_code);
  if (id === undefined || amount === undefined || currency === undefined) {
    return { ...base, kind: 'unreadable', missing: 'id, details.totals.total or currency_code' };
  }
  // A line item carries its product (id and name); `items[].price` only the product's id.
  const line = objectAt(arrayAt(objectAt(transaction.details)?.line_items)[0]);
  const price = objectAt(objectAt(arrayAt(transaction.items)[0])?.price);
  const product = objectAt(line?.product);
  return {
    ...base,
    kind: 'payment',
    payment: {
      orderId: id,
      references: [id],
      amountMinor: String(amount > 0n ? amount : 0n),
      currency: currency.toUpperCase(),
      renewal: transaction.origin === 'subscription_recurring',
      attribution: {
        referralCodes: distinct([textAt(objectAt(transaction.custom_data)?.affiliated_ref)]),
        couponCodes: distinct([idAt(transaction.discount_id), idAt(objectAt(transaction.discount)?.id)]),
        customerId: idAt(transaction.customer_id) ?? null,
      },
      ...productOf(idAt(product?.id) ?? idAt(price?.product_id), textAt(product?.name)),
    },
  };
}

function adjustment(adjusted: Json, base: Omit<ProviderEvent, 'kind'>): ProviderEvent {
  // Credits, chargebacks and refunds still awaiting approval change no commission.
  if (adjusted.action !== 'refund' || adjusted.status !== 'approved') return { ...base, kind: 'ignored' };
  const transactionId = idAt(adjusted.transaction_id);
  const adjustmentId = idAt(adjusted.id);
  const totals = objectAt(adjusted.totals);
  const amount = net(totals);
  const currency = textAt(adjusted.currency_code) ?? textAt(totals?.currency_code);
  if (adjustmentId === undefined || transactionId === undefined || amount === undefined || currency === undefined) {
    return { ...base, kind: 'unreadable', missing: 'id, transaction_id, totals.total or currency_code' };
  }
  return {
    ...base,
    kind: 'refund',
    refund: {
      references: [transactionId],
      refundedMinor: String(amount > 0n ? amount : 0n),
      ofMinor: null,
      currency: currency.toUpperCase(),
      full: adjusted.type === 'full',
      cumulative: false,
      // adjustment.created and adjustment.updated may both say it is approved: one refund.
      refundKey: `paddle:${adjustmentId}`,
    },
  };
}

/** A verified Paddle notification (parsed JSON) in the internal shape; undefined when it is not one. */
export function readPaddleEvent(event: unknown): ProviderEvent | undefined {
  const envelope = objectAt(event);
  const id = textAt(envelope?.event_id);
  const type = textAt(envelope?.event_type);
  if (!envelope || id === undefined || type === undefined) return undefined;
  const base = {
    id,
    type,
    occurredAt: eventTime(
      typeof envelope.occurred_at === 'string' ? Date.parse(envelope.occurred_at) : undefined,
      new Date(),
    ),
    livemode: null,
  };
  const data = objectAt(envelope.data);
  if (type === 'transaction.completed') {
    return data ? transactionCompleted(data, base) : { ...base, kind: 'unreadable', missing: 'data' };
  }
  if (type === 'adjustment.created' || type === 'adjustment.updated') {
    return data ? adjustment(data, base) : { ...base, kind: 'unreadable', missing: 'data' };
  }
  return { ...base, kind: 'ignored' };
}
