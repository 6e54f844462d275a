import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import { createMerchant, servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { badRequest, conflict, lifecycleApi } from '../helpers/lifecycleApi.js';

interface Conversion {
  id: number;
  affiliateId: number;
  orderId: string;
  commission: number;
  status: string;
  kind: string;
  sourceConversionId: number | null;
  payoutId: number | null;
  commissionRule: Record<string, unknown>;
}

describe(`two tiers: parents, second-tier conversions and their lifecycle (${ENGINE})`, () => {
  const t = useTestDaemon();
  const { api, send, payout, settle, affiliate, refund, setStatus } = lifecycleApi(
    () => t.url,
    () => t.merchant,
  );
  let parent: { id: number; code: string };
  let child: { id: number; code: string };

  beforeEach(async () => {
    parent = await addAffiliate(t.db, t.merchant.campaignId, { code: 'PARENT' });
    child = await addAffiliate(t.db, t.merchant.campaignId, { code: 'CHILD' });
    expect((await api('PATCH', `/v1/affiliates/${child.id}`, { parentAffiliateId: parent.id })).status).to.equal(200);
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { secondTierPercent: 10 });
  });

  /** The sale and second-tier conversion of an order (the list holds both, same order id). */
  async function ofOrder(orderId: string): Promise<{ sale: Conversion; tier: Conversion | undefined }> {
    const found = await api('GET', `/v1/conversions?orderId=${encodeURIComponent(orderId)}`);
    const all = found.body.conversions as Conversion[];
    const sale = all.find((c) => c.kind === 'sale');
    if (!sale) throw new Error(`no sale for ${orderId}`);
    return { sale, tier: all.find((c) => c.kind === 'second_tier') };
  }

  describe('parentAffiliateId', () => {
    it('400 for a parent that starts a chain longer than the daemon follows (1,000): no cycle slips past', async function () {
      this.timeout(120_000);
      const chain: number[] = [];
      for (let i = 0; i <= 1000; i++) chain.push((await addAffiliate(t.db, t.merchant.campaignId)).id);
      // Each one's parent is the one before it: a chain 1,001 affiliates deep, chain[0] on top.
      for (let i = 1; i < chain.length; i++) {
        await t
          .db('affiliates')
          .where('id', chain[i])
          .update({ parent_affiliate_id: chain[i - 1] });
      }
      const top = chain[0] ?? 0;
      const bottom = chain[chain.length - 1] ?? 0;
      const closing = await api('PATCH', `/v1/affiliates/${top}`, { parentAffiliateId: bottom });
      expect(closing.body).to.deep.equal(badRequest([MESSAGES.parentChainTooDeep(1000)]));
      expect((await affiliate(top)).parentAffiliateId).to.equal(null);
    });

    it('400 for itself, another campaign’s affiliate, an unknown one, or a cycle of any length; nothing changed', async () => {
      const grand = await addAffiliate(t.db, t.merchant.campaignId);
      await api('PATCH', `/v1/affiliates/${parent.id}`, { parentAffiliateId: grand.id });
      const other = await createMerchant(t.db);
      const foreign = await addAffiliate(t.db, other.campaignId);
      const patch = (id: number, parentAffiliateId: number) =>
        api('PATCH', `/v1/affiliates/${id}`, { parentAffiliateId });
      expect((await patch(child.id, child.id)).body).to.deep.equal(badRequest([MESSAGES.parentIsSelf]));
      expect((await patch(child.id, foreign.id)).body).to.deep.equal(badRequest([MESSAGES.parentNotInCampaign]));
      expect((await patch(child.id, 4_000_000)).body).to.deep.equal(badRequest([MESSAGES.parentNotInCampaign]));
      // child → parent → grand: neither grand nor parent may be put below child.
      expect((await patch(grand.id, child.id)).body).to.deep.equal(
        badRequest([MESSAGES.parentCycle(grand.id, child.id)]),
      );
      expect((await patch(parent.id, child.id)).body).to.deep.equal(
        badRequest([MESSAGES.parentCycle(parent.id, child.id)]),
      );
      const create = await api('POST', '/v1/affiliates', {
        email: 'new@example.com',
        password: 'secret1',
        parentAffiliateId: foreign.id,
      });
      expect(create.body).to.deep.equal(badRequest([MESSAGES.parentNotInCampaign]));
      expect((await affiliate(grand.id)).parentAffiliateId).to.equal(null);
      expect((await affiliate(parent.id)).parentAffiliateId).to.equal(grand.id);
      expect((await affiliate(child.id)).parentAffiliateId).to.equal(parent.id);
      // Cleared with null; a new affiliate may name a parent at once.
      expect((await patch(parent.id, 0)).status).to.equal(400);
      expect((await api('PATCH', `/v1/affiliates/${parent.id}`, { parentAffiliateId: null })).body).to.include({
        parentAffiliateId: null,
      });
      const made = await api('POST', '/v1/affiliates', {
        email: 'kid@example.com',
        password: 'secret1',
        parentAffiliateId: child.id,
      });
      expect(made.body).to.include({ parentAffiliateId: child.id });
    });

    it('deleting the parent clears it from its children', async () => {
      await api('DELETE', `/v1/affiliates/${parent.id}`);
      expect((await affiliate(child.id)).parentAffiliateId).to.equal(null);
    });
  });

  describe('second-tier conversions', () => {
    it('the parent earns its percent of the child’s rounded commission, rounded once; counted in its money, not its conversions', async () => {
      // 10 % of 123.45 = 12.345 → 12.35 (the child's); 10 % of that = 1.235 → 1.24 (the parent's).
      await send(child.code, [['t-1', 123.45]]);
      const { sale, tier } = await ofOrder('t-1');
      expect(sale).to.include({ affiliateId: child.id, commission: 12.35, kind: 'sale', sourceConversionId: null });
      expect(tier).to.deep.include({
        affiliateId: parent.id,
        orderId: 't-1',
        commission: 1.24,
        status: 'pending',
        kind: 'second_tier',
        sourceConversionId: sale.id,
        commissionRule: { source: 'second_tier', commissionType: 'percent', commissionValue: 10 },
      });
      // The month's plan usage counts the sale only.
      const campaign = await api('GET', '/v1/campaign');
      expect(campaign.body.usage.conversions).to.equal(1);
      await api('PATCH', `/v1/conversions/${sale.id}`, { status: 'approved' });
      expect(await affiliate(parent.id)).to.include({ totalConversions: 0, totalCommissions: 1.24 });
      expect(await affiliate(child.id)).to.include({ totalConversions: 1, totalCommissions: 12.35 });
      // kind filters the list.
      const tiers = await api('GET', '/v1/conversions?kind=second_tier');
      expect(tiers.body.conversions.map((c: Conversion) => c.id)).to.deep.equal([tier?.id]);
    });

    it('the parent’s group percent beats the campaign’s; none when the parent is not active or the percent is 0', async () => {
      const group = await api('POST', '/v1/groups', {
        name: 'Recruiters',
        commissionType: 'percent',
        commissionValue: 10,
        secondTierPercent: 25,
      });
      await api('PATCH', `/v1/affiliates/${parent.id}`, { groupId: group.body.id });
      await send(child.code, [['g-1', 100]]);
      expect((await ofOrder('g-1')).tier).to.deep.include({
        commission: 2.5,
        commissionRule: {
          source: 'second_tier',
          groupId: group.body.id,
          commissionType: 'percent',
          commissionValue: 25,
        },
      });
      await api('PATCH', `/v1/groups/${group.body.id}`, { secondTierPercent: null });
      await send(child.code, [['g-2', 100]]);
      expect((await ofOrder('g-2')).tier).to.deep.include({ commission: 1 });
      await api('PATCH', `/v1/affiliates/${parent.id}`, { status: 'inactive' });
      await send(child.code, [['g-3', 100]]);
      expect((await ofOrder('g-3')).tier).to.equal(undefined);
      await api('PATCH', `/v1/affiliates/${parent.id}`, { status: 'active' });
      await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { secondTierPercent: 0 });
      await send(child.code, [['g-4', 100]]);
      expect((await ofOrder('g-4')).tier).to.equal(undefined);
    });

    it('follows its sale: approved and rejected with it, never moved by hand, refunds go to the sale', async () => {
      await send(child.code, [
        ['f-1', 100],
        ['f-2', 100],
      ]);
      const one = await ofOrder('f-1');
      const two = await ofOrder('f-2');
      const tierId = one.tier?.id ?? 0;
      expect((await setStatus(tierId, 'approved')).body).to.deep.equal(
        conflict(MESSAGES.secondTierConversion(tierId, one.sale.id)),
      );
      const bulk = await api('POST', '/v1/conversions/bulk', { status: 'approved', ids: [one.sale.id, tierId] });
      expect(bulk.body.results).to.deep.equal([
        { id: one.sale.id, outcome: 'updated', status: 'approved' },
        { id: tierId, outcome: 'unchanged', status: 'approved' },
      ]);
      expect((await ofOrder('f-1')).tier?.status).to.equal('approved');
      await setStatus(two.sale.id, 'rejected');
      expect((await ofOrder('f-2')).tier?.status).to.equal('rejected');
      // An approval of all pending sales takes their tiers along.
      await send(child.code, [['f-3', 100]]);
      await api('POST', '/v1/conversions/bulk', { status: 'approved', filter: { status: 'pending' } });
      expect((await ofOrder('f-3')).tier?.status).to.equal('approved');
      // POST /v1/refunds finds the sale, never the second-tier conversion of the same order id.
      const refunded = await refund('f-1');
      expect(refunded.body).to.include({ id: one.sale.id, status: 'rejected' });
      expect((await ofOrder('f-1')).tier?.status).to.equal('rejected');
    });

    it('through payouts: the parent is paid its tier; a refund of the child’s sale claws it back from the parent', async () => {
      await send(child.code, [
        ['p-1', 200],
        ['p-2', 300],
      ]);
      const one = await ofOrder('p-1');
      const two = await ofOrder('p-2');
      await api('POST', '/v1/conversions/bulk', { status: 'approved', ids: [one.sale.id, two.sale.id] });
      const parentPayout = await payout(parent.id);
      expect(parentPayout.body).to.include({ commissionAmount: 5, amount: 5 });
      expect(parentPayout.body.conversionIds).to.deep.equal([one.tier?.id, two.tier?.id]);
      await settle(parentPayout.body.id, 'paid');
      expect(await affiliate(parent.id)).to.include({ totalCommissions: 5, totalPaid: 5, totalConversions: 0 });
      // The child's sales are not in the parent's payout, and are still the child's to pay.
      expect((await payout(child.id)).body).to.include({ commissionAmount: 50 });

      // Half of p-2 comes back: the sale keeps 15 of 30, the parent's tier 1.50 of 3: 1.50 clawed back.
      expect((await api('POST', '/v1/refunds', { order_id: 'p-2', amount: 150 })).body).to.include({ commission: 15 });
      expect((await ofOrder('p-2')).tier).to.include({ commission: 1.5, status: 'paid' });
      // All of p-1: the tier is rejected, its 2.00 clawed back.
      await refund('p-1');
      expect((await ofOrder('p-1')).tier).to.include({ status: 'rejected' });
      const clawbacks = await t.db('clawbacks').where('affiliate_id', parent.id).orderBy('id').pluck('amount_cents');
      expect(clawbacks.map(Number)).to.deep.equal([150, 200]);
      // The parent's next payout nets them: 5 of new commissions less 3.50.
      await send(child.code, [['p-3', 500]]);
      const three = await ofOrder('p-3');
      await api('PATCH', `/v1/conversions/${three.sale.id}`, { status: 'approved' });
      expect((await payout(parent.id)).body).to.include({ commissionAmount: 5, clawbackAmount: 3.5, amount: 1.5 });
    });

    it('deleting the child keeps the parent’s second-tier conversions, no longer tied to a sale; the order id is free again', async () => {
      await send(child.code, [['d-1', 100]]);
      const { tier } = await ofOrder('d-1');
      await api('DELETE', `/v1/affiliates/${child.id}`);
      const kept = (await api('GET', `/v1/conversions/${tier?.id}`)).body;
      expect(kept).to.include({ affiliateId: parent.id, kind: 'second_tier', sourceConversionId: null });
      // On its own now, a person approves or rejects it.
      expect((await setStatus(kept.id, 'approved')).body.status).to.equal('approved');
      const again = await addAffiliate(t.db, t.merchant.campaignId, { code: 'CHILD2' });
      await api('PATCH', `/v1/affiliates/${again.id}`, { parentAffiliateId: parent.id });
      await send(again.code, [['d-1', 100]]);
      const tiers = await api('GET', '/v1/conversions?orderId=d-1&kind=second_tier');
      expect(tiers.body.total).to.equal(2);
    });
  });
});
