import { expect } from 'chai';
import { servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { eventFrom, objectOf, PADDLE_SECRET, sendEvent, STRIPE_SECRET } from '../helpers/billing.js';

type Json = Record<string, any>;

/** What Stripe writes in a line's `description`: for people, never the product's name alone. */
const DESCRIPTION = '1 × Plano Pro (at R$ 49.90 / month)';

describe(`billing integrations: product rules match the provider's product (${ENGINE})`, function () {
  this.timeout(60_000);
  const t = useTestDaemon();
  const api = (method: string, path: string, body?: unknown) =>
    call(t.url, method, path, { key: t.merchant.key, body });
  const send = async (provider: 'stripe' | 'paddle', event: Json) => {
    const res = await sendEvent(t.url, provider, t.merchant.publicId, event);
    expect(res.body.outcome, res.text).to.equal('conversion_created');
  };
  const conversion = async (orderId: string) => {
    const all = (await api('GET', '/v1/conversions?limit=100')).body.conversions as Json[];
    return all.find((c) => c.orderId === orderId);
  };
  const rule = (product: string, commissionValue: number) => ({
    product,
    commissionType: 'percent' as const,
    commissionValue,
  });
  /** The first line of an invoice event, to change before sending. */
  const lineOf = (event: Json) => (objectOf(event) as Json).lines.data[0] as Json;

  beforeEach(async () => {
    expect((await api('PUT', '/v1/integrations/stripe', { signingSecret: STRIPE_SECRET })).status).to.equal(200);
    expect((await api('PUT', '/v1/integrations/paddle', { signingSecret: PADDLE_SECRET })).status).to.equal(200);
    await addAffiliate(t.db, t.merchant.campaignId, { code: 'MARIA10' });
  });

  it("a Stripe invoice earns its product's rate by the product id, in the basil and 2024-06-20 layouts", async () => {
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { products: [rule('prod_RzPro0001', 20)] });
    const basil = eventFrom('stripe-invoice-paid-basil');
    lineOf(basil).description = DESCRIPTION;
    const legacy = eventFrom('stripe-invoice-paid-2024-06-20');
    lineOf(legacy).description = DESCRIPTION;
    await send('stripe', basil);
    await send('stripe', legacy);
    for (const orderId of ['in_1QcD5dLkdIwHu7ixBasil001', 'in_1QcC4cLkdIwHu7ixLegacy01']) {
      const sale = await conversion(orderId);
      // 20 % of 49.90, not the campaign's 10 %.
      expect(sale, orderId).to.deep.include({ orderValue: 49.9, commission: 9.98 });
      expect(sale?.commissionRule, orderId).to.include({ source: 'product', commissionValue: 20 });
    }
  });

  it('a Stripe invoice whose product arrives expanded matches the rule by its name too', async () => {
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { products: [rule('Plano Pro', 30)] });
    const event = eventFrom('stripe-invoice-paid-2024-06-20');
    lineOf(event).description = DESCRIPTION;
    lineOf(event).price.product = { id: 'prod_RzPro0001', object: 'product', name: 'Plano Pro' };
    await send('stripe', event);
    const sale = await conversion('in_1QcC4cLkdIwHu7ixLegacy01');
    expect(sale).to.deep.include({ commission: 14.97 });
    expect(sale?.properties).to.include({ product: 'Plano Pro', product_id: 'prod_RzPro0001' });
    expect(sale?.commissionRule).to.include({ source: 'product', commissionValue: 30 });
  });

  it('a line description that names a rule is not the product: the campaign rate applies', async () => {
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { products: [rule(DESCRIPTION, 50)] });
    const event = eventFrom('stripe-invoice-paid-basil');
    lineOf(event).description = DESCRIPTION;
    await send('stripe', event);
    const sale = await conversion('in_1QcD5dLkdIwHu7ixBasil001');
    expect(sale).to.deep.include({ commission: 4.99 });
    expect(sale?.commissionRule).to.include({ source: 'campaign' });
  });

  it("a Paddle transaction earns a group's product rate by the product id, and by its name", async () => {
    const byId = await api('POST', '/v1/groups', {
      name: 'By id',
      commissionType: 'percent',
      commissionValue: 5,
      products: [rule('pro_01jd7zy0a1b2c3d4e5f6g7h8j9', 20)],
    });
    expect(byId.status, byId.text).to.equal(201);
    const maria = await addAffiliate(t.db, t.merchant.campaignId, { code: 'BRUNO7' });
    await api('PATCH', `/v1/affiliates/${maria.id}`, { groupId: byId.body.id });
    const first = eventFrom('paddle-transaction-completed', {
      id: 'txn_products_by_id',
      custom_data: { affiliated_ref: 'BRUNO7' },
    });
    await send('paddle', first);
    expect(await conversion('txn_products_by_id')).to.deep.include({ orderValue: 49.9, commission: 9.98 });

    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { products: [rule('Pro', 40)] });
    await send('paddle', eventFrom('paddle-transaction-completed', { id: 'txn_products_by_name' }));
    expect(await conversion('txn_products_by_name')).to.deep.include({ commission: 19.96 });
  });
});
