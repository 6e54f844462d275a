import {
  amountAt,
  arrayAt,
  type Attribution,
  distinct,
  eventTime,
  idAt,
  type Json,
  objectAt,
  type ProviderEvent,
  type ProviderPayment,
  productOf,
  textAt,
} from './events.js';

/**
 * Stripe events as docs/integrations.md lists them, read from API version 2024-06-20 on. Where
 * the 2025-03-31 (basil) version moved a field, both places are read: an invoice's subscription
 * and its metadata (`subscription`, `subscription_details` → `parent.subscription_details`), its
 * tax (`tax` → `total_taxes`) and its payment (`payment_intent`, `charge` → `payments`); a charge's
 * invoice (`invoice`, removed in basil).
 */

const REF_KEY = 'affiliated_ref';

const refOf = (metadata: unknown) => textAt(objectAt(metadata)?.[REF_KEY]);

/** Coupon and promotion-code ids of a `discounts` list (ids or objects) and of a legacy `discount`. */
function couponCodes(object: Json): string[] {
  const codes: (string | undefined)[] = [];
  for (const entry of [...arrayAt(object.discounts), object.discount]) {
    const discount = objectAt(entry);
    if (!discount) continue;
    codes.push(idAt(discount.coupon) ?? idAt(objectAt(discount.source)?.coupon));
    codes.push(idAt(discount.promotion_code));
  }
  return distinct(codes);
}

/** The customer's own metadata, when the event carries the customer expanded. */
const customerRef = (customer: unknown) => refOf(objectAt(customer)?.metadata);

function checkoutSession(session: Json, base: Omit<ProviderEvent, 'kind'>): ProviderEvent {
  const attribution: Attribution = {
    referralCodes: distinct([
      textAt(session.client_reference_id),
      refOf(session.metadata),
      customerRef(session.customer),
    ]),
    couponCodes: couponCodes(session),
    customerId: idAt(session.customer) ?? null,
  };
  if (session.mode !== 'payment' || session.payment_status !== 'paid') return { ...base, kind: 'binding', attribution };
  const total = amountAt(session.amount_total);
  const currency = textAt(session.currency);
  if (total === undefined || currency === undefined)
    return { ...base, kind: 'unreadable', missing: 'amount_total or currency' };
  // Tax taken out, as for an invoice: commissions are on what the shop keeps.
  const net = BigInt(total) - BigInt(amountAt(objectAt(session.total_details)?.amount_tax) ?? '0');
  const amount = String(net > 0n ? net : 0n);
  const paymentIntent = idAt(session.payment_intent);
  const orderId = paymentIntent ?? idAt(session.id);
  if (orderId === undefined) return { ...base, kind: 'unreadable', missing: 'payment_intent' };
  return {
    ...base,
    kind: 'payment',
    payment: {
      orderId,
      references: distinct([orderId, idAt(session.id)]),
      amountMinor: amount,
      currency: currency.toUpperCase(),
      renewal: false,
      attribution,
      customerEmail: textAt(objectAt(session.customer_details)?.email),
    },
  };
}

/**
 * The product of an invoice's first line with one. Stripe writes a line's `description` for people
 * (`1 × Pro (at R$49.90 / month)`), so the product is read where the API keeps it: basil's
 * `pricing.price_details.product`, before it `price.product` or `plan.product`. Each is an id, or
 * the product itself when the event was expanded; only then does the payload carry its name.
 */
function invoiceProduct(invoice: Json): Pick<ProviderPayment, 'product' | 'productId'> {
  for (const entry of arrayAt(objectAt(invoice.lines)?.data)) {
    const line = objectAt(entry);
    const details = objectAt(objectAt(line?.pricing)?.price_details);
    const price = objectAt(line?.price) ?? objectAt(details?.price);
    const product = [price?.product, details?.product, objectAt(line?.plan)?.product].find(
      (value) => idAt(value) !== undefined,
    );
    if (product !== undefined) return productOf(idAt(product), textAt(objectAt(product)?.name));
  }
  return {};
}

/** `tax` before basil; the sum of `total_taxes` from basil on; 0 when neither says. */
function invoiceTax(invoice: Json): bigint {
  const legacy = amountAt(invoice.tax);
  if (legacy !== undefined) return BigInt(legacy);
  let sum = 0n;
  for (const tax of arrayAt(invoice.total_taxes)) sum += BigInt(amountAt(objectAt(tax)?.amount) ?? '0');
  return sum;
}

