import { expect } from 'chai';
import type { AutoApproveWorker } from '../../server/services/autoApprove.js';
import { MESSAGES } from '../../shared/errors.js';
import { COMMISSION_MESSAGES } from '../../shared/schemas/commission.js';
import { createMerchant, servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion } from '../helpers/events.js';
import { badRequest, conflict, lifecycleApi, notFound } from '../helpers/lifecycleApi.js';
import { Receiver } from '../helpers/receiver.js';

const TOP = {
  name: 'Top partners',
  commissionType: 'percent',
  commissionValue: 15,
  products: [{ product: 'Team plan', commissionType: 'percent', commissionValue: 20 }],
};

describe(`commission rules: groups, overrides, product rules, flags (${ENGINE})`, () => {
  const t = useTestDaemon({
    AUTO_APPROVE_INTERVAL_MS: '0',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_POLL_MS: '50',
  });
  const { api } = lifecycleApi(
    () => t.url,
    () => t.merchant,
  );

  /** One sale, and the conversion it stored (or undefined when it was skipped). */
  async function sell(code: string, orderId: string, value: number, properties: Record<string, unknown> = {}) {
    const event = conversion(t.merchant.publicId, code, orderId, value);
    const reply = await api('POST', '/v1/events', {
      events: [{ ...event, properties: { ...event.properties, ...properties } }],
    });
    expect(reply.status, reply.text).to.equal(200);
    const found = await api('GET', `/v1/conversions?orderId=${encodeURIComponent(orderId)}&kind=sale`);
    return found.body.conversions[0];
  }

  describe('groups', () => {
    it('CRUD: 201 with its rule and defaults, list, get, PATCH field by field, DELETE', async () => {
      const made = await api('POST', '/v1/groups', TOP);
      expect(made.status, made.text).to.equal(201);
      expect(made.body).to.deep.include({
        ...TOP,
        recurring: null,
        secondTierPercent: null,
        affiliateCount: 0,
      });
      const id = made.body.id;
      expect((await api('GET', `/v1/groups/${id}`)).body).to.deep.equal(made.body);
      const listed = await api('GET', '/v1/groups?limit=10');
      expect(listed.body).to.deep.include({ total: 1, page: 1, limit: 10, totalPages: 1 });
      expect(listed.body.groups.map((g: { id: number }) => g.id)).to.deep.equal([id]);

      const patched = await api('PATCH', `/v1/groups/${id}`, { commissionValue: 17.5, recurring: { months: 12 } });
      expect(patched.body).to.deep.include({
        name: 'Top partners',
        commissionType: 'percent',
        commissionValue: 17.5,
        recurring: { months: 12 },
        products: TOP.products,
      });
      const cleared = await api('PATCH', `/v1/groups/${id}`, { recurring: null, products: [] });
      expect(cleared.body).to.deep.include({ recurring: null, products: [] });

      expect((await api('DELETE', `/v1/groups/${id}`)).body).to.deep.equal({
        success: true,
        message: 'Group deleted successfully',
      });
      expect((await api('GET', `/v1/groups/${id}`)).body).to.deep.equal(notFound('Group not found'));
    });

    it('409 for a name the campaign has (ignoring case and spaces); another campaign may use it', async () => {
      expect((await api('POST', '/v1/groups', TOP)).status).to.equal(201);
      const again = await api('POST', '/v1/groups', { ...TOP, name: '  TOP PARTNERS ' });
      expect(again.body).to.deep.equal(conflict('Group name is not available'));
      const other = await createMerchant(t.db);
      const theirs = await api('POST', '/v1/groups', TOP, other.key);
      expect(theirs.status).to.equal(201);
      // Another campaign's group is not found here.
      expect((await api('GET', `/v1/groups/${theirs.body.id}`)).status).to.equal(404);
      const second = await api('POST', '/v1/groups', { ...TOP, name: 'Second' });
      expect((await api('PATCH', `/v1/groups/${second.body.id}`, { name: 'top partners' })).body).to.deep.equal(
        conflict('Group name is not available'),
      );
    });

    it('400 for a percent over 100, a negative value, an unknown recurring shape or a product listed twice; nothing stored', async () => {
      const refused = async (body: Record<string, unknown>, message: string) => {
        const reply = await api('POST', '/v1/groups', { ...TOP, ...body });
        expect(reply.status, reply.text).to.equal(400);
        expect(reply.body.message).to.include(message);
      };
      await refused(
        { commissionValue: 100.5 },
        `commissionValue ${'must not be greater than 100 for a percent commission'}`,
      );
      await refused({ commissionValue: -1 }, 'commissionValue must not be less than 0');
      const recurring = `recurring ${COMMISSION_MESSAGES.recurring}`;
      await refused({ recurring: 'monthly' }, recurring);
      await refused({ recurring: { months: 0 } }, 'recurring.months must not be less than 1');
      await refused({ recurring: { months: 1.5 } }, recurring);
      await refused({ secondTierPercent: 101 }, 'secondTierPercent must not be greater than 100');
      await refused(
        { products: [TOP.products[0], { ...TOP.products[0], commissionValue: 1 }] },
        'products.1.product lists product "Team plan" more than once',
      );
      await refused(
        { products: [{ ...TOP.products[0], commissionValue: 150 }] },
        `products.0.commissionValue ${COMMISSION_MESSAGES.percentOver100}`,
      );
      expect(await t.db('affiliate_groups').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
      // A value sent alone meets the stored type.
      const made = await api('POST', '/v1/groups', TOP);
      expect((await api('PATCH', `/v1/groups/${made.body.id}`, { commissionValue: 150 })).body).to.deep.equal(
        badRequest([MESSAGES.percentOver100]),
      );
      const fixed = await api('PATCH', `/v1/groups/${made.body.id}`, { commissionType: 'fixed', commissionValue: 150 });
      expect(fixed.body).to.include({ commissionType: 'fixed', commissionValue: 150 });
    });

    it('affiliates join a group (groupId), are listed by it, and go back to the campaign rule when it is deleted', async () => {
      const group = (await api('POST', '/v1/groups', TOP)).body;
      const ana = await api('POST', '/v1/affiliates', {
        email: 'ana@example.com',
        password: 'secret1',
        referralId: 'ANA',
        groupId: group.id,
      });
      expect(ana.body).to.include({ groupId: group.id });
      const bia = await addAffiliate(t.db, t.merchant.campaignId, { code: 'BIA' });
      const listed = await api('GET', `/v1/affiliates?groupId=${group.id}`);
      expect(listed.body.affiliates.map((a: { id: number }) => a.id)).to.deep.equal([ana.body.id]);
      expect(listed.body.total).to.equal(1);
      expect((await api('GET', `/v1/groups/${group.id}`)).body.affiliateCount).to.equal(1);
      expect((await sell('ANA', 'g-1', 100)).commission).to.equal(15);
      expect((await sell('BIA', 'g-2', 100)).commission).to.equal(10);

      await api('DELETE', `/v1/groups/${group.id}`);
      expect((await api('GET', `/v1/affiliates/${ana.body.id}`)).body.groupId).to.equal(null);
      expect((await sell('ANA', 'g-3', 100)).commission).to.equal(10);
      // Stored conversions keep what they earned.
      expect((await sell('ANA', 'g-1', 100)).commission).to.equal(15);
      expect(bia.id).to.be.a('number');
    });

    it('deleting a group reports each of its affiliates, now in no group, as affiliate.updated', async () => {
      const receiver = await new Receiver().start();
      try {
        await api('POST', '/v1/webhooks', { url: receiver.url, events: ['affiliate.updated'] });
        const group = (await api('POST', '/v1/groups', TOP)).body;
        const ana = await addAffiliate(t.db, t.merchant.campaignId);
        await addAffiliate(t.db, t.merchant.campaignId);
        await t.db('affiliates').where('id', ana.id).update({ group_id: group.id });
        await api('DELETE', `/v1/groups/${group.id}`);
        await receiver.waitFor(1);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(receiver.payloads().map((p) => [p.type, p.data.id, p.data.groupId])).to.deep.equal([
          ['affiliate.updated', ana.id, null],
        ]);
      } finally {
        await receiver.stop();
      }
    });

    it('400 for a group of another campaign or none, in one round with the other failures; nothing changed', async () => {
      const other = await createMerchant(t.db);
      const theirs = (await api('POST', '/v1/groups', TOP, other.key)).body;
      const refused = await api('POST', '/v1/affiliates', {
        email: 'not-an-email',
        password: 'secret1',
        groupId: theirs.id,
      });
      expect(refused.body).to.deep.equal(badRequest(['email must be a valid email', MESSAGES.groupNotInCampaign]));
      const { id } = await addAffiliate(t.db, t.merchant.campaignId);
      expect((await api('PATCH', `/v1/affiliates/${id}`, { groupId: 999999 })).body).to.deep.equal(
        badRequest([MESSAGES.groupNotInCampaign]),
      );
      expect((await api('GET', `/v1/affiliates/${id}`)).body.groupId).to.equal(null);
    });
  });

  describe('precedence (docs/commissions.md)', () => {
    it('override > group product > group rate; campaign product > campaign rate; a group decides alone', async () => {
      await servicesFor(t.db).campaigns.update(t.merchant.campaignId, {
        products: [
          { product: 'Team plan', commissionType: 'fixed', commissionValue: 30 },
          { product: 'Starter', commissionType: 'percent', commissionValue: 50 },
        ],
      });
      const group = (await api('POST', '/v1/groups', TOP)).body;
      const plain = await addAffiliate(t.db, t.merchant.campaignId, { code: 'PLAIN' });
      const member = await addAffiliate(t.db, t.merchant.campaignId, { code: 'MEMBER' });
      const star = await addAffiliate(t.db, t.merchant.campaignId, { code: 'STAR' });
      await api('PATCH', `/v1/affiliates/${member.id}`, { groupId: group.id });
      await api('PATCH', `/v1/affiliates/${star.id}`, {
        groupId: group.id,
        commissionOverride: { commissionType: 'percent', commissionValue: 25 },
      });

      const cases: [string, string, string | undefined, number, Record<string, unknown>][] = [
        ['PLAIN', 'p-1', undefined, 10, { source: 'campaign', commissionType: 'percent', commissionValue: 10 }],
        ['PLAIN', 'p-2', 'Team plan', 30, { source: 'product', commissionType: 'fixed', commissionValue: 30 }],
        ['PLAIN', 'p-3', 'Starter', 50, { source: 'product', commissionType: 'percent', commissionValue: 50 }],
        // Matched exactly: case and spaces count.
        ['PLAIN', 'p-4', 'team plan', 10, { source: 'campaign' }],
        ['MEMBER', 'm-1', undefined, 15, { source: 'group', groupId: group.id, commissionValue: 15 }],
        ['MEMBER', 'm-2', 'Team plan', 20, { source: 'product', groupId: group.id, commissionValue: 20 }],
        // The campaign's Starter rule is not the group's: the group's rate decides.
        ['MEMBER', 'm-3', 'Starter', 15, { source: 'group', groupId: group.id }],
        ['STAR', 's-1', 'Team plan', 25, { source: 'affiliate', commissionValue: 25 }],
      ];
      for (const [code, orderId, product, commission, rule] of cases) {
        const sold = await sell(code, orderId, 100, product === undefined ? {} : { product });
        expect(sold.commission, orderId).to.equal(commission);
        expect(sold.commissionRule, orderId).to.deep.include(rule);
      }
      expect(plain.id).to.be.a('number');
    });

    it('a rule change applies to the next conversion only; a percent is rounded half up once, to the centavo', async () => {
      const { id } = await addAffiliate(t.db, t.merchant.campaignId, { code: 'ANA' });
      await api('PATCH', `/v1/affiliates/${id}`, {
        commissionOverride: { commissionType: 'percent', commissionValue: 12.5 },
      });
      // 12.5 % of 123.45 = 15.43125 → 15.43.
      expect((await sell('ANA', 'r-1', 123.45)).commission).to.equal(15.43);
      await api('PATCH', `/v1/affiliates/${id}`, {
        commissionOverride: { commissionType: 'fixed', commissionValue: 7 },
      });
      expect((await sell('ANA', 'r-2', 123.45)).commission).to.equal(7);
      await api('PATCH', `/v1/affiliates/${id}`, { commissionOverride: null });
      expect((await sell('ANA', 'r-3', 0.05)).commission).to.equal(0.01);
      const first = await api('GET', '/v1/conversions?orderId=r-1');
      expect(first.body.conversions[0]).to.deep.include({ commission: 15.43 });
      expect(first.body.conversions[0].commissionRule).to.deep.equal({
        source: 'affiliate',
        commissionType: 'percent',
        commissionValue: 12.5,
      });
      expect((await api('GET', `/v1/affiliates/${id}`)).body.commissionOverride).to.equal(null);
    });
  });

  describe('fraud flags', () => {
    it('self_referral when the customer e-mail is the affiliate’s own (case and +tag aside); ?flagged filters', async () => {
      const made = await api('POST', '/v1/affiliates', {
        email: 'Ana.Lima@Example.com',
        password: 'secret1',
        referralId: 'ANA',
      });
      expect(made.status).to.equal(201);
      const own = await sell('ANA', 'f-1', 50, { customer_email: ' ana.lima+shop@EXAMPLE.com' });
      const stranger = await sell('ANA', 'f-2', 50, { customer_email: 'maria@example.com' });
      expect(own.flags).to.deep.equal(['self_referral']);
      expect(stranger.flags).to.deep.equal([]);
      const flagged = await api('GET', '/v1/conversions?flagged=true');
      expect(flagged.body.conversions.map((c: { orderId: string }) => c.orderId)).to.deep.equal(['f-1']);
      const clean = await api('GET', '/v1/conversions?flagged=false');
      expect(clean.body.conversions.map((c: { orderId: string }) => c.orderId)).to.deep.equal(['f-2']);
      expect((await api('GET', '/v1/conversions?flagged=yes')).body).to.deep.equal(
        badRequest(['flagged must be one of the following values: true, false']),
      );
    });

    it('the hold period never approves a flagged conversion; a person can', async () => {
      await api('POST', '/v1/affiliates', { email: 'ana@example.com', password: 'secret1', referralId: 'ANA' });
      const own = await sell('ANA', 'h-1', 50, { customer_email: 'ana@example.com' });
      const other = await sell('ANA', 'h-2', 50, { customer_email: 'bia@example.com' });
      await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { autoApproveDays: 0 });
      // The daemon's own hold-period job, run once (its schedule is off in this suite).
      const worker = t.daemon.services.workers.find((w) => w.name === 'auto-approve');
      if (!worker || !('runOnce' in worker)) throw new Error('the daemon has no auto-approve worker');
      expect(await (worker as AutoApproveWorker).runOnce()).to.equal(1);
      expect((await api('GET', `/v1/conversions/${other.id}`)).body.status).to.equal('approved');
      expect((await api('GET', `/v1/conversions/${own.id}`)).body.status).to.equal('pending');
      expect((await api('PATCH', `/v1/conversions/${own.id}`, { status: 'approved' })).body.status).to.equal(
        'approved',
      );
    });
  });
});
