import { expect } from 'chai';
import { createMerchant, servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion, storedCounts } from '../helpers/events.js';
import { lifecycleApi } from '../helpers/lifecycleApi.js';

/** A payment of a customer at a moment (its `timestamp`): the window is measured on them. */
const payment = (
  campaign: string,
  code: string,
  orderId: string,
  customer: Record<string, unknown>,
  timestamp?: string,
) => {
  const event = conversion(campaign, code, orderId, 100);
  return { ...event, properties: { ...event.properties, ...customer, ...(timestamp && { timestamp }) } };
};

describe(`recurring limits: which of a customer's payments earn (${ENGINE})`, () => {
  const t = useTestDaemon();
  const { api } = lifecycleApi(
    () => t.url,
    () => t.merchant,
  );
  let code: string;

  beforeEach(async () => {
    ({ code } = await addAffiliate(t.db, t.merchant.campaignId));
  });

  const send = async (events: unknown[]) => {
    const reply = await api('POST', '/v1/events', { events });
    expect(reply.status, reply.text).to.equal(200);
    return reply.body as { accepted: number; skipped: { index: number; reason: string }[] };
  };
  const ruleOf = async (orderId: string) =>
    (await api('GET', `/v1/conversions?orderId=${orderId}`)).body.conversions[0]?.commissionRule;
  const setRecurring = (recurring: 'lifetime' | 'first' | { months: number }) =>
    servicesFor(t.db).campaigns.update(t.merchant.campaignId, { recurring });

  it('lifetime (the default): every payment earns, numbered per customer; no customer, no number', async () => {
    const pay = (orderId: string, customer: Record<string, unknown>) =>
      payment(t.merchant.publicId, code, orderId, customer);
    const answer = await send([
      pay('l-1', { customer_id: 'cus_1' }),
      pay('l-2', { customer_id: 'cus_1' }),
      pay('l-3', { customer_id: 'cus_2' }),
      pay('l-4', {}),
    ]);
    expect(answer).to.include({ accepted: 4 });
    await send([pay('l-5', { customer_id: 'cus_1' })]);
    expect(await ruleOf('l-2')).to.deep.equal({
      source: 'campaign',
      commissionType: 'percent',
      commissionValue: 10,
      recurring: 'lifetime',
      paymentNumber: 2,
    });
    expect((await ruleOf('l-3')).paymentNumber).to.equal(1);
    expect((await ruleOf('l-5')).paymentNumber).to.equal(3);
    expect(await ruleOf('l-4')).to.deep.equal({ source: 'campaign', commissionType: 'percent', commissionValue: 10 });
  });

  it('first: only the customer’s first payment earns; the others store nothing and are skipped every time', async () => {
    await setRecurring('first');
    const pay = (orderId: string) => payment(t.merchant.publicId, code, orderId, { customer_email: 'Maria@Shop.com' });
    // Two payments of a new customer in one request: the first in order is the first.
    const first = await send([pay('f-1'), pay('f-2')]);
    expect(first).to.deep.equal({
      success: true,
      received: 2,
      accepted: 1,
      skipped: [{ index: 1, reason: 'recurring_limit_reached' }],
    });
    // The e-mail is compared without regard to case or surrounding spaces.
    const later = await send([payment(t.merchant.publicId, code, 'f-3', { customer_email: ' maria@shop.com ' })]);
    expect(later.skipped).to.deep.equal([{ index: 0, reason: 'recurring_limit_reached' }]);
    expect(await storedCounts(t.db, t.merchant.campaignId)).to.deep.equal({ events: 1, conversions: 1, usage: 1 });
    // Nothing was stored for it, so sending it again is judged again, not a duplicate.
    expect((await send([pay('f-2')])).skipped).to.deep.equal([{ index: 0, reason: 'recurring_limit_reached' }]);
    expect(await ruleOf('f-1')).to.deep.include({ recurring: 'first', paymentNumber: 1 });
    // customer_id beats customer_email: a new id is a new customer.
    const byId = payment(t.merchant.publicId, code, 'f-4', { customer_id: 42, customer_email: 'maria@shop.com' });
    expect((await send([byId])).accepted).to.equal(1);
    // Another campaign's customers are its own.
    const other = await createMerchant(t.db);
    const theirs = await addAffiliate(t.db, other.campaignId);
    await servicesFor(t.db).campaigns.update(other.campaignId, { recurring: 'first' });
    const there = await api(
      'POST',
      '/v1/events',
      { events: [payment(other.publicId, theirs.code, 'f-1', { customer_email: 'maria@shop.com' })] },
      other.key,
    );
    expect(there.body.accepted).to.equal(1);
  });

  it('{ months: N }: calendar months from the first attributed payment, on the payments’ timestamps', async () => {
    await setRecurring({ months: 2 });
    const pay = (orderId: string, at: string) =>
      payment(t.merchant.publicId, code, orderId, { customer_id: 'sub_9' }, at);
    await send([pay('m-1', '2026-01-31T10:00:00Z')]);
    const answer = await send([
      pay('m-2', '2026-02-28T10:00:00Z'),
      pay('m-3', '2026-03-31T09:59:59.999Z'),
      // Two calendar months after January 31st, 10:00: the window has closed.
      pay('m-4', '2026-03-31T10:00:00Z'),
      pay('m-5', '2026-04-15T10:00:00Z'),
      // Out of order: a payment before the stored first one is inside the window.
      pay('m-6', '2026-01-15T10:00:00Z'),
    ]);
    expect(answer.accepted).to.equal(3);
    expect(answer.skipped).to.deep.equal([
      { index: 2, reason: 'recurring_limit_reached' },
      { index: 3, reason: 'recurring_limit_reached' },
    ]);
    expect(await ruleOf('m-3')).to.deep.include({ recurring: { months: 2 }, paymentNumber: 3 });
    expect((await ruleOf('m-6')).paymentNumber).to.equal(4);
  });

  it('the group’s limit beats the campaign’s; a rule change applies to payments to come, measured from the stored first', async () => {
    const group = await api('POST', '/v1/groups', {
      name: 'Subscriptions',
      commissionType: 'percent',
      commissionValue: 20,
      recurring: 'first',
    });
    const member = await addAffiliate(t.db, t.merchant.campaignId, { code: 'MEMBER' });
    await api('PATCH', `/v1/affiliates/${member.id}`, { groupId: group.body.id });
    const pay = (who: string, orderId: string) =>
      payment(t.merchant.publicId, who, orderId, { customer_id: `c-${who}` });
    expect((await send([pay('MEMBER', 'g-1'), pay('MEMBER', 'g-2')])).accepted).to.equal(1);
    // The campaign stays lifetime for everyone else.
    expect((await send([pay(code, 'g-3'), pay(code, 'g-4')])).accepted).to.equal(2);
    // The group takes the campaign's again: the member's customer earns again.
    await api('PATCH', `/v1/groups/${group.body.id}`, { recurring: null });
    expect((await send([pay('MEMBER', 'g-5')])).accepted).to.equal(1);
    expect(await ruleOf('g-5')).to.deep.include({ source: 'group', recurring: 'lifetime', paymentNumber: 2 });
  });
});
