/**
 * The world the document's examples live in: one campaign, three affiliates (one pending), three orders, a
 * payout and a webhook, created in this order in an empty database (so their ids are these).
 * Every example request of the document names only what is here, and every example answer is
 * what the daemon answers in this world, times and secrets aside: a test builds the world,
 * sends each example and compares (test/integration/documentExamples.test.ts).
 */

const NOV = (day: number, time = '14:03:00.000') => `2026-11-${String(day).padStart(2, '0')}T${time}Z`;
/** When the example world's rows were written (any time: answers' times are not compared). */
const WRITTEN = NOV(24, '09:30:00.000');

export const EXAMPLE_CAMPAIGN = { id: 1, publicId: 'acme-store', name: 'Acme Store', plan: 'pro' } as const;

export const EXAMPLE_ANA = {
  id: 1,
  email: 'ana@example.com',
  password: 'correct-horse-42',
  name: 'Ana Souza',
  phone: '+55 11 91234-5678',
  referralId: 'ANA2026',
} as const;
export const EXAMPLE_BRUNO = {
  id: 2,
  email: 'bruno@example.com',
  password: 'battery-staple-7',
  name: 'Bruno Lima',
  referralId: 'BRUNO10',
} as const;

/** An applicant through the portal, awaiting approval: what `approve` examples approve. */
export const EXAMPLE_DANI = {
  id: 3,
  email: 'dani@example.com',
  password: 'violet-lantern-3',
  name: 'Dani Rocha',
  referralId: 'DANI2026',
  status: 'pending',
} as const;

/** Ana's three sales (10 % commission, the campaign's default rule). */
export const EXAMPLE_ORDERS = [
  {
    id: 1,
    orderId: 'ORDER-1001',
    orderValue: 199.9,
    commission: 19.99,
    occurredAt: NOV(2),
    properties: { product: 'Pro plan (annual)', customer_email: 'maria@example.net' },
  },
  {
    id: 2,
    orderId: 'ORDER-1002',
    orderValue: 89.9,
    commission: 8.99,
    occurredAt: NOV(3),
    properties: { product: 'Starter plan' },
  },
  {
    id: 3,
    orderId: 'ORDER-1003',
    orderValue: 350,
    commission: 35,
    occurredAt: NOV(4),
    properties: { product: 'Team plan' },
  },
] as const;
export type ExampleOrder = (typeof EXAMPLE_ORDERS)[number];

/**
 * The campaign's one group, made after the payout; Bruno joins it, with Ana as his parent.
 * Nobody's conversions change: they arrived before.
 */
export const EXAMPLE_GROUP = {
  id: 1,
  name: 'Top partners',
  commissionType: 'percent',
  commissionValue: 15,
  recurring: { months: 12 },
  products: [{ product: 'Team plan', commissionType: 'percent', commissionValue: 20 }],
  secondTierPercent: 5,
} as const;

/** Payout 1 pays Ana's ORDER-1003; ORDER-1002 is approved after it, ORDER-1001 stays pending. */
export const EXAMPLE_PAYOUT = { id: 1, conversionIds: [3], amount: 35 } as const;

export const EXAMPLE_WEBHOOK = {
  id: 1,
  url: 'https://shop.example.com/webhooks/affiliated',
  events: ['conversion.approved', 'payout.paid'],
  description: 'Shop backend',
} as const;
/** Deliveries 1 and 2 are the approvals of ORDER-1003 and ORDER-1002. */
export const EXAMPLE_DELIVERY_ID = 1;

/** The events that make the world's page views, lead and sales (`POST /v1/events`). */
export function exampleWorldEvents() {
  const base = { campaign_id: EXAMPLE_CAMPAIGN.publicId, affiliate_id: EXAMPLE_ANA.referralId } as const;
  return [
    { ...base, event_type: 'page_view', session_id: 'sess-41a7', properties: { timestamp: NOV(1) } },
    { ...base, event_type: 'page_view', session_id: 'sess-41a8', properties: { timestamp: NOV(2) } },
    {
      ...base,
      affiliate_id: EXAMPLE_BRUNO.referralId,
      event_type: 'page_view',
      session_id: 'sess-52c1',
      properties: { timestamp: NOV(2) },
    },
    { ...base, event_type: 'lead', session_id: 'sess-41a8', properties: { timestamp: NOV(2) } },
    ...EXAMPLE_ORDERS.map((order) => ({
      ...base,
      event_type: 'conversion',
      properties: {
        order_id: order.orderId,
        order_value: order.orderValue,
        timestamp: order.occurredAt,
        ...order.properties,
      },
    })),
  ];
}