function invoicePaid(invoice: Json, base: Omit<ProviderEvent, 'kind'>): ProviderEvent {
  const id = idAt(invoice.id);
  const paid = amountAt(invoice.amount_paid);
  const currency = textAt(invoice.currency);
  if (id === undefined || paid === undefined || currency === undefined) {
    return { ...base, kind: 'unreadable', missing: 'id, amount_paid or currency' };
  }
  const subscription = objectAt(objectAt(invoice.parent)?.subscription_details);
  const legacySubscription = objectAt(invoice.subscription_details);
  const payments = arrayAt(objectAt(invoice.payments)?.data).map((entry) => objectAt(objectAt(entry)?.payment));
  const net = BigInt(paid) - invoiceTax(invoice);
  return {
    ...base,
    kind: 'payment',
    payment: {
      orderId: id,
      references: distinct([
        id,
        idAt(invoice.payment_intent),
        idAt(invoice.charge),
        ...payments.flatMap((payment) => [idAt(payment?.payment_intent), idAt(payment?.charge)]),
      ]),
      amountMinor: String(net > 0n ? net : 0n),
      currency: currency.toUpperCase(),
      renewal: invoice.billing_reason === 'subscription_cycle',
      attribution: {
        referralCodes: distinct([
          refOf(subscription?.metadata),
          refOf(legacySubscription?.metadata),
          refOf(objectAt(invoice.subscription)?.metadata),
          customerRef(invoice.customer),
        ]),
        couponCodes: couponCodes(invoice),
        customerId: idAt(invoice.customer) ?? null,
      },
      ...invoiceProduct(invoice),
      customerEmail: textAt(invoice.customer_email),
    },
  };
}

function chargeRefunded(charge: Json, base: Omit<ProviderEvent, 'kind'>): ProviderEvent {
  const amount = amountAt(charge.amount);
  const refunded = amountAt(charge.amount_refunded);
  const currency = textAt(charge.currency);
  if (amount === undefined || refunded === undefined || currency === undefined) {
    return { ...base, kind: 'unreadable', missing: 'amount, amount_refunded or currency' };
  }
  const references = distinct([idAt(charge.invoice), idAt(charge.payment_intent), idAt(charge.id)]);
  const chargeId = idAt(charge.id);
  if (references.length === 0 || chargeId === undefined) return { ...base, kind: 'unreadable', missing: 'id' };
  return {
    ...base,
    kind: 'refund',
    refund: {
      references,
      refundedMinor: refunded,
      ofMinor: amount,
      currency: currency.toUpperCase(),
      full: BigInt(refunded) >= BigInt(amount),
      cumulative: true,
      // The charge's running total: a redelivery, or another event with the same total, refunds nothing more.
      refundKey: `stripe:${chargeId}:${refunded}`,
    },
  };
}

/** A verified Stripe event (parsed JSON) in the internal shape; undefined when it is not an event at all. */
export function readStripeEvent(event: unknown): ProviderEvent | undefined {
  const envelope = objectAt(event);
  const id = textAt(envelope?.id);
  const type = textAt(envelope?.type);
  if (!envelope || id === undefined || type === undefined) return undefined;
  const created = envelope.created;
  const base = {
    id,
    type,
    occurredAt: eventTime(typeof created === 'number' ? created * 1000 : undefined, new Date()),
    livemode: typeof envelope.livemode === 'boolean' ? envelope.livemode : null,
  };
  const object = objectAt(objectAt(envelope.data)?.object);
  const readers: Record<string, (object: Json, base: Omit<ProviderEvent, 'kind'>) => ProviderEvent> = {
    'checkout.session.completed': checkoutSession,
    // Boleto and other delayed methods: the session completed unpaid, and this says the money came.
    'checkout.session.async_payment_succeeded': checkoutSession,
    'invoice.paid': invoicePaid,
    'charge.refunded': chargeRefunded,
  };
  const reader = readers[type];
  if (!reader) return { ...base, kind: 'ignored' };
  if (!object) return { ...base, kind: 'unreadable', missing: 'data.object' };
  return reader(object, base);
}
