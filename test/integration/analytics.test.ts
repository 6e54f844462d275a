import { expect } from 'chai';
import { servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion, lead, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';

describe(`GET /v1/analytics and /v1/analytics/funnel (${ENGINE})`, () => {
  const t = useTestDaemon();
  let ana: { id: number; code: string };
  let bia: { id: number; code: string };

  const at = (timestamp: string) => ({ properties: { timestamp } });
  const send = (events: unknown[]) => call(t.url, 'POST', '/v1/events', { key: t.merchant.key, body: { events } });
  const sale = (code: string, order: string, value: number, timestamp: string) =>
    conversion(t.merchant.publicId, code, order, value, {
      properties: { order_id: order, order_value: value, timestamp },
    });
  const analytics = async (query: string, key = t.merchant.key) => {
    const reply = await call(t.url, 'GET', `/v1/analytics?${query}`, { key });
    expect(reply.status, reply.text).to.equal(200);
    return reply.body;
  };

  beforeEach(async () => {
    ana = await addAffiliate(t.db, t.merchant.campaignId);
    bia = await addAffiliate(t.db, t.merchant.campaignId);
  });

  it('cuts days at São Paulo’s midnight, exact money in the campaign’s currency', async () => {
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { currency: 'USD' });
    const reply = await send([
      // 02:59Z on the 2nd is still the 1st in São Paulo (UTC-3); 03:00Z is the 2nd.
      sale(ana.code, 'o-1', 0.1, '2026-11-02T02:59:59.999Z'),
      sale(ana.code, 'o-2', 0.2, '2026-11-02T02:00:00.000Z'),
      sale(bia.code, 'o-3', 1000.07, '2026-11-02T03:00:00.000Z'),
      pageView(t.merchant.publicId, ana.code, at('2026-11-01T03:00:00.000Z')),
    ]);
    expect(reply.body).to.include({ accepted: 4 });
    const body = await analytics(
      'metrics=page_views,conversions,revenue&from=2026-11-01&to=2026-11-02&timezone=America/Sao_Paulo',
    );
    expect(body).to.deep.include({ currency: 'USD', interval: 'day', timezone: 'America/Sao_Paulo' });
    expect(body.series).to.deep.equal([
      {
        group: null,
        points: [
          { start: '2026-11-01T00:00:00-03:00', page_views: 1, conversions: 2, revenue: 0.3 },
          { start: '2026-11-02T00:00:00-03:00', page_views: 0, conversions: 1, revenue: 1000.07 },
        ],
      },
    ]);
    expect(body.totals).to.deep.equal({ page_views: 1, conversions: 3, revenue: 1000.37 });
    // In UTC the same sales fall on the 2nd.
    const utc = await analytics('metrics=conversions&from=2026-11-01&to=2026-11-02');
    expect(utc.series[0].points.map((p: { conversions: number }) => p.conversions)).to.deep.equal([0, 3]);
  });

  it('a day across a DST change is 25 hours in New York; months sum their days; groups by affiliate', async () => {
    // 2026-11-01 is the day New York falls back (EDT -4 → EST -5): its local day is 04:00Z to 05:00Z next day.
    await send([
      lead(t.merchant.publicId, ana.code, at('2026-11-01T04:00:00.000Z')),
      lead(t.merchant.publicId, bia.code, at('2026-11-02T04:30:00.000Z')),
      lead(t.merchant.publicId, ana.code, at('2026-11-02T05:00:00.000Z')),
      lead(t.merchant.publicId, ana.code, at('2026-10-31T23:00:00.000Z')),
      lead(t.merchant.publicId, bia.code, at('2026-12-01T04:59:00.000Z')),
    ]);
    const days = await analytics('metrics=leads&from=2026-10-31&to=2026-11-30&timezone=America/New_York');
    const points = days.series[0].points as { start: string; leads: number }[];
    expect(points[1]).to.deep.equal({ start: '2026-11-01T00:00:00-04:00', leads: 2 });
    expect(points[2]).to.deep.equal({ start: '2026-11-02T00:00:00-05:00', leads: 1 });
    expect(points[0]).to.deep.equal({ start: '2026-10-31T00:00:00-04:00', leads: 1 });
    expect(points[30]).to.deep.equal({ start: '2026-11-30T00:00:00-05:00', leads: 1 });
    const hours = await analytics(
      'metrics=leads&interval=hour&from=2026-11-01&to=2026-11-01&timezone=America/New_York',
    );
    expect(hours.series[0].points).to.have.length(25);
    expect(hours.series[0].points[1].start).to.equal('2026-11-01T01:00:00-04:00');
    expect(hours.series[0].points[2].start).to.equal('2026-11-01T01:00:00-05:00');
    const months = await analytics(
      'metrics=leads&interval=month&from=2026-10-31&to=2026-11-30&timezone=America/New_York',
    );
    expect(months.series[0].points).to.deep.equal([
      { start: '2026-10-31T00:00:00-04:00', leads: 1 },
      { start: '2026-11-01T00:00:00-04:00', leads: 4 },
    ]);
    const sum = (list: { leads: number }[]) => list.reduce((total, p) => total + p.leads, 0);
    expect(sum(months.series[0].points)).to.equal(sum(points));
    const byAffiliate = await analytics(
      'metrics=leads&interval=month&from=2026-11-01&to=2026-11-30&timezone=America/New_York&groupBy=affiliate',
    );
    expect(byAffiliate.series).to.deep.equal(
      [
        { group: ana.code, points: [{ start: '2026-11-01T00:00:00-04:00', leads: 2 }] },
        { group: bia.code, points: [{ start: '2026-11-01T00:00:00-04:00', leads: 2 }] },
      ].sort((a, b) => (a.group < b.group ? -1 : 1)),
    );
  });

  it('counts clicks by device and referrer, bots apart, and the funnel’s rates', async () => {
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { siteUrl: 'https://shop.example/' });
    const click = (agent: string, referer?: string) =>
      call(t.url, 'GET', `/r/${t.merchant.publicId}/${ana.code}`, {
        headers: { 'user-agent': agent, ...(referer ? { referer } : {}) },
      });
    const desktop = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
    const phone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
    for (let i = 0; i < 3; i++) await click(desktop, 'https://blog.example/');
    await click(phone);
    await click('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)');
    await send([
      lead(t.merchant.publicId, ana.code),
      lead(t.merchant.publicId, ana.code),
      sale(ana.code, 'o-1', 10, new Date().toISOString()),
    ]);
    const devices = await analytics('metrics=clicks,bot_clicks&interval=month&groupBy=device');
    const byGroup = Object.fromEntries(
      (devices.series as { group: string; points: { clicks: number; bot_clicks: number }[] }[]).map((s) => [
        s.group,
        [s.points.reduce((n, p) => n + p.clicks, 0), s.points.reduce((n, p) => n + p.bot_clicks, 0)],
      ]),
    );
    expect(byGroup).to.deep.equal({ desktop: [3, 0], mobile: [1, 0], bot: [0, 1] });
    const referrers = await analytics('metrics=clicks&interval=month&groupBy=referrer');
    expect(referrers.series.map((s: { group: string }) => s.group)).to.include('blog.example');
    const funnel = await call(t.url, 'GET', '/v1/analytics/funnel', { key: t.merchant.key });
    expect(funnel.body).to.deep.include({
      clicks: 4,
      leads: 2,
      conversions: 1,
      clickToLead: 0.5,
      leadToConversion: 0.5,
      clickToConversion: 0.25,
    });
  });

  it('answers only the key’s campaign', async () => {
    const other = await servicesFor(t.db).campaigns.create({ name: 'Other', plan: 'unlimited' });
    const theirKey = await servicesFor(t.db).apiKeys.create({ campaign: other.id, name: 'x' });
    await send([lead(t.merchant.publicId, ana.code, at('2026-11-05T12:00:00.000Z'))]);
    const theirs = await analytics('metrics=leads&from=2026-11-01&to=2026-11-30&interval=month', theirKey.key);
    expect(theirs.totals).to.deep.equal({ leads: 0 });
    const ours = await analytics('metrics=leads&from=2026-11-01&to=2026-11-30&interval=month');
    expect(ours.totals).to.deep.equal({ leads: 1 });
  });

  it('refuses bad input with the spec’s 400', async () => {
    const cases: [string, string][] = [
      [
        'metrics=clicks,visits',
        'metrics must be a comma-separated list of clicks, bot_clicks, page_views, leads, conversions, revenue, commissions',
      ],
      [
        'timezone=Mars/Olympus',
        'timezone must be an IANA time zone name such as America/Sao_Paulo or UTC (got "Mars/Olympus")',
      ],
      ['from=2026-11-10&to=2026-11-01', 'from must not be after to'],
      [
        'interval=hour&from=2026-01-01&to=2026-03-01',
        'the range holds more than 744 hours: ask for a shorter range or a longer interval',
      ],
      [
        'timezone=Asia/Kolkata',
        'timezone Asia/Kolkata is not a whole number of hours from UTC in this range: analytics count by UTC hour, so ask in a zone with whole-hour offsets (or UTC)',
      ],
      ['groupBy=planet', 'groupBy must be one of'],
    ];
    for (const [query, message] of cases) {
      const reply = await call(t.url, 'GET', `/v1/analytics?${query}`, { key: t.merchant.key });
      expect(reply.status, query).to.equal(400);
      expect(reply.body.error).to.equal('Bad Request');
      expect([reply.body.message].flat().join('\n'), query).to.contain(message);
    }
  });
});