type Status = 'pending' | 'approved' | 'rejected' | 'paid';

/** An affiliate as the API answers it in the world (Ana by default). */
export function exampleAffiliate(overrides: Record<string, unknown> = {}) {
  return {
    id: EXAMPLE_ANA.id,
    name: EXAMPLE_ANA.name,
    email: EXAMPLE_ANA.email,
    phone: EXAMPLE_ANA.phone,
    referralId: EXAMPLE_ANA.referralId,
    status: 'active',
    createdAt: WRITTEN,
    totalConversions: 3,
    totalCommissions: 43.99,
    totalPaid: 0,
    payoutMethod: null,
    pixKeyType: null,
    payoutAccount: null,
    flags: [],
    groupId: null,
    commissionOverride: null,
    parentAffiliateId: null,
    ...overrides,
  };
}

/** The group as the API answers it in the world. */
export function exampleGroup(overrides: Record<string, unknown> = {}) {
  return {
    ...EXAMPLE_GROUP,
    recurring: { ...EXAMPLE_GROUP.recurring },
    products: EXAMPLE_GROUP.products.map((rule) => ({ ...rule })),
    affiliateCount: 1,
    createdAt: WRITTEN,
    updatedAt: WRITTEN,
    ...overrides,
  };
}

/** Ana's conversion for an order, in a given status. */
export function exampleConversion(order: ExampleOrder, status: Status, overrides: Record<string, unknown> = {}) {
  return {
    id: order.id,
    affiliateId: EXAMPLE_ANA.id,
    referralId: EXAMPLE_ANA.referralId,
    orderId: order.orderId,
    orderValue: order.orderValue,
    commission: order.commission,
    status,
    payoutId: order.id === 3 ? EXAMPLE_PAYOUT.id : null,
    occurredAt: order.occurredAt,
    createdAt: WRITTEN,
    refundedAt: null,
    refundReason: null,
    // The event's properties, as sent.
    properties: {
      order_id: order.orderId,
      order_value: order.orderValue,
      timestamp: order.occurredAt,
      ...order.properties,
    },
    kind: 'sale',
    sourceConversionId: null,
    // The campaign's rule; ORDER-1001 names a customer (by e-mail): its first payment.
    commissionRule: {
      source: 'campaign',
      commissionType: 'percent',
      commissionValue: 10,
      ...('customer_email' in order.properties && { recurring: 'lifetime', paymentNumber: 1 }),
    },
    flags: [],
    refundedAmount: 0,
    ...overrides,
  };
}

export function examplePayout(overrides: Record<string, unknown> = {}) {
  return {
    id: EXAMPLE_PAYOUT.id,
    affiliateId: EXAMPLE_ANA.id,
    affiliateName: EXAMPLE_ANA.name,
    affiliateEmail: EXAMPLE_ANA.email,
    payoutMethod: null,
    pixKeyType: null,
    payoutAccount: null,
    amount: EXAMPLE_PAYOUT.amount,
    commissionAmount: EXAMPLE_PAYOUT.amount,
    clawbackAmount: 0,
    currency: 'BRL',
    status: 'pending',
    conversionIds: [...EXAMPLE_PAYOUT.conversionIds],
    createdAt: WRITTEN,
    paidAt: null,
    failedAt: null,
    ...overrides,
  };
}

export function exampleWebhook(overrides: Record<string, unknown> = {}) {
  return {
    id: EXAMPLE_WEBHOOK.id,
    url: EXAMPLE_WEBHOOK.url,
    events: [...EXAMPLE_WEBHOOK.events],
    description: EXAMPLE_WEBHOOK.description,
    status: 'enabled',
    disabledReason: null,
    createdAt: WRITTEN,
    updatedAt: WRITTEN,
    ...overrides,
  };
}

/** A signing secret's form (each endpoint's own is random, shown once). */
export const EXAMPLE_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export function exampleDelivery(overrides: Record<string, unknown> = {}) {
  return {
    id: EXAMPLE_DELIVERY_ID,
    messageId: 'msg_2Xq7pR4kVb9nTm3Lw8Yd',
    eventType: 'conversion.approved',
    status: 'pending',
    attempts: [],
    nextAttemptAt: WRITTEN,
    createdAt: WRITTEN,
    ...overrides,
  };
}

export const EXAMPLE_TIMES = { written: WRITTEN, november: NOV };
