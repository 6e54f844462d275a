import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import { createMerchant, type Merchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { badRequest, conflict, lifecycleApi, notFound } from '../helpers/lifecycleApi.js';

const NOT_FOUND = notFound('Conversion not found');

describe(`conversions API: list, get, transitions, bulk, refunds (${ENGINE})`, () => {
  const t = useTestDaemon();
  const { api, send, arrive, setStatus, refund, payout, settle, approve } = lifecycleApi(
    () => t.url,
    () => t.merchant,
  );
  let code: string;
  let affiliateId: number;

  beforeEach(async () => {
    ({ code, id: affiliateId } = await addAffiliate(t.db, t.merchant.campaignId));
  });

  const statusOf = async (id: number) => (await api('GET', `/v1/conversions/${id}`)).body.status;

  describe('GET /v1/conversions and /v1/conversions/{id}', () => {
    it('shows a conversion as it arrived: pending, its commission, rounded half up as written', async () => {
      const [id] = await arrive(code, [['order-1', 1.005]]);
      const reply = await api('GET', `/v1/conversions/${id}`);
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.include({
        id,
        affiliateId,
        referralId: code,
        orderId: 'order-1',
        // 1.005 is 1.01 as written (the float is 1.00499…); 10 % of 101 centavos is 10.1 → 10.
        orderValue: 1.01,
        commission: 0.1,
        status: 'pending',
        payoutId: null,
        refundedAt: null,
        refundReason: null,
        properties: { order_id: 'order-1', order_value: 1.005 },
      });
      expect(new Date(reply.body.createdAt).toISOString()).to.equal(reply.body.createdAt);
      expect(reply.body.occurredAt).to.equal(reply.body.createdAt);
    });

    it('400 for a non-numeric id; 404 for an unknown id and for another campaign’s conversion', async () => {
      const [id] = await arrive(code, [['o', 10]]);
      expect((await api('GET', '/v1/conversions/abc')).body).to.deep.equal(badRequest(MESSAGES.numericId));
      expect((await api('GET', '/v1/conversions/999999')).body).to.deep.equal(NOT_FOUND);
      expect((await api('GET', '/v1/conversions/99999999999999999999')).body).to.deep.equal(NOT_FOUND);
      const other: Merchant = await createMerchant(t.db);
      const theirs = await api('GET', `/v1/conversions/${id}`, undefined, other.key);
      expect(theirs.status).to.equal(404);
      expect(theirs.body).to.deep.equal(NOT_FOUND);
      expect((await api('PATCH', `/v1/conversions/${id}`, { status: 'approved' }, other.key)).body).to.deep.equal(
        NOT_FOUND,
      );
      expect((await api('GET', '/v1/conversions', undefined, other.key)).body.total).to.equal(0);
    });

    it('lists newest first with filters that combine, and pages', async () => {
      const second = await addAffiliate(t.db, t.merchant.campaignId);
      const ids = await arrive(code, [
        ['a', 10],
        ['b', 20],
        ['c', 30],
      ]);
      const [theirs] = await arrive(second.code, [['d', 40]]);
      await approve(ids[1] ?? 0);
      const list = await api('GET', '/v1/conversions?limit=2');
      expect(list.body).to.include({ total: 4, page: 1, limit: 2, totalPages: 2 });
      expect(list.body.conversions.map((c: { id: number }) => c.id)).to.deep.equal([theirs, ids[2]]);
      const page2 = await api('GET', '/v1/conversions?limit=2&page=2');
      expect(page2.body.conversions.map((c: { id: number }) => c.id)).to.deep.equal([ids[1], ids[0]]);
      const approved = await api('GET', '/v1/conversions?status=approved');
      expect(approved.body.conversions.map((c: { id: number }) => c.id)).to.deep.equal([ids[1]]);
      const mine = await api('GET', `/v1/conversions?affiliateId=${affiliateId}&status=pending`);
      expect(mine.body.conversions.map((c: { id: number }) => c.id)).to.deep.equal([ids[2], ids[0]]);
      const order = await api('GET', '/v1/conversions?orderId=c');
      expect(order.body.conversions.map((c: { id: number }) => c.id)).to.deep.equal([ids[2]]);
      expect((await api('GET', '/v1/conversions?page=9')).body).to.include({ total: 4, totalPages: 1 });
    });

    it('filters on createdAt: both ends included; a date is its whole UTC day, a date-time that instant', async () => {
      const [early, late] = await arrive(code, [
        ['early', 10],
        ['late', 10],
      ]);
      await t
        .db('conversions')
        .where('id', early)
        .update({ created_at: new Date('2026-01-31T23:59:59.999Z') });
      await t
        .db('conversions')
        .where('id', late)
        .update({ created_at: new Date('2026-02-01T00:00:00.000Z') });
      const ids = async (query: string) =>
        (await api('GET', `/v1/conversions?${query}`)).body.conversions.map((c: { id: number }) => c.id);
      expect(await ids('from=2026-02-01')).to.deep.equal([late]);
      expect(await ids('to=2026-01-31')).to.deep.equal([early]);
      expect(await ids('from=2026-01-31&to=2026-01-31')).to.deep.equal([early]);
      expect(await ids('to=2026-02-01')).to.deep.equal([late, early]);
      expect(await ids('from=2026-01-31T23:59:59.999Z&to=2026-02-01T00:00:00.000Z')).to.deep.equal([late, early]);
      expect(await ids('to=2026-01-31T23:59:59.999Z')).to.deep.equal([early]);
      expect(await ids('from=2026-02-01T01:00:00%2B01:00')).to.deep.equal([late]);
    });

    it('400 for bad query values, each named', async () => {
      const reply = await api('GET', '/v1/conversions?status=done&limit=101&from=yesterday&affiliateId=x&foo=1');
      expect(reply.status).to.equal(400);
      expect(reply.body.message).to.have.members([
        'status must be one of the following values: pending, approved, rejected, paid',
        'limit must not be greater than 100',
        'from must be an ISO 8601 date or date-time',
        'affiliateId must be a number',
        'property foo should not exist',
      ]);
    });
  });

  describe('PATCH /v1/conversions/{id}: every transition', () => {
    let ids: number[];
    beforeEach(async () => {
      ids = await arrive(code, [
        ['p1', 100],
        ['p2', 100],
        ['p3', 100],
      ]);
    });

    it('pending → approved and pending → rejected answer the conversion', async () => {
      const approved = await setStatus(ids[0] ?? 0, 'approved');
      expect(approved.status).to.equal(200);
      expect(approved.body).to.include({ id: ids[0], status: 'approved', commission: 10 });
      const rejected = await setStatus(ids[1] ?? 0, 'rejected');
      expect(rejected.body).to.include({ id: ids[1], status: 'rejected' });
      expect(await statusOf(ids[0] ?? 0)).to.equal('approved');
      expect(await statusOf(ids[1] ?? 0)).to.equal('rejected');
    });

    it('approved → rejected while in no payout', async () => {
      await approve(ids[0] ?? 0);
      const reply = await setStatus(ids[0] ?? 0, 'rejected');
      expect(reply.status).to.equal(200);
      expect(reply.body.status).to.equal('rejected');
    });

    it('the status it already has: 200, nothing changes', async () => {
      await approve(ids[0] ?? 0);
      const before = await t
        .db('conversions')
        .where('id', ids[0] ?? 0)
        .first('updated_at');
      const again = await setStatus(ids[0] ?? 0, 'approved');
      expect(again.status).to.equal(200);
      expect(again.body.status).to.equal('approved');
      expect(
        await t
          .db('conversions')
          .where('id', ids[0] ?? 0)
          .first('updated_at'),
      ).to.deep.equal(before);
      await setStatus(ids[1] ?? 0, 'rejected');
      expect((await setStatus(ids[1] ?? 0, 'rejected')).status).to.equal(200);
    });

    it('409 naming both states for everything else', async () => {
      await setStatus(ids[0] ?? 0, 'rejected');
      const back = await setStatus(ids[0] ?? 0, 'approved');
      expect(back.status).to.equal(409);
      expect(back.body).to.deep.equal(conflict('Conversion cannot move from rejected to approved'));

      await approve(ids[1] ?? 0, ids[2] ?? 0);
      const made = await payout(affiliateId);
      expect(made.status).to.equal(201);
      const inPayout = await setStatus(ids[1] ?? 0, 'rejected');
      expect(inPayout.body).to.deep.equal(conflict(MESSAGES.conversionInPayout(made.body.id)));
      expect(await statusOf(ids[1] ?? 0)).to.equal('approved');

      await settle(made.body.id, 'paid');
      expect((await setStatus(ids[1] ?? 0, 'rejected')).body).to.deep.equal(conflict(MESSAGES.conversionPaid));
      expect((await setStatus(ids[1] ?? 0, 'approved')).body).to.deep.equal(
        conflict('Conversion cannot move from paid to approved'),
      );
      expect(await statusOf(ids[1] ?? 0)).to.equal('paid');
    });

    it('400 for a status that cannot be set by hand, an unknown field, a missing body', async () => {
      const id = ids[0] ?? 0;
      expect((await setStatus(id, 'paid')).body).to.deep.equal(
        badRequest(['status must be one of the following values: approved, rejected']),
      );
      expect((await setStatus(id, 'pending')).status).to.equal(400);
      expect((await api('PATCH', `/v1/conversions/${id}`, { status: 'approved', commission: 1 })).body).to.deep.equal(
        badRequest(['property commission should not exist']),
      );
      expect((await api('PATCH', `/v1/conversions/${id}`)).status).to.equal(400);
      expect((await api('PATCH', '/v1/conversions/12x', { status: 'approved' })).body).to.deep.equal(
        badRequest(MESSAGES.numericId),
      );
      expect((await api('PATCH', '/v1/conversions/424242', { status: 'approved' })).body).to.deep.equal(NOT_FOUND);
      expect(await statusOf(id)).to.equal('pending');
    });
  });

  describe('POST /v1/conversions/bulk', () => {
    it('gives each id its own outcome', async () => {
      const ids = await arrive(code, [
        ['b1', 10],
        ['b2', 10],
        ['b3', 10],
      ]);
      await setStatus(ids[1] ?? 0, 'rejected');
      await approve(ids[2] ?? 0);
      const reply = await api('POST', '/v1/conversions/bulk', {
        status: 'approved',
        ids: [ids[0], ids[1], ids[2], 987654, ids[0]],
      });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({
        results: [
          { id: ids[0], outcome: 'updated', status: 'approved' },
          {
            id: ids[1],
            outcome: 'conflict',
            status: 'rejected',
            message: 'Conversion cannot move from rejected to approved',
          },
          { id: ids[2], outcome: 'unchanged', status: 'approved' },
          { id: 987654, outcome: 'not_found', status: null, message: 'Conversion not found' },
        ],
        updated: 1,
        unchanged: 1,
        failed: 2,
        remaining: null,
      });
    });

    it('takes the oldest pending conversions of a filter, and says how many remain', async () => {
      await send(
        code,
        Array.from({ length: 30 }, (_, i) => [`f${i}`, 10] as const),
      );
      // Ten of them arrived a week ago.
      const old = await t
        .db('conversions')
        .where('campaign_id', t.merchant.campaignId)
        .orderBy('id')
        .limit(10)
        .pluck('id');
      await t
        .db('conversions')
        .whereIn('id', old)
        .update({ created_at: new Date(Date.now() - 7 * 86_400_000) });
      const before = new Date(Date.now() - 86_400_000).toISOString();
      const first = await api('POST', '/v1/conversions/bulk', {
        status: 'approved',
        filter: { status: 'pending', before },
        limit: 4,
      });
      expect(first.body).to.include({ updated: 4, unchanged: 0, failed: 0, remaining: 6 });
      expect(first.body.results.map((r: { id: number }) => r.id)).to.deep.equal(old.slice(0, 4).map(Number));
      const rest = await api('POST', '/v1/conversions/bulk', {
        status: 'rejected',
        filter: { status: 'pending', before },
      });
      expect(rest.body).to.include({ updated: 6, remaining: 0 });
      const all = await api('POST', '/v1/conversions/bulk', { status: 'approved', filter: { status: 'pending' } });
      expect(all.body).to.include({ updated: 20, remaining: 0 });
    });

    it('400 without ids or filter, with both, past 1,000 ids, with a filter on another status', async () => {
      const bad = async (body: unknown) => (await api('POST', '/v1/conversions/bulk', body)).body;
      expect(await bad({ status: 'approved' })).to.deep.equal(badRequest(['ids or filter is required, but not both']));
      expect(await bad({ status: 'approved', ids: [1], filter: { status: 'pending' } })).to.deep.equal(
        badRequest(['ids or filter is required, but not both']),
      );
      expect(await bad({ status: 'approved', ids: Array.from({ length: 1001 }, (_, i) => i + 1) })).to.deep.equal(
        badRequest(['ids must contain at most 1000 elements']),
      );
      expect(await bad({ status: 'approved', filter: { status: 'approved' } })).to.deep.equal(
        badRequest(['filter.status must be pending']),
      );
      expect(await bad({ status: 'approved', ids: [1], limit: 5 })).to.deep.equal(
        badRequest(['limit goes with filter only']),
      );
    });
  });

  describe('POST /v1/refunds', () => {
    it('pending or approved outside a payout: rejected, no clawback; a second refund changes nothing', async () => {
      const [pending, approved] = await arrive(code, [
        ['r1', 50],
        ['r2', 50],
      ]);
      await approve(approved ?? 0);
      const first = await refund('r1', 'customer changed their mind');
      expect(first.status).to.equal(200);
      expect(first.body).to.include({ id: pending, status: 'rejected', refundReason: 'customer changed their mind' });
      expect(first.body.refundedAt).to.be.a('string');
      expect((await refund('r2')).body).to.include({ id: approved, status: 'rejected', refundReason: null });
      const again = await refund('r1', 'another reason');
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(first.body);
      expect(await t.db('clawbacks').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    });

    it('paid: rejected, and its commission is clawed back from the next payout', async () => {
      const [paid, later] = await arrive(code, [
        ['paid-order', 200],
        ['later-order', 500],
      ]);
      await approve(paid ?? 0);
      const first = await payout(affiliateId);
      await settle(first.body.id, 'paid');
      const refunded = await refund('paid-order');
      expect(refunded.body).to.include({ status: 'rejected', payoutId: first.body.id });
      expect((await refund('paid-order')).status).to.equal(200);
      await approve(later ?? 0);
      const next = await payout(affiliateId);
      expect(next.status).to.equal(201);
      expect(next.body).to.include({ commissionAmount: 50, clawbackAmount: 20, amount: 30 });
      expect(next.body.conversionIds).to.deep.equal([later]);
    });

    it('404 for an unknown order and another campaign’s order; 400 for a bad body', async () => {
      await arrive(code, [['mine', 10]]);
      expect((await refund('nope')).body).to.deep.equal(NOT_FOUND);
      const other = await createMerchant(t.db);
      expect((await api('POST', '/v1/refunds', { order_id: 'mine' }, other.key)).body).to.deep.equal(NOT_FOUND);
      expect((await api('POST', '/v1/refunds', { orderId: 'mine' })).body).to.deep.equal(
        badRequest(['order_id is required', 'property orderId should not exist']),
      );
      expect(await statusOf((await arrive(code, [['x', 1]]))[0] ?? 0)).to.equal('pending');
    });
  });
});
