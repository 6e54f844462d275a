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

/** Ana's payout details in the world: a Pix key of the e-mail kind. */
export const EXAMPLE_ANA_PAYOUT = {
  payoutMethod: 'pix',
  pixKeyType: 'email',
  payoutAccount: 'ana@example.com',
} as const;

/** The payout rails the world connects (docs/payouts.md): credentials as the providers show them. */
export const EXAMPLE_RAILS = {
  pix: { apiKey: '$aact_prod_000MzkwODA2MWY2OGM3MWRlMDU2NWM3MzJlNzZmNGZhZGY6OjA', webhookToken: 'whk-8f1c2e0a9b7d' },
  paypal: {
    clientId: 'AaBbCcDdEeFf0123456789-paypal-client',
    clientSecret: 'EEeeFFff0123456789-paypal-secret',
    webhookToken: '8PT597110X687430LKGECATA',
  },
  stripe: { secretKey: 'sk_live_51QbX4pL7sT2mQ9wZ3kC5vY8nExample' },
} as const;

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
    ...EXAMPLE_ANA_PAYOUT,
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
    ...EXAMPLE_ANA_PAYOUT,
    amount: EXAMPLE_PAYOUT.amount,
    commissionAmount: EXAMPLE_PAYOUT.amount,
    clawbackAmount: 0,
    currency: 'BRL',
    status: 'pending',
    conversionIds: [...EXAMPLE_PAYOUT.conversionIds],
    createdAt: WRITTEN,
    paidAt: null,
    failedAt: null,
    rail: null,
    reference: null,
    receipt: null,
    failureReason: null,
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

/** Ana's coupon: a Stripe coupon id (or a Paddle discount id) that makes a payment hers. */
export const EXAMPLE_COUPON = { code: 'ANA10', createdAt: WRITTEN } as const;

/**
 * The world's billing integrations and their example signing secrets: a Stripe checkout that
 * started Bruno's subscription for customer `cus_RbX4p2mQ7tLw9z` bound that customer to him.
 */
export const EXAMPLE_BILLING = {
  stripeSecret: 'whsec_8bS2kT5vQw9RzLm4Xc7Hn1Jp3Fd6Gy0A',
  paddleSecret: 'pdl_ntfset_01jd7w3x2kq9m5v8r4t6y1z0ab_Qm7Tz2Lx9Vb4Nc8Hk1Rs5Wd3Fg6Jy0Pe',
  customer: 'cus_RbX4p2mQ7tLw9z',
  bindingEventId: 'evt_1QbX4pL7sT2mQ9wZ3kC5vY8n',
} as const;

/** The checkout that binds Bruno's customer (mode subscription: no payment counted by it). */
export const EXAMPLE_STRIPE_BINDING = {
  id: EXAMPLE_BILLING.bindingEventId,
  object: 'event',
  api_version: '2025-03-31.basil',
  created: 1764000000,
  livemode: false,
  type: 'checkout.session.completed',
  data: {
    object: {
      id: 'cs_test_a1B2c3D4e5F6g7H8i9J0',
      object: 'checkout.session',
      mode: 'subscription',
      payment_status: 'paid',
      status: 'complete',
      client_reference_id: EXAMPLE_BRUNO.referralId,
      customer: EXAMPLE_BILLING.customer,
      subscription: 'sub_1QbX4pL7sT2mQ9wZ',
      amount_total: 4990,
      currency: 'brl',
      metadata: {},
    },
  },
} as const;

/** The first invoice of that subscription: it counts for Bruno, through the bound customer. */
export const EXAMPLE_STRIPE_EVENT = {
  id: 'evt_1QbX5qM8tU3nR0xA4lD6wZ9o',
  object: 'event',
  api_version: '2025-03-31.basil',
  created: 1764000060,
  livemode: false,
  type: 'invoice.paid',
  data: {
    object: {
      id: 'in_1QbX5qM8tU3nR0xA',
      object: 'invoice',
      customer: EXAMPLE_BILLING.customer,
      amount_paid: 4990,
      currency: 'brl',
      billing_reason: 'subscription_create',
      total_taxes: [],
      parent: {
        type: 'subscription_details',
        subscription_details: { subscription: 'sub_1QbX4pL7sT2mQ9wZ', metadata: {} },
      },
    },
  },
} as const;

/** A Paddle transaction that names Ana in `custom_data`. */
export const EXAMPLE_PADDLE_EVENT = {
  event_id: 'evt_01jd7x4y3lr0n6w9s5u7z2a1bc',
  event_type: 'transaction.completed',
  occurred_at: '2026-11-20T14:03:00.000Z',
  notification_id: 'ntf_01jd7x4y5mt1p7x0t6v8a3b2cd',
  data: {
    id: 'txn_01jd7x3w2kq9m5v8r4t6y1z0ab',
    status: 'completed',
    origin: 'web',
    customer_id: 'ctm_01jd7x1v0jp8l4u7q3s5x0y9za',
    currency_code: 'BRL',
    custom_data: { affiliated_ref: EXAMPLE_ANA.referralId },
    discount_id: null,
    details: { totals: { subtotal: '9900', tax: '0', total: '9900', currency_code: 'BRL' } },
  },
} as const;

export function exampleIntegration(overrides: Record<string, unknown> = {}) {
  return {
    provider: 'stripe',
    receivePath: `/v1/integrations/stripe/${EXAMPLE_CAMPAIGN.publicId}`,
    eventTypes: [
      'checkout.session.completed',
      'checkout.session.async_payment_succeeded',
      'invoice.paid',
      'charge.refunded',
    ],
    createdAt: WRITTEN,
    updatedAt: WRITTEN,
    previousSecretExpiresAt: null,
    lastEventAt: WRITTEN,
    outcomes: { customer_bound: 1 },
    ...overrides,
  };
}

export function exampleIntegrationEvent(overrides: Record<string, unknown> = {}) {
  return {
    id: 1,
    provider: 'stripe',
    eventId: EXAMPLE_BILLING.bindingEventId,
    type: 'checkout.session.completed',
    receivedAt: WRITTEN,
    outcome: 'customer_bound',
    reason: null,
    conversionId: null,
    orderId: null,
    livemode: false,
    ...overrides,
  };
}
