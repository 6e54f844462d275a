import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import { createMerchant, servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { badRequest, conflict, lifecycleApi, notFound } from '../helpers/lifecycleApi.js';

const NOT_FOUND = notFound('Payout not found');

describe(`payouts API: create, settle, clawbacks, totals (${ENGINE})`, () => {
  const t = useTestDaemon();
  const { api, arrive, setStatus, refund, payout, settle, affiliate, approve } = lifecycleApi(
    () => t.url,
    () => t.merchant,
  );
  let code: string;
  let affiliateId: number;

  beforeEach(async () => {
    ({ code, id: affiliateId } = await addAffiliate(t.db, t.merchant.campaignId));
  });

  const conversionOf = async (id: number) => (await api('GET', `/v1/conversions/${id}`)).body;

  describe('POST /v1/payouts', () => {
    it('201: every approved conversion of the affiliate in no payout, summed to the centavo', async () => {
      const [a, b, pending, rejected] = await arrive(code, [
        ['a', 100.05],
        ['b', 0.15],
        ['c', 50],
        ['d', 70],
      ]);
      await approve(a ?? 0, b ?? 0);
      await setStatus(rejected ?? 0, 'rejected');
      const reply = await payout(affiliateId);
      expect(reply.status).to.equal(201);
      // 10 % of 10,005 centavos is 1,000.5 → 1,001; of 15 is 1.5 → 2.
      expect(reply.body).to.deep.include({
        affiliateId,
        affiliateName: null,
        amount: 10.03,
        commissionAmount: 10.03,
        clawbackAmount: 0,
        currency: 'BRL',
        status: 'pending',
        conversionIds: [a, b],
        paidAt: null,
        failedAt: null,
      });
      expect(reply.body.affiliateEmail).to.match(/@example\.com$/);
      expect((await conversionOf(a ?? 0)).payoutId).to.equal(reply.body.id);
      expect((await conversionOf(pending ?? 0)).payoutId).to.equal(null);
      expect((await api('GET', `/v1/payouts/${reply.body.id}`)).body).to.deep.equal(reply.body);
    });

    it('409 when there is nothing to pay; 404 for an unknown affiliate or another campaign’s', async () => {
      await arrive(code, [['p', 10]]);
      expect((await payout(affiliateId)).body).to.deep.equal(conflict(MESSAGES.nothingToPay(affiliateId)));
      expect((await payout(999999)).body).to.deep.equal(notFound('Affiliate not found'));
      const other = await createMerchant(t.db);
      const theirs = await addAffiliate(t.db, other.campaignId);
      expect((await payout(theirs.id)).body).to.deep.equal(notFound('Affiliate not found'));
      expect((await api('POST', '/v1/payouts', { affiliateId: 'x' })).body).to.deep.equal(
        badRequest(['affiliateId must be a number']),
      );
      expect(await t.db('payouts').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    });

    it('409 below the campaign’s payout minimum; the same commissions pay once the minimum is met', async () => {
      await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { payoutMinimum: 50 });
      const [a, b] = await arrive(code, [
        ['a', 300],
        ['b', 200],
      ]);
      await approve(a ?? 0);
      expect((await payout(affiliateId)).body).to.deep.equal(conflict(MESSAGES.belowPayoutMinimum('30.00', '50.00')));
      expect((await conversionOf(a ?? 0)).payoutId).to.equal(null);
      await approve(b ?? 0);
      const made = await payout(affiliateId);
      expect(made.status).to.equal(201);
      expect(made.body.amount).to.equal(50);
      expect((await api('GET', '/v1/campaign')).body).to.include({ payoutMinimum: 50, autoApproveDays: null });
    });
  });

  describe('PATCH /v1/payouts/{id}: pending → paid | failed', () => {
    let ids: number[];
    let payoutId: number;
    beforeEach(async () => {
      ids = await arrive(code, [
        ['x', 123.45],
        ['y', 10],
      ]);
      await approve(...ids);
      payoutId = (await payout(affiliateId)).body.id;
    });

    it('paid: conversions become paid, paidAt is set, totalPaid grows; again is a 200 that changes nothing', async () => {
      expect(await affiliate(affiliateId)).to.include({ totalConversions: 2, totalCommissions: 13.35, totalPaid: 0 });
      const paid = await settle(payoutId, 'paid');
      expect(paid.status).to.equal(200);
      expect(paid.body).to.include({ status: 'paid', amount: 13.35, failedAt: null });
      expect(new Date(paid.body.paidAt).toISOString()).to.equal(paid.body.paidAt);
      for (const id of ids) expect(await conversionOf(id)).to.include({ status: 'paid', payoutId });
      expect(await affiliate(affiliateId)).to.include({
        totalConversions: 2,
        totalCommissions: 13.35,
        totalPaid: 13.35,
      });
      const again = await settle(payoutId, 'paid');
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(paid.body);
      expect((await settle(payoutId, 'failed')).body).to.deep.equal(conflict('Payout cannot move from paid to failed'));
    });

    it('failed: conversions are released for a later payout; failed → paid is 409', async () => {
      const failed = await settle(payoutId, 'failed');
      expect(failed.body).to.include({ status: 'failed', paidAt: null, amount: 13.35 });
      expect(failed.body.conversionIds).to.deep.equal(ids);
      for (const id of ids) expect(await conversionOf(id)).to.include({ status: 'approved', payoutId: null });
      expect((await settle(payoutId, 'failed')).status).to.equal(200);
      expect((await settle(payoutId, 'paid')).body).to.deep.equal(conflict('Payout cannot move from failed to paid'));
      const next = await payout(affiliateId);
      expect(next.body).to.include({ amount: 13.35 });
      expect(next.body.conversionIds).to.deep.equal(ids);
      expect(await affiliate(affiliateId)).to.include({ totalPaid: 0 });
    });

    it('400 for another status or field; 404 for an unknown payout or another campaign’s', async () => {
      expect((await api('PATCH', `/v1/payouts/${payoutId}`, { status: 'pending' })).body).to.deep.equal(
        badRequest(['status must be one of the following values: paid, failed']),
      );
      expect((await api('PATCH', `/v1/payouts/${payoutId}`, { status: 'paid', amount: 1 })).status).to.equal(400);
      expect((await api('PATCH', '/v1/payouts/abc', { status: 'paid' })).body).to.deep.equal(
        badRequest(MESSAGES.numericId),
      );
      expect((await settle(987654, 'paid')).body).to.deep.equal(NOT_FOUND);
      expect((await api('GET', '/v1/payouts/987654')).body).to.deep.equal(NOT_FOUND);
      const other = await createMerchant(t.db);
      expect((await api('GET', `/v1/payouts/${payoutId}`, undefined, other.key)).body).to.deep.equal(NOT_FOUND);
      expect((await api('PATCH', `/v1/payouts/${payoutId}`, { status: 'paid' }, other.key)).status).to.equal(404);
      expect((await api('GET', `/v1/payouts/${payoutId}`)).body.status).to.equal('pending');
    });
  });

  describe('clawbacks', () => {
    it('are netted off the next payout; larger than what is approved they carry forward whole', async () => {
      const [big, small, more] = await arrive(code, [
        ['big', 1000],
        ['small', 30],
        ['more', 2000],
      ]);
      await approve(big ?? 0);
      await settle((await payout(affiliateId)).body.id, 'paid');
      await refund('big');
      expect(await affiliate(affiliateId)).to.include({ totalCommissions: 0, totalPaid: 100 });

      await approve(small ?? 0);
      expect((await payout(affiliateId)).body).to.deep.equal(conflict(MESSAGES.clawbacksCoverPayout('3.00', '100.00')));
      await approve(more ?? 0);
      const netted = await payout(affiliateId);
      expect(netted.body).to.include({ commissionAmount: 203, clawbackAmount: 100, amount: 103 });
      expect(netted.body.conversionIds).to.deep.equal([small, more]);

      // The payout that nets it fails: the clawback is unsettled again, and the next payout nets it.
      await settle(netted.body.id, 'failed');
      const retried = await payout(affiliateId);
      expect(retried.body).to.include({ commissionAmount: 203, clawbackAmount: 100, amount: 103 });
      await settle(retried.body.id, 'paid');
      // Settled: it is never netted again. totalPaid is the sum of paid payouts and never falls.
      const [last] = await arrive(code, [['last', 10]]);
      await approve(last ?? 0);
      expect((await payout(affiliateId)).body).to.include({ clawbackAmount: 0, amount: 1 });
      expect(await affiliate(affiliateId)).to.include({ totalCommissions: 204, totalPaid: 203 });
    });

    it('a refund inside a pending payout: rejected, payout unchanged, clawed back only once that payout is paid', async () => {
      const [inside, kept, later] = await arrive(code, [
        ['inside', 400],
        ['kept', 100],
        ['later', 900],
      ]);
      await approve(inside ?? 0, kept ?? 0);
      const held = await payout(affiliateId);
      const refunded = await refund('inside');
      expect(refunded.body).to.include({ status: 'rejected', payoutId: held.body.id });
      expect((await api('GET', `/v1/payouts/${held.body.id}`)).body).to.deep.equal(held.body);

      // Its payout is not paid yet, so nothing is owed yet: a payout made now nets nothing.
      await approve(later ?? 0);
      const meanwhile = await payout(affiliateId);
      expect(meanwhile.body).to.include({ amount: 90, clawbackAmount: 0 });
      await settle(meanwhile.body.id, 'failed');

      const paid = await settle(held.body.id, 'paid');
      expect(paid.body.amount).to.equal(50);
      expect(await conversionOf(inside ?? 0)).to.include({ status: 'rejected' });
      expect(await conversionOf(kept ?? 0)).to.include({ status: 'paid' });
      const next = await payout(affiliateId);
      expect(next.body).to.include({ commissionAmount: 90, clawbackAmount: 40, amount: 50 });
    });

    it('a refund inside a payout that then fails is owed by nobody: the money never went out', async () => {
      const [inside, other] = await arrive(code, [
        ['inside', 400],
        ['other', 600],
      ]);
      await approve(inside ?? 0);
      const held = await payout(affiliateId);
      await refund('inside');
      await settle(held.body.id, 'failed');
      expect(await conversionOf(inside ?? 0)).to.include({ status: 'rejected', payoutId: null });
      await approve(other ?? 0);
      expect((await payout(affiliateId)).body).to.include({ amount: 60, clawbackAmount: 0 });
    });
  });

  describe('GET /v1/payouts and POST /v1/payouts/bulk', () => {
    it('pays every affiliate with something approved, skipping the rest with the reason', async () => {
      const second = await addAffiliate(t.db, t.merchant.campaignId);
      const third = await addAffiliate(t.db, t.merchant.campaignId);
      const [a] = await arrive(code, [['a', 10]]);
      const [b] = await arrive(second.code, [['b', 20]]);
      await arrive(third.code, [['c', 30]]);
      await approve(a ?? 0, b ?? 0);
      const all = await api('POST', '/v1/payouts/bulk', {});
      expect(all.status).to.equal(200);
      expect(
        all.body.created.map((p: { affiliateId: number; amount: number }) => [p.affiliateId, p.amount]),
      ).to.deep.equal([
        [affiliateId, 1],
        [second.id, 2],
      ]);
      expect(all.body.skipped).to.deep.equal([]);
      const named = await api('POST', '/v1/payouts/bulk', { affiliateIds: [third.id, 424242] });
      expect(named.body).to.deep.equal({
        created: [],
        skipped: [
          { affiliateId: third.id, statusCode: 409, message: MESSAGES.nothingToPay(third.id) },
          { affiliateId: 424242, statusCode: 404, message: 'Affiliate not found' },
        ],
      });

      const list = await api('GET', '/v1/payouts');
      expect(list.body).to.include({ total: 2, page: 1, limit: 50, totalPages: 1 });
      expect(list.body.payouts.map((p: { affiliateId: number }) => p.affiliateId)).to.deep.equal([
        second.id,
        affiliateId,
      ]);
      await settle(list.body.payouts[0].id, 'paid');
      const pending = await api('GET', `/v1/payouts?status=pending&affiliateId=${affiliateId}`);
      expect(pending.body.payouts.map((p: { id: number }) => p.id)).to.deep.equal([list.body.payouts[1].id]);
      expect((await api('GET', '/v1/payouts?status=paid')).body.total).to.equal(1);
      expect((await api('GET', '/v1/payouts?status=sent')).status).to.equal(400);
      const other = await createMerchant(t.db);
      expect((await api('GET', '/v1/payouts', undefined, other.key)).body.total).to.equal(0);
    });
  });

  it('GET /v1/campaign shows the commission rule, the hold period, the payout minimum and this month’s usage', async () => {
    await arrive(code, [['u', 10]]);
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { autoApproveDays: 14, payoutMinimum: 25.5 });
    const reply = await api('GET', '/v1/campaign');
    expect(reply.body).to.deep.include({
      commissionType: 'percent',
      commissionValue: 10,
      autoApproveDays: 14,
      payoutMinimum: 25.5,
    });
    expect(reply.body.usage).to.deep.include({ conversions: 1, affiliates: 0 });
  });

  it('deleting an affiliate removes its payouts, clawbacks and the payouts’ conversion lists (spec §4.5.1)', async () => {
    const [a, b] = await arrive(code, [
      ['a', 10],
      ['b', 10],
    ]);
    await approve(a ?? 0, b ?? 0);
    const made = await payout(affiliateId);
    await settle(made.body.id, 'paid');
    await refund('a');
    const count = async (table: 'payouts' | 'clawbacks' | 'payout_conversions' | 'conversions') =>
      Number((await t.db(table).count({ n: '*' }).first())?.n);
    expect([await count('payouts'), await count('clawbacks'), await count('payout_conversions')]).to.deep.equal([
      1, 1, 2,
    ]);
    expect((await api('DELETE', `/v1/affiliates/${affiliateId}`)).status).to.equal(200);
    for (const table of ['payouts', 'clawbacks', 'payout_conversions', 'conversions'] as const) {
      expect(await count(table), table).to.equal(0);
    }
  });
});
