import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import { createMerchant, type Merchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion, lead, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';

const DAY_MS = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
const at = (day: string) => ({ properties: { timestamp: `${day}T12:00:00.000Z` } });

describe(`GET /v1/reports/affiliates (${ENGINE})`, () => {
  const t = useTestDaemon();
  let merchant: Merchant;

  const send = (events: object[], key = merchant.key) => call(t.url, 'POST', '/v1/events', { key, body: { events } });
  const report = (query = '', key = merchant.key) => call(t.url, 'GET', `/v1/reports/affiliates${query}`, { key });

  beforeEach(async () => {
    merchant = await createMerchant(t.db, { commission: { type: 'percent', value: 12.5 } });
  });

  it('counts page views, leads and conversions per affiliate, with revenue and commissions to the centavo', async () => {
    const maria = await addAffiliate(t.db, merchant.campaignId, { code: 'MARIA10' });
    const joao = await addAffiliate(t.db, merchant.campaignId, { code: 'JOAO' });
    await addAffiliate(t.db, merchant.campaignId, { code: 'IDLE' });
    const reply = await send([
      pageView(merchant.publicId, 'maria10'),
      pageView(merchant.publicId, 'MARIA10'),
      pageView(merchant.publicId, 'MARIA10'),
      pageView(merchant.publicId, 'MARIA10'),
      lead(merchant.publicId, 'MARIA10'),
      conversion(merchant.publicId, 'MARIA10', 'o-1', 0.1),
      conversion(merchant.publicId, 'MARIA10', 'o-2', 0.2),
      conversion(merchant.publicId, 'MARIA10', 'o-3', 19.99),
      pageView(merchant.publicId, 'JOAO'),
      conversion(merchant.publicId, 'JOAO', 'o-4', 1000.05),
      // Not stored, so not counted: a duplicate order and an unknown code.
      conversion(merchant.publicId, 'JOAO', 'o-4', 5),
      pageView(merchant.publicId, 'NOBODY'),
    ]);
    expect(reply.body).to.include({ accepted: 10 });

    const answer = await report();
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({
      from: daysAgo(29),
      to: today(),
      affiliates: [
        {
          affiliateId: joao.id,
          referralId: 'JOAO',
          name: null,
          pageViews: 1,
          leads: 0,
          conversions: 1,
          conversionRate: 1,
          revenue: 1000.05,
          // 12.5 % of 100005 centavos = 12500.625, half up
          commissions: 125.01,
        },
        {
          affiliateId: maria.id,
          referralId: 'MARIA10',
          name: null,
          pageViews: 4,
          leads: 1,
          conversions: 3,
          conversionRate: 0.75,
          revenue: 20.29,
          // 1.25 + 2.5 + 249.875 centavos, each half up: 1 + 3 + 250
          commissions: 2.54,
        },
      ],
      totals: {
        pageViews: 5,
        leads: 1,
        conversions: 4,
        conversionRate: 0.8,
        revenue: 1020.34,
        commissions: 127.55,
      },
    });
  });

  it('takes the range from the events’ days, both ends included, and checks it', async () => {
    const { code } = await addAffiliate(t.db, merchant.campaignId);
    await send([
      pageView(merchant.publicId, code, at('2026-03-01')),
      pageView(merchant.publicId, code, at('2026-03-02')),
      pageView(merchant.publicId, code, at('2026-03-02')),
      pageView(merchant.publicId, code, at('2026-03-05')),
      conversion(merchant.publicId, code, 'o-1', 10, {
        properties: { order_id: 'o-1', order_value: 10, timestamp: '2026-03-03T23:59:59.999Z' },
      }),
    ]);
    const pageViews = async (query: string) => {
      const answer = await report(query);
      expect(answer.status, answer.text).to.equal(200);
      return { from: answer.body.from, to: answer.body.to, ...answer.body.totals };
    };
    expect(await pageViews('?from=2026-03-02&to=2026-03-03')).to.deep.equal({
      from: '2026-03-02',
      to: '2026-03-03',
      pageViews: 2,
      leads: 0,
      conversions: 1,
      conversionRate: 0.5,
      revenue: 10,
      commissions: 1.25,
    });
    // A date-time counts for its UTC day; `to` alone reaches back 30 days.
    expect(await pageViews('?to=2026-03-31T22:00:00-03:00')).to.include({
      from: '2026-03-03',
      to: '2026-04-01',
      pageViews: 1,
    });
    expect(await pageViews('?from=2026-03-05&to=2026-03-05')).to.include({ pageViews: 1, conversions: 0 });
    // No activity in the range: no rows, zero totals, no rate.
    const empty = await report('?from=2025-01-01&to=2025-01-31');
    expect(empty.body).to.deep.equal({
      from: '2025-01-01',
      to: '2025-01-31',
      affiliates: [],
      totals: { pageViews: 0, leads: 0, conversions: 0, conversionRate: null, revenue: 0, commissions: 0 },
    });
  });

  it('answers bad ranges with 400 and the spec’s error body', async () => {
    const cases: Array<[string, string[]]> = [
      ['?from=yesterday', ['from must be a valid ISO 8601 date (YYYY-MM-DD)']],
      ['?from=2026-02-30', ['from must be a valid ISO 8601 date (YYYY-MM-DD)']],
      ['?from=2026-03-05&to=2026-03-01', [MESSAGES.rangeReversed('2026-03-05', '2026-03-01')]],
      ['?days=7', ['property days should not exist']],
    ];
    for (const [query, message] of cases) {
      const answer = await report(query);
      expect(answer.body, query).to.deep.equal({ statusCode: 400, message, error: 'Bad Request' });
    }
    expect((await report('', '')).body).to.deep.equal({
      statusCode: 401,
      message: MESSAGES.apiKeyRequired,
      error: 'Unauthorized',
    });
  });

  it('shows only the key’s campaign, and forgets a deleted affiliate', async () => {
    const other = await createMerchant(t.db);
    const theirs = await addAffiliate(t.db, other.campaignId);
    const ours = await addAffiliate(t.db, merchant.campaignId);
    await send([pageView(other.publicId, theirs.code)], other.key);
    await send([pageView(merchant.publicId, ours.code)]);
    const rows = (await report()).body.affiliates;
    expect(rows.map((row: { affiliateId: number }) => row.affiliateId)).to.deep.equal([ours.id]);

    const deleted = await call(t.url, 'DELETE', `/v1/affiliates/${ours.id}`, { key: merchant.key });
    expect(deleted.status).to.equal(200);
    expect((await report()).body.affiliates).to.deep.equal([]);
  });

  it('sums thousands of awkward amounts exactly, as the conversions table does', async () => {
    const affiliates = [
      await addAffiliate(t.db, merchant.campaignId),
      await addAffiliate(t.db, merchant.campaignId),
      await addAffiliate(t.db, merchant.campaignId),
    ];
    for (let batch = 0; batch < 3; batch++) {
      const events = Array.from({ length: 1000 }, (_, i) => {
        const n = batch * 1000 + i;
        const { code } = affiliates[n % 3] ?? { code: '' };
        // 0.01 .. 9.99 and a few large values: float sums of these drift, centavo sums do not.
        const value = n % 97 === 0 ? 9_876_543.21 : ((n * 37) % 999) / 100 + 0.01;
        return conversion(merchant.publicId, code, `order-${n}`, value);
      });
      expect((await send(events)).body).to.include({ accepted: 1000 });
    }
    const truth: Record<string, number | string>[] = await t
      .db('conversions')
      .where('campaign_id', merchant.campaignId)
      .groupBy('affiliate_id')
      .select('affiliate_id')
      .count({ n: '*' })
      .sum({ revenue: 'order_value_cents' })
      .sum({ commissions: 'commission_cents' });
    const answer = (await report()).body;
    expect(answer.affiliates).to.have.length(3);
    for (const row of truth) {
      const shown = answer.affiliates.find((a: { affiliateId: number }) => a.affiliateId === Number(row.affiliate_id));
      expect(shown).to.include({
        conversions: Number(row.n),
        revenue: Number(row.revenue) / 100,
        commissions: Number(row.commissions) / 100,
      });
    }
    const cents = (field: 'revenue' | 'commissions') => truth.reduce((sum, row) => sum + Number(row[field]), 0) / 100;
    expect(answer.totals).to.include({
      conversions: 3000,
      revenue: cents('revenue'),
      commissions: cents('commissions'),
    });
  });

  it('counts a full batch that touches more affiliate-days than one statement may insert', async () => {
    const codes: string[] = [];
    for (let i = 0; i < 40; i++) codes.push((await addAffiliate(t.db, merchant.campaignId)).code);
    // 40 affiliates × 25 days: 1,000 events, each its own counter row.
    const events = Array.from({ length: 1000 }, (_, n) =>
      pageView(
        merchant.publicId,
        codes[n % 40] ?? '',
        at(`2026-01-${String(1 + Math.floor(n / 40)).padStart(2, '0')}`),
      ),
    );
    expect((await send(events)).body).to.include({ accepted: 1000 });
    const answer = (await report('?from=2026-01-01&to=2026-01-31')).body;
    expect(answer.affiliates).to.have.length(40);
    expect(answer.totals).to.include({ pageViews: 1000 });
    for (const row of answer.affiliates) expect(row.pageViews).to.equal(25);
  });

  it('loses no count to concurrent requests for the same affiliate and day', async () => {
    const { id, code } = await addAffiliate(t.db, merchant.campaignId);
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        send(
          i % 4 === 0
            ? [conversion(merchant.publicId, code, `race-${i}`, 0.01 * (i + 1))]
            : [pageView(merchant.publicId, code), lead(merchant.publicId, code)],
        ),
      ),
    );
    for (const reply of replies) expect(reply.status, reply.text).to.equal(200);
    const [row] = (await report()).body.affiliates;
    // 10 conversions of 0.01, 0.05, ..., 0.37: 190 centavos.
    expect(row).to.deep.include({ affiliateId: id, pageViews: 30, leads: 30, conversions: 10, revenue: 1.9 });
  });
});
