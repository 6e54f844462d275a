import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { badRequest, conflict, lifecycleApi } from '../helpers/lifecycleApi.js';
import { Receiver } from '../helpers/receiver.js';

describe(`partial refunds (${ENGINE})`, () => {
  const t = useTestDaemon({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '50' });
  const { api, arrive, refund, payout, settle, affiliate, approve } = lifecycleApi(
    () => t.url,
    () => t.merchant,
  );
  let code: string;
  let affiliateId: number;

  beforeEach(async () => {
    ({ code, id: affiliateId } = await addAffiliate(t.db, t.merchant.campaignId));
  });

  const partial = (orderId: string, amount: number, extra: Record<string, unknown> = {}) =>
    api('POST', '/v1/refunds', { order_id: orderId, amount, ...extra });
  const refundsOf = (conversionId: number) =>
    t
      .db('refunds')
      .where('conversion_id', conversionId)
      .orderBy('id')
      .select('amount_cents', 'commission_removed_cents');

  it('lowers the commission to the rounded share of what is left of the order, refund after refund', async () => {
    // 10 % of 199.90 = 19.99.
    const [id] = await arrive(code, [['r-1', 199.9]]);
    const first = await partial('r-1', 50, { reason: 'one item back' });
    expect(first.status, first.text).to.equal(200);
    // 19.99 × 149.90 / 199.90 = 14.99.
    expect(first.body).to.include({
      id,
      status: 'pending',
      commission: 14.99,
      refundedAmount: 50,
      refundReason: 'one item back',
    });
    expect(first.body.refundedAt).to.be.a('string');
    // 19.99 × 49.95 / 199.90 = 4.995 → 5.00 (half up, from the intake's commission, never from 14.99).
    expect((await partial('r-1', 99.95)).body).to.include({ commission: 5, refundedAmount: 149.95 });
    // What is left, 49.95, refunded without an amount: the whole order is gone.
    const rest = await refund('r-1');
    expect(rest.body).to.include({ status: 'rejected', commission: 5, refundedAmount: 199.9 });
    expect(
      (await refundsOf(id ?? 0)).map((r) => [Number(r.amount_cents), Number(r.commission_removed_cents)]),
    ).to.deep.equal([
      [5000, 500],
      [9995, 999],
      [4995, 500],
    ]);
    // Refunding a rejected order changes nothing, whatever the amount.
    expect((await partial('r-1', 1)).body).to.include({ status: 'rejected', refundedAmount: 199.9 });
    expect(await refundsOf(id ?? 0)).to.have.length(3);
  });

  it('an amount equal to what is left is the full refund; past it 409, past the order’s value 400; nothing changed', async () => {
    await arrive(code, [
      ['o-1', 100],
      ['o-2', 100],
    ]);
    await partial('o-1', 60);
    expect((await partial('o-1', 40.01)).body).to.deep.equal(
      conflict(MESSAGES.refundOverRemaining('40.01', '40.00', 'o-1')),
    );
    expect((await partial('o-1', 100.01)).body).to.deep.equal(badRequest([MESSAGES.refundOverOrder('100.00')]));
    // One round: the amount's rule with the body's other failures.
    expect((await api('POST', '/v1/refunds', { order_id: 'o-1', amount: 500, reason: '' })).body).to.deep.equal(
      badRequest(['reason must be at least 1 characters long', MESSAGES.refundOverOrder('100.00')]),
    );
    expect((await partial('o-1', 0)).status).to.equal(400);
    expect((await partial('o-1', 40)).body).to.include({ status: 'rejected', refundedAmount: 100 });
    expect((await partial('o-2', 100)).body).to.include({ status: 'rejected', commission: 10, refundedAmount: 100 });
    expect((await partial('nope', 1)).status).to.equal(404);
  });

  it('a refund_id makes a retry change nothing; without one, the same request is a new refund', async () => {
    const [id] = await arrive(code, [['k-1', 100]]);
    const once = await partial('k-1', 10, { refund_id: 're_1' });
    const twice = await partial('k-1', 10, { refund_id: 're_1' });
    expect(twice.status).to.equal(200);
    expect(twice.body).to.deep.equal(once.body);
    expect(once.body).to.include({ commission: 9, refundedAmount: 10 });
    // Byte for byte: another case is another id.
    expect((await partial('k-1', 10, { refund_id: 'RE_1' })).body).to.include({ refundedAmount: 20 });
    expect((await partial('k-1', 10)).body).to.include({ refundedAmount: 30 });
    expect((await partial('k-1', 10)).body).to.include({ refundedAmount: 40, commission: 6 });
    expect(await refundsOf(id ?? 0)).to.have.length(4);
  });

  it('a retried refund_id changes nothing even when it is more than what its first try left', async () => {
    await arrive(code, [['k-2', 100]]);
    const once = await partial('k-2', 60, { refund_id: 're_60' });
    expect(once.body).to.include({ refundedAmount: 60 });
    // The answer was lost; the client sends the same body again: 60 is more than the 40 left.
    const again = await partial('k-2', 60, { refund_id: 're_60' });
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(once.body);
  });

  it('claws back what a refund takes off a commission in a payout; the next payout nets it', async () => {
    const [a, b] = await arrive(code, [
      ['c-1', 300],
      ['c-2', 500],
    ]);
    await approve(a ?? 0);
    const first = await payout(affiliateId);
    await settle(first.body.id, 'paid');
    // 30.00 paid; a third of the order back: 10.00 of it is owed back.
    expect((await partial('c-1', 100)).body).to.include({ status: 'paid', commission: 20 });
    // Then the rest: 20.00 more.
    expect((await refund('c-1')).body).to.include({ status: 'rejected' });
    const clawbacks = await t.db('clawbacks').where('affiliate_id', affiliateId).orderBy('id').pluck('amount_cents');
    expect(clawbacks.map(Number)).to.deep.equal([1000, 2000]);
    await approve(b ?? 0);
    expect((await payout(affiliateId)).body).to.include({ commissionAmount: 50, clawbackAmount: 30, amount: 20 });
    expect(await affiliate(affiliateId)).to.include({ totalCommissions: 50, totalPaid: 30 });
  });

  it('webhooks: conversion.refunded for every refund, conversion.rejected too for the last, with the new fields', async () => {
    const receiver = await new Receiver().start();
    try {
      const hook = await api('POST', '/v1/webhooks', {
        url: receiver.url,
        events: ['conversion.refunded', 'conversion.rejected'],
      });
      expect(hook.status, hook.text).to.equal(201);
      await arrive(code, [['w-1', 100]]);
      await partial('w-1', 30);
      await refund('w-1');
      await receiver.waitFor(3);
      const bodies = receiver.payloads();
      expect(bodies.map((body) => body.type).sort()).to.deep.equal([
        'conversion.refunded',
        'conversion.refunded',
        'conversion.rejected',
      ]);
      const partly = bodies.find((body) => body.data.refundedAmount === 30);
      expect(partly?.data).to.include({ orderId: 'w-1', commission: 7, status: 'pending', kind: 'sale' });
      expect(partly?.data.commissionRule).to.deep.equal({
        source: 'campaign',
        commissionType: 'percent',
        commissionValue: 10,
      });
    } finally {
      await receiver.stop();
    }
  });
});
