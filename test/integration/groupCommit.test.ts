import { expect } from 'chai';
import { intakeWriterForTests } from '../../server/services/events/service.js';
import { MESSAGES } from '../../shared/errors.js';
import { createMerchant, type Merchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion, lead, pageView, storedCounts } from '../helpers/events.js';
import { call } from '../helpers/http.js';

/**
 * Requests that share a flush (docs/architecture.md, "Group commit"). The writer is held while
 * the requests arrive, so they wait in its queue, in the order sent, and are written together
 * in one transaction; the flush counts say they were.
 */
describe(`group commit of event intake (${ENGINE})`, () => {
  // A closed loopback port: the outbox rows are what is asserted, not their delivery.
  const t = useTestDaemon({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  let merchant: Merchant;
  let code: string;

  const send = (events: unknown[], key = merchant.key) => call(t.url, 'POST', '/v1/events', { key, body: { events } });
  type Reply = Awaited<ReturnType<typeof send>>;

  /** Sends every request while the writer is held, then lets one flush take them all. */
  async function inOneFlush(requests: (() => Promise<Reply>)[]): Promise<Reply[]> {
    const writer = intakeWriterForTests(t.daemon.services.events);
    const before = writer.stats();
    const release = writer.hold();
    const replies: Promise<Reply>[] = [];
    try {
      // One at a time into the queue, so the flush takes them in the order given.
      for (const request of requests) {
        replies.push(request());
        await writer.queued(replies.length);
      }
    } finally {
      release();
    }
    const answered = await Promise.all(replies);
    const after = writer.stats();
    expect([after.flushes - before.flushes, after.jobs - before.jobs]).to.deep.equal([1, requests.length]);
    return answered;
  }

  beforeEach(async () => {
    merchant = t.merchant;
    ({ code } = await addAffiliate(t.db, merchant.campaignId));
  });

  it('answers two requests with the same order_id in one flush: one accepted, one skipped', async () => {
    const order = [conversion(merchant.publicId, code, 'same-order', 10)];
    const replies = await inOneFlush([() => send(order), () => send(order)]);
    expect(replies.map((r) => r.status)).to.deep.equal([200, 200]);
    expect(replies.map((r) => r.body)).to.have.deep.members([
      { success: true, received: 1, accepted: 1, skipped: [] },
      { success: true, received: 1, accepted: 0, skipped: [{ index: 0, reason: 'duplicate_order_id' }] },
    ]);
    expect(await storedCounts(t.db, merchant.campaignId)).to.deep.equal({ events: 1, conversions: 1, usage: 1 });
  });

  it('answers page views that share an event_id across requests once, and keeps the rest', async () => {
    const same = [pageView(merchant.publicId, code, { event_id: 'pv-1' })];
    const replies = await inOneFlush([
      () => send(same),
      () => send(same),
      () => send([pageView(merchant.publicId, code), lead(merchant.publicId, code)]),
    ]);
    expect(replies.map((r) => r.body)).to.have.deep.members([
      { success: true, received: 1, accepted: 1, skipped: [] },
      { success: true, received: 1, accepted: 0, skipped: [{ index: 0, reason: 'duplicate_event_id' }] },
      { success: true, received: 2, accepted: 2, skipped: [] },
    ]);
    expect(await storedCounts(t.db, merchant.campaignId)).to.deep.equal({ events: 3, conversions: 0, usage: 0 });
  });

  describe('with a monthly limit', () => {
    let limited: Merchant;
    let limitedCode: string;
    let plan: string;

    beforeEach(async () => {
      limited = await createMerchant(t.db, {
        limits: { maxMonthlyConversions: 3 },
        commission: { type: 'fixed', value: 2 },
      });
      limitedCode = (await addAffiliate(t.db, limited.campaignId)).code;
      const [row] = await t
        .db('campaigns')
        .join('plans', 'plans.id', 'campaigns.plan_id')
        .where('campaigns.id', limited.campaignId)
        .select('plans.name');
      plan = row.name;
    });

    const orders = (prefix: string, count: number, value = 10) =>
      Array.from({ length: count }, (_, i) => conversion(limited.publicId, limitedCode, `${prefix}-${i}`, value));

    it('refuses only the batch over the limit; the batch under it in the same flush is stored', async () => {
      const [over, under] = await inOneFlush([
        () => send([pageView(limited.publicId, limitedCode), ...orders('over', 4)], limited.key),
        () => send(orders('under', 2), limited.key),
      ]);
      expect(over?.body).to.deep.equal({
        statusCode: 403,
        message: MESSAGES.conversionLimit(plan, 0, 3),
        error: 'Forbidden',
      });
      expect(under?.body).to.deep.equal({ success: true, received: 2, accepted: 2, skipped: [] });
      expect(await storedCounts(t.db, limited.campaignId)).to.deep.equal({ events: 2, conversions: 2, usage: 2 });
      const stored = await t
        .db('conversions')
        .where('campaign_id', limited.campaignId)
        .orderBy('order_id')
        .pluck('order_id');
      expect(stored).to.deep.equal(['under-0', 'under-1']);
    });

    it('keeps the report counters and the outbox equal to what a mixed flush stored', async () => {
      const hook = await call(t.url, 'POST', '/v1/webhooks', {
        key: limited.key,
        body: { url: 'http://127.0.0.1:9/hook', events: ['conversion.created'] },
      });
      expect(hook.status).to.equal(201);
      const replies = await inOneFlush([
        // Over the limit: refused whole, its page view too.
        () => send([pageView(limited.publicId, limitedCode), ...orders('over', 4, 7)], limited.key),
        // Under it: stored.
        () => send([lead(limited.publicId, limitedCode), ...orders('under', 2, 15)], limited.key),
        // The same order as the batch under the limit, and a new one.
        () =>
          send(
            [
              conversion(limited.publicId, limitedCode, 'under-0', 99),
              conversion(limited.publicId, limitedCode, 'extra', 20),
              pageView(limited.publicId, limitedCode),
            ],
            limited.key,
          ),
      ]);
      expect(replies.map((r) => r.status)).to.deep.equal([403, 200, 200]);
      expect(replies[2]?.body).to.deep.equal({
        success: true,
        received: 3,
        accepted: 2,
        skipped: [{ index: 0, reason: 'duplicate_order_id' }],
      });
      expect(await storedCounts(t.db, limited.campaignId)).to.deep.equal({ events: 5, conversions: 3, usage: 3 });

      const report = await call(t.url, 'GET', '/v1/reports/affiliates', { key: limited.key });
      const stored = await t
        .db('tracking_events as e')
        .leftJoin('conversions as c', 'c.tracking_event_id', 'e.id')
        .where('e.campaign_id', limited.campaignId)
        .select('e.event_type', 'c.order_value_cents', 'c.commission_cents');
      const count = (type: string) => stored.filter((row) => row.event_type === type).length;
      const cents = (column: string) => stored.reduce((sum, row) => sum + Number(row[column] ?? 0), 0);
      expect(report.body.affiliates).to.have.length(1);
      expect(report.body.affiliates[0]).to.include({
        pageViews: count('page_view'),
        leads: count('lead'),
        conversions: count('conversion'),
        revenue: cents('order_value_cents') / 100,
        commissions: cents('commission_cents') / 100,
      });
      expect(report.body.affiliates[0]).to.include({ pageViews: 1, leads: 1, conversions: 3, revenue: 50 });

      // Intake records each change once (a message); the worker fans it out to the endpoint later.
      const messages = await t
        .db('webhook_messages')
        .where({ campaign_id: limited.campaignId, event_type: 'conversion.created' })
        .pluck('payload');
      const ordersSent = messages.map((payload: string) => JSON.parse(payload).data.orderId).sort();
      expect(ordersSent).to.deep.equal(['extra', 'under-0', 'under-1']);
    });
  });
});
