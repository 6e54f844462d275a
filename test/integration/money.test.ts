import { expect } from 'chai';
import { createMerchant, type Merchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { lifecycleApi } from '../helpers/lifecycleApi.js';

/**
 * Thousands of awkward amounts through the whole cycle, on each engine: every total the API
 * shows must equal the sum of the centavos computed here independently, in exact decimal
 * arithmetic on the amounts as written.
 */
describe(`money is exact to the centavo (${ENGINE})`, () => {
  const t = useTestDaemon();
  let shop: Merchant;
  const { api, send } = lifecycleApi(
    () => t.url,
    () => shop,
  );

  // 12.5 %: half a centavo comes up often.
  beforeEach(async () => {
    shop = await createMerchant(t.db, { commission: { type: 'percent', value: 12.5 } });
  });

  /** Order values as thousandths of a real, so the decimal text is known exactly: `k / 1000`. */
  function awkwardThousandths(count: number): number[] {
    const special = [5, 15, 285, 1005, 1045, 8345, 10_005, 99_995, 123_456_785, 9_999_999_995, 10_000_000_000_000];
    const values = [...special];
    for (let i = 0; values.length < count; i++) {
      // Mostly values ending in 5 thousandths (a half centavo), of every size.
      const base = (((i * 7_919 + 13) % 1_000_000) + 1) * (i % 3 === 0 ? 1000 : 1);
      values.push(base * 10 + (i % 4 === 0 ? 3 : 5));
    }
    return values;
  }
  /** Half up on the decimal: k thousandths → centavos. */
  const centsOf = (thousandths: number) => (BigInt(thousandths) + 5n) / 10n;
  /** 12.5 % of the centavos, half up. */
  const commissionOf = (cents: bigint) => (cents * 1250n + 5000n) / 10000n;
  const money = (cents: bigint) => Number(cents) / 100;

  it('3,000 conversions, approvals, refunds before and after payment, payouts: every total adds up', async () => {
    const affiliates = [
      await addAffiliate(t.db, shop.campaignId),
      await addAffiliate(t.db, shop.campaignId),
      await addAffiliate(t.db, shop.campaignId),
    ];
    const orders = awkwardThousandths(3000).map((k, i) => ({
      orderId: `m-${i}`,
      value: k / 1000,
      cents: centsOf(k),
      commission: commissionOf(centsOf(k)),
      affiliate: affiliates[i % 3] ?? affiliates[0],
      refundedBefore: i % 7 === 3,
      refundedAfter: i % 11 === 5 && i % 7 !== 3,
    }));
    for (const affiliate of affiliates) {
      const own = orders.filter((o) => o.affiliate === affiliate);
      await send(
        affiliate?.code ?? '',
        own.map((o) => [o.orderId, o.value] as const),
      );
    }

    // Every stored value is what exact decimal arithmetic says (30 pages of 100).
    const seen = new Map<string, { orderValue: number; commission: number }>();
    for (let page = 1; ; page++) {
      const reply = await api('GET', `/v1/conversions?limit=100&page=${page}`);
      for (const c of reply.body.conversions) seen.set(c.orderId, c);
      if (page >= reply.body.totalPages) break;
    }
    expect(seen.size).to.equal(3000);
    for (const o of orders) {
      expect(seen.get(o.orderId), o.orderId).to.deep.include({
        orderValue: money(o.cents),
        commission: money(o.commission),
      });
    }

    // Approve all: three requests of 1,000.
    let remaining = 1;
    while (remaining > 0) {
      const reply = await api('POST', '/v1/conversions/bulk', { status: 'approved', filter: { status: 'pending' } });
      remaining = reply.body.remaining;
    }
    for (const o of orders.filter((o) => o.refundedBefore))
      expect((await api('POST', '/v1/refunds', { order_id: o.orderId })).status).to.equal(200);

    const payouts = await api('POST', '/v1/payouts/bulk', {});
    expect(payouts.body.skipped).to.deep.equal([]);
    for (const affiliate of affiliates) {
      const own = orders.filter((o) => o.affiliate === affiliate && !o.refundedBefore);
      const made = payouts.body.created.find((p: { affiliateId: number }) => p.affiliateId === affiliate?.id);
      expect(made.amount).to.equal(money(own.reduce((sum, o) => sum + o.commission, 0n)));
      expect(made.conversionIds).to.have.length(own.length);
      expect((await api('PATCH', `/v1/payouts/${made.id}`, { status: 'paid' })).status).to.equal(200);
    }
    for (const o of orders.filter((o) => o.refundedAfter)) await api('POST', '/v1/refunds', { order_id: o.orderId });

    const list = await api('GET', '/v1/affiliates?limit=100');
    for (const affiliate of affiliates) {
      const own = orders.filter((o) => o.affiliate === affiliate);
      const kept = own.filter((o) => !o.refundedBefore && !o.refundedAfter);
      const paid = own.filter((o) => !o.refundedBefore);
      const expected = {
        totalConversions: own.length,
        totalCommissions: money(kept.reduce((sum, o) => sum + o.commission, 0n)),
        totalPaid: money(paid.reduce((sum, o) => sum + o.commission, 0n)),
      };
      const got = (await api('GET', `/v1/affiliates/${affiliate?.id}`)).body;
      expect(got, `affiliate ${affiliate?.id}`).to.include(expected);
      expect(list.body.affiliates.find((a: { id: number }) => a.id === affiliate?.id)).to.include(expected);

      // The clawbacks of the refunds after payment net off the next payout, exactly.
      const clawed = own.filter((o) => o.refundedAfter).reduce((sum, o) => sum + o.commission, 0n);
      const extra = 10_000_000n + clawed * 8n; // 12.5 % of it covers the clawbacks
      const orderId = `extra-${affiliate?.id}`;
      await send(affiliate?.code ?? '', [[orderId, Number(extra) / 100]]);
      await api('POST', '/v1/conversions/bulk', { status: 'approved', filter: { status: 'pending' } });
      const next = await api('POST', '/v1/payouts', { affiliateId: affiliate?.id });
      expect(next.body).to.include({
        commissionAmount: money(commissionOf(extra)),
        clawbackAmount: money(clawed),
        amount: money(commissionOf(extra) - clawed),
      });
    }
  });
});
