import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import { createMerchant, type Merchant, revokeKey, startTestDaemon, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion, lead, pageView, storedCounts } from '../helpers/events.js';
import { call } from '../helpers/http.js';

describe(`POST /v1/events (${ENGINE})`, () => {
  const t = useTestDaemon();
  let merchant: Merchant;
  let code: string;
  let affiliateId: number;

  const send = (body: unknown, key = merchant.key) => call(t.url, 'POST', '/v1/events', { key, body });
  const counts = () => storedCounts(t.db, merchant.campaignId);

  beforeEach(async () => {
    merchant = t.merchant;
    ({ code, id: affiliateId } = await addAffiliate(t.db, merchant.campaignId));
  });

  describe('validation (spec §4.6, §10.6)', () => {
    async function expectInvalid(body: unknown, messages: string[]) {
      const reply = await send(body);
      expect(reply.status).to.equal(400);
      expect(reply.body).to.deep.equal({ statusCode: 400, message: messages, error: 'Bad Request' });
      expect(await counts()).to.deep.equal({ events: 0, conversions: 0, usage: 0 });
    }

    it('requires event_type, campaign_id and affiliate_id on every event', async () => {
      await expectInvalid({ events: [pageView(merchant.publicId, code), {}] }, [
        'events.1.event_type is required',
        'events.1.campaign_id is required',
        'events.1.affiliate_id is required',
      ]);
    });

    it('refuses an unknown event_type and a body without events', async () => {
      await expectInvalid({ events: [{ ...pageView(merchant.publicId, code), event_type: 'click' }] }, [
        'events.0.event_type must be one of the following values: conversion, lead, page_view',
      ]);
      await expectInvalid({ batch: true }, ['events is required']);
      await expectInvalid({ events: 'none' }, ['events must be an array']);
      await expectInvalid(undefined, ['body is required']);
    });

    it('requires properties, order_id and order_value on conversions', async () => {
      const { properties: _dropped, ...bare } = conversion(merchant.publicId, code, 'o-1', 10);
      await expectInvalid(
        {
          events: [bare, { ...bare, properties: { order_value: 10 } }, { ...bare, properties: { order_id: 'o-3' } }],
        },
        [
          'events.0.properties is required for conversion events',
          'events.1.properties.order_id is required for conversion events',
          'events.2.properties.order_value is required for conversion events',
        ],
      );
    });

    it('refuses an order_value that is not a positive number in the spec’s words, then says what exactly is wrong', async () => {
      const values = [0, -5, '10', null, 0.001, 1e11];
      await expectInvalid(
        { events: values.map((value, i) => conversion(merchant.publicId, code, `o-${i}`, value as number)) },
        [
          'events.0.properties.order_value must be a positive number',
          'events.1.properties.order_value must be a positive number',
          'events.2.properties.order_value must be a positive number',
          'events.2.properties.order_value must be a JSON number, not a string',
          'events.3.properties.order_value must be a positive number',
          'events.3.properties.order_value must be a JSON number, not null',
          'events.4.properties.order_value must be at least one centavo (0.01; 0.005 and above round up to it)',
          'events.5.properties.order_value must not be greater than 10000000000',
        ],
      );
    });

    it('refuses the whole batch when one event is invalid, naming its path', async () => {
      const events = [
        pageView(merchant.publicId, code),
        lead(merchant.publicId, code),
        conversion(merchant.publicId, code, 'o-1', 10),
        conversion(merchant.publicId, code, 'o-2', -1),
        conversion(merchant.publicId, code, 'o-3', 12),
      ];
      await expectInvalid({ batch: true, events }, ['events.3.properties.order_value must be a positive number']);
    });

    it('lists every failure of every event in one answer', async () => {
      await expectInvalid(
        {
          events: [
            { ...conversion(merchant.publicId, code, 'o-1', 0), session_id: 5 },
            { ...pageView(merchant.publicId, code), device_info: { screen_width: 'wide' } },
            { ...lead(merchant.publicId, code), properties: { timestamp: 'yesterday' } },
          ],
        },
        [
          'events.0.session_id must be a string',
          'events.0.properties.order_value must be a positive number',
          'events.1.device_info.screen_width must be a number',
          'events.2.properties.timestamp must be a valid ISO 8601 date-time',
        ],
      );
    });

    it('refuses unknown fields on the body and on events (spec §10.4)', async () => {
      await expectInvalid({ events: [{ ...pageView(merchant.publicId, code), id: 7 }], extra: true }, [
        'property events.0.id should not exist',
        'property extra should not exist',
      ]);
    });

    it('refuses a campaign_id other than the key campaign (spec §10.5)', async () => {
      const other = await createMerchant(t.db);
      await expectInvalid({ events: [pageView(merchant.publicId, code), pageView(other.publicId, code)] }, [
        `events.1.campaign_id must be the public id of the API key's campaign ("${merchant.publicId}")`,
      ]);
    });

    it('names a foreign campaign_id in the same answer as the schema’s failures, in the order of the events', async () => {
      const other = await createMerchant(t.db);
      await expectInvalid(
        {
          events: [
            { ...conversion(other.publicId, code, 'o-1', 0), session_id: '' },
            pageView(merchant.publicId, code),
            { ...lead(other.publicId, code), extra: 1 },
          ],
        },
        [
          'events.0.session_id must be at least 1 characters long',
          'events.0.properties.order_value must be a positive number',
          `events.0.campaign_id must be the public id of the API key's campaign ("${merchant.publicId}")`,
          'property events.2.extra should not exist',
          `events.2.campaign_id must be the public id of the API key's campaign ("${merchant.publicId}")`,
        ],
      );
      expect(await counts()).to.deep.equal({ events: 0, conversions: 0, usage: 0 });
    });

    it('refuses more than 1,000 events and bodies over 2 MiB', async () => {
      const many = Array.from({ length: 1001 }, () => pageView(merchant.publicId, code));
      await expectInvalid({ events: many }, ['events must contain at most 1000 elements']);

      const huge = {
        events: [{ ...pageView(merchant.publicId, code), properties: { blob: 'x'.repeat(2.1 * 2 ** 20) } }],
      };
      const reply = await send(huge);
      expect(reply.status).to.equal(413);
      expect(reply.body.error).to.equal('Payload Too Large');
      expect(await counts()).to.deep.equal({ events: 0, conversions: 0, usage: 0 });
    });

    it('answers an empty events array with 200 and stores nothing (spec §4.6.5)', async () => {
      const reply = await send({ events: [] });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({ success: true, received: 0, accepted: 0, skipped: [] });
    });
  });

  describe('keys (spec §5)', () => {
    it('answers 401 without a key and with an unknown key, 403 with a revoked one', async () => {
      const body = { events: [pageView(merchant.publicId, code)] };
      const none = await call(t.url, 'POST', '/v1/events', { body });
      expect([none.status, none.body.message]).to.deep.equal([401, MESSAGES.apiKeyRequired]);
      const unknown = await send(body, 'afk_unknownunknownunknownunknown12');
      expect([unknown.status, unknown.body.message]).to.deep.equal([401, MESSAGES.apiKeyInvalid]);
      const revoked = await createMerchant(t.db);
      await revokeKey(t.db, revoked.keyId);
      const refused = await send({ events: [pageView(revoked.publicId, code)] }, revoked.key);
      expect(refused.body).to.deep.equal({
        statusCode: 403,
        message: MESSAGES.apiKeyRevoked,
        error: 'Forbidden',
      });
    });
    it('refuses a key as soon as it is revoked when API_KEY_CACHE_MS is 0', async () => {
      const uncached = await startTestDaemon(t.database.url, { API_KEY_CACHE_MS: '0' });
      try {
        const body = { events: [pageView(merchant.publicId, code)] };
        const before = await call(uncached.url, 'POST', '/v1/events', { key: merchant.key, body });
        expect(before.status).to.equal(200);
        await revokeKey(t.db, merchant.keyId);
        const after = await call(uncached.url, 'POST', '/v1/events', { key: merchant.key, body });
        expect([after.status, after.body.message]).to.deep.equal([403, MESSAGES.apiKeyRevoked]);
        expect(await counts()).to.deep.equal({ events: 1, conversions: 0, usage: 0 });
      } finally {
        await uncached.close();
      }
    });
  });

  describe('storage (spec §4.6.2 to §4.6.4, §11)', () => {
    it('stores page views and leads without properties, with their session and device info', async () => {
      const reply = await send({
        events: [
          pageView(merchant.publicId, code, { session_id: 's-1', device_info: { language: 'pt-BR' } }),
          lead(merchant.publicId, code),
        ],
      });
      expect(reply.body).to.deep.equal({ success: true, received: 2, accepted: 2, skipped: [] });
      const rows = await t.db('tracking_events').orderBy('id').select();
      expect(rows.map((r) => [r.event_type, r.session_id, r.affiliate_id])).to.deep.equal([
        ['page_view', 's-1', affiliateId],
        ['lead', null, affiliateId],
      ]);
      expect(JSON.parse(rows[0]?.device_info ?? 'null')).to.deep.equal({ language: 'pt-BR' });
      expect(rows[1]?.properties).to.equal(null);
      expect(await counts()).to.deep.equal({ events: 2, conversions: 0, usage: 0 });
    });

    it('stores a conversion as pending with the campaign commission and its open properties', async () => {
      const reply = await send({
        events: [
          conversion(merchant.publicId, code.toLowerCase(), 'order-1', 199.99, {
            session_id: 'sess',
            properties: {
              order_id: 'order-1',
              order_value: 199.99,
              product: 'Pro',
              timestamp: '2026-11-02T08:30:00-03:00',
              coupon: 'BLACKFRIDAY',
            },
          }),
        ],
      });
      expect(reply.status).to.equal(200);
      expect(reply.body.accepted).to.equal(1);
      const [row] = await t.db('conversions').select();
      expect(row).to.include({
        affiliate_id: affiliateId,
        order_id: 'order-1',
        order_value_cents: 19999,
        commission_cents: 2000, // 10 % of 199.99, half up
        status: 'pending',
        payout_id: null,
      });
      expect(new Date(row?.occurred_at ?? 0).toISOString()).to.equal('2026-11-02T11:30:00.000Z');
      expect(JSON.parse(row?.properties ?? 'null')).to.include({ coupon: 'BLACKFRIDAY', product: 'Pro' });
      const [event] = await t.db('tracking_events').select();
      expect(Number(row?.tracking_event_id)).to.equal(Number(event?.id));
      expect(await counts()).to.deep.equal({ events: 1, conversions: 1, usage: 1 });
    });

    it('applies a fixed commission in centavos', async () => {
      const fixed = await createMerchant(t.db, { commission: { type: 'fixed', value: 7.5 } });
      const affiliate = await addAffiliate(t.db, fixed.campaignId);
      const reply = await send({ events: [conversion(fixed.publicId, affiliate.code, 'o', 1000)] }, fixed.key);
      expect(reply.body.accepted).to.equal(1);
      const [row] = await t.db('conversions').where('campaign_id', fixed.campaignId).select();
      expect([Number(row?.order_value_cents), Number(row?.commission_cents)]).to.deep.equal([100000, 750]);
    });

    it('stores a batch of 1,000 events with a handful of statements', async () => {
      const events = Array.from({ length: 1000 }, (_, i) =>
        i % 2 ? conversion(merchant.publicId, code, `o-${i}`, 10 + i) : pageView(merchant.publicId, code),
      );
      const statements: string[] = [];
      // The daemon's queues poll the same pool in the background (due webhook deliveries,
      // messages to fan out, payouts to send, mails, clicks to fold into the rollup): not this
      // request's.
      const background = ['webhook_deliveries', 'fanout_pending', 'payout_sends', 'mail_outbox', 'rollup_pending'];
      const count = (query: { sql: string }) => {
        if (!background.some((table) => query.sql.includes(table))) statements.push(query.sql.slice(0, 100));
      };
      t.daemon.db.on('query', count);
      try {
        const reply = await send({ batch: true, events });
        expect(reply.body).to.deep.equal({ success: true, received: 1000, accepted: 1000, skipped: [] });
      } finally {
        t.daemon.db.off('query', count);
      }
      expect(await counts()).to.deep.equal({ events: 1000, conversions: 500, usage: 500 });
      // Measured: key lookup and its lastUsedAt touch, usage row, BEGIN, affiliates (with their
      // parents), the campaign's commission rules (once a flush; groups only when an affiliate
      // has one), 2 event inserts (chunks of 500), read-back, usage reservation, conversion insert,
      // the report counters' upsert (one affiliate-day here, summed from what was inserted, not
      // read back), the campaign's own day counters for the dashboard's overview (one row a day
      // and daemon, docs/dashboard.md), the analytics rollup's upsert (docs/analytics.md, the same
      // way), the webhook outbox's look for subscribed endpoints, COMMIT = 16. None grows with
      // the batch.
      expect(statements.length, statements.join('\n')).to.be.at.most(16);
    });
  });

  describe('skipped events (spec §10.5, §10.7)', () => {
    it('skips unknown codes, codes of another campaign, and affiliates that are not active', async () => {
      const other = await createMerchant(t.db);
      const foreign = await addAffiliate(t.db, other.campaignId);
      const inactive = await addAffiliate(t.db, merchant.campaignId, { status: 'inactive' });
      const pending = await addAffiliate(t.db, merchant.campaignId, { status: 'pending' });
      const reply = await send({
        events: [
          pageView(merchant.publicId, 'NOSUCHCODE'),
          conversion(merchant.publicId, foreign.code, 'o-1', 10),
          lead(merchant.publicId, inactive.code),
          conversion(merchant.publicId, pending.code, 'o-2', 10),
          lead(merchant.publicId, code),
        ],
      });
      expect(reply.body).to.deep.equal({
        success: true,
        received: 5,
        accepted: 1,
        skipped: [
          { index: 0, reason: 'unknown_affiliate' },
          { index: 1, reason: 'unknown_affiliate' },
          { index: 2, reason: 'inactive_affiliate' },
          { index: 3, reason: 'inactive_affiliate' },
        ],
      });
      expect(await counts()).to.deep.equal({ events: 1, conversions: 0, usage: 0 });
      expect(await storedCounts(t.db, other.campaignId)).to.deep.equal({
        events: 0,
        conversions: 0,
        usage: 0,
      });
    });

    it('counts duplicates inside one batch once', async () => {
      const reply = await send({
        events: [
          conversion(merchant.publicId, code, 'o-1', 10),
          conversion(merchant.publicId, code, 'o-1', 99),
          pageView(merchant.publicId, code, { event_id: 'e-1' }),
          lead(merchant.publicId, code, { event_id: 'e-1' }),
        ],
      });
      expect(reply.body.skipped).to.deep.equal([
        { index: 1, reason: 'duplicate_order_id' },
        { index: 3, reason: 'duplicate_event_id' },
      ]);
      expect(await counts()).to.deep.equal({ events: 2, conversions: 1, usage: 1 });
      const [row] = await t.db('conversions').select('order_value_cents');
      expect(Number(row?.order_value_cents)).to.equal(1000);
    });

    it('skips an order_id or event_id stored by an earlier request', async () => {
      await send({
        events: [
          conversion(merchant.publicId, code, 'o-1', 10, { event_id: 'e-1' }),
          conversion(merchant.publicId, code, 'o-2', 10),
          pageView(merchant.publicId, code, { event_id: 'e-3' }),
        ],
      });
      const reply = await send({
        events: [
          conversion(merchant.publicId, code, 'o-1', 10, { event_id: 'e-1' }), // a replay
          conversion(merchant.publicId, code, 'o-2', 10, { event_id: 'e-new' }), // same order, new id
          conversion(merchant.publicId, code, 'o-new', 10, { event_id: 'e-3' }), // known id, new order
          pageView(merchant.publicId, code, { event_id: 'e-3' }),
          conversion(merchant.publicId, code, 'o-3', 10),
        ],
      });
      expect(reply.body).to.deep.equal({
        success: true,
        received: 5,
        accepted: 1,
        skipped: [
          { index: 0, reason: 'duplicate_event_id' },
          { index: 1, reason: 'duplicate_order_id' },
          { index: 2, reason: 'duplicate_event_id' },
          { index: 3, reason: 'duplicate_event_id' },
        ],
      });
      expect(await counts()).to.deep.equal({ events: 4, conversions: 3, usage: 3 });
    });

    it('keeps dedupe per campaign: the same order_id in two campaigns is two sales', async () => {
      const other = await createMerchant(t.db);
      const theirs = await addAffiliate(t.db, other.campaignId);
      await send({ events: [conversion(merchant.publicId, code, 'shared', 10)] });
      const reply = await send({ events: [conversion(other.publicId, theirs.code, 'shared', 10)] }, other.key);
      expect(reply.body.accepted).to.equal(1);
    });

    it('stores 1 of 50 concurrent requests carrying the same conversion', async () => {
      const body = { events: [conversion(merchant.publicId, code, 'race-1', 50)] };
      const replies = await Promise.all(Array.from({ length: 50 }, () => send(body)));
      expect(replies.map((r) => r.status)).to.deep.equal(Array(50).fill(200));
      expect(replies.filter((r) => r.body.accepted === 1)).to.have.length(1);
      const skipped = replies.flatMap((r) => r.body.skipped);
      expect(skipped).to.deep.equal(Array(49).fill({ index: 0, reason: 'duplicate_order_id' }));
      expect(await counts()).to.deep.equal({ events: 1, conversions: 1, usage: 1 });
    });
    it('stores every order once when 20 concurrent batches overlap in different orders', async () => {
      const orders = Array.from({ length: 40 }, (_, i) => `order-${i}`);
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, r) => {
          // Each batch: 30 of the 40 orders, rotated, so locks are taken in different orders.
          const batch = [...orders.slice(r * 2), ...orders.slice(0, r * 2)].slice(0, 30).reverse();
          return send({
            events: batch.map((order) => conversion(merchant.publicId, code, order, 10, { event_id: `e-${order}` })),
          });
        }),
      );
      expect(replies.map((r) => r.status)).to.deep.equal(Array(20).fill(200));
      expect(replies.reduce((sum, r) => sum + r.body.accepted, 0)).to.equal(40);
      expect(await counts()).to.deep.equal({ events: 40, conversions: 40, usage: 40 });
    });
  });

  describe('monthly conversion limit (spec §4.6.7, §10.8)', () => {
    let limited: Merchant;
    let limitedCode: string;
    let plan: string;

    beforeEach(async () => {
      limited = await createMerchant(t.db, { limits: { maxMonthlyConversions: 3 } });
      limitedCode = (await addAffiliate(t.db, limited.campaignId)).code;
      const [row] = await t
        .db('campaigns')
        .join('plans', 'plans.id', 'campaigns.plan_id')
        .where('campaigns.id', limited.campaignId)
        .select('plans.name');
      plan = row.name;
    });

    const sendLimited = (events: unknown[]) => send({ events }, limited.key);
    const limitedCounts = () => storedCounts(t.db, limited.campaignId);

    it('refuses a whole batch that would pass the limit, with the spec message', async () => {
      const first = await sendLimited([
        conversion(limited.publicId, limitedCode, 'o-1', 10),
        conversion(limited.publicId, limitedCode, 'o-2', 10),
      ]);
      expect(first.body.accepted).to.equal(2);

      const refused = await sendLimited([
        pageView(limited.publicId, limitedCode),
        conversion(limited.publicId, limitedCode, 'o-3', 10),
        conversion(limited.publicId, limitedCode, 'o-4', 10),
      ]);
      expect(refused.body).to.deep.equal({
        statusCode: 403,
        message: `Conversion limit exceeded: Monthly conversion limit reached for ${plan} plan. Current: 2/3`,
        error: 'Forbidden',
      });
      expect(await limitedCounts()).to.deep.equal({ events: 2, conversions: 2, usage: 2 });

      const last = await sendLimited([conversion(limited.publicId, limitedCode, 'o-3', 10)]);
      expect(last.body.accepted).to.equal(1);
      const full = await sendLimited([conversion(limited.publicId, limitedCode, 'o-4', 10)]);
      expect([full.status, full.body.message]).to.deep.equal([403, MESSAGES.conversionLimit(plan, 3, 3)]);
      expect(await limitedCounts()).to.deep.equal({ events: 3, conversions: 3, usage: 3 });
    });

    it('at the limit still takes page views, leads and duplicates of stored orders', async () => {
      await sendLimited(['o-1', 'o-2', 'o-3'].map((order) => conversion(limited.publicId, limitedCode, order, 10)));
      const reply = await sendLimited([
        pageView(limited.publicId, limitedCode),
        lead(limited.publicId, limitedCode),
        conversion(limited.publicId, limitedCode, 'o-2', 10),
        conversion(limited.publicId, 'UNKNOWN', 'o-9', 10),
      ]);
      expect(reply.status).to.equal(200);
      expect(reply.body.skipped).to.deep.equal([
        { index: 2, reason: 'duplicate_order_id' },
        { index: 3, reason: 'unknown_affiliate' },
      ]);
      expect(await limitedCounts()).to.deep.equal({ events: 5, conversions: 3, usage: 3 });
    });

    it('counts calendar months in UTC: last month at the limit does not block this one', async () => {
      const now = new Date();
      const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15));
      await t.db('monthly_usage').insert({
        campaign_id: limited.campaignId,
        month: lastMonth.toISOString().slice(0, 7),
        conversions: 3,
      });
      const reply = await sendLimited([conversion(limited.publicId, limitedCode, 'o-1', 10)]);
      expect(reply.body.accepted).to.equal(1);
      const [row] = await t
        .db('monthly_usage')
        .where({ campaign_id: limited.campaignId, month: now.toISOString().slice(0, 7) })
        .sum({ n: 'conversions' });
      expect(Number(row?.n)).to.equal(1);
    });

    it('lets exactly 1 of 50 concurrent conversions take the last slot', async () => {
      await sendLimited([
        conversion(limited.publicId, limitedCode, 'o-1', 10),
        conversion(limited.publicId, limitedCode, 'o-2', 10),
      ]);
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) => sendLimited([conversion(limited.publicId, limitedCode, `race-${i}`, 10)])),
      );
      const statuses = replies.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).to.have.length(1);
      expect(statuses.filter((s) => s === 403)).to.have.length(49);
      for (const reply of replies.filter((r) => r.status === 403)) {
        expect(reply.body.message).to.equal(MESSAGES.conversionLimit(plan, 3, 3));
      }
      expect(await limitedCounts()).to.deep.equal({ events: 3, conversions: 3, usage: 3 });
    });
  });
});
