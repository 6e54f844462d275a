import { expect } from 'chai';
import { insertClicks, type NewClick } from '../../server/repositories/clicks.js';
import { newClickId } from '../../server/services/clicks/clickId.js';
import { eventsRetention } from '../../server/services/retention.js';
import { servicesFor, testConfig, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion, lead, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';

const DAY_MS = 86_400_000;

describe(`EVENTS_RETENTION_DAYS (${ENGINE})`, () => {
  const t = useTestDaemon();

  /** The retention job of a daemon configured with 30 days, whose clock is `days` ahead. */
  const retentionIn = (days: number, retentionDays = '30') =>
    eventsRetention({
      db: t.db,
      config: testConfig('sqlite::memory:', { EVENTS_RETENTION_DAYS: retentionDays }),
      now: () => new Date(Date.now() + days * DAY_MS),
    });
  const report = async () => {
    const reply = await call(t.url, 'GET', '/v1/reports/affiliates', { key: t.merchant.key });
    expect(reply.status, reply.text).to.equal(200);
    return reply.body;
  };
  const count = async (table: string, where: Record<string, unknown> = {}) =>
    Number((await t.db(table).where(where).count({ n: '*' }).first())?.n ?? 0);

  it('deletes old page views and clicks in batches, keeps leads, sales and every total', async () => {
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { siteUrl: 'https://shop.example/' });
    const { code } = await addAffiliate(t.db, t.merchant.campaignId);
    // More than one batch of each (500).
    for (let i = 0; i < 3; i++) {
      const views = Array.from({ length: 400 }, (_, j) =>
        pageView(t.merchant.publicId, code, { event_id: `v${i}-${j}` }),
      );
      expect(
        (await call(t.url, 'POST', '/v1/events', { key: t.merchant.key, body: { events: views } })).status,
      ).to.equal(200);
    }
    const sales = await call(t.url, 'POST', '/v1/events', {
      key: t.merchant.key,
      body: { events: [lead(t.merchant.publicId, code), conversion(t.merchant.publicId, code, 'o-1', 120)] },
    });
    expect(sales.body).to.include({ accepted: 2 });
    await Promise.all(Array.from({ length: 30 }, () => call(t.url, 'GET', `/r/${t.merchant.publicId}/${code}`)));
    const totals = await report();
    const clicksCounted = async () => {
      const reply = await call(t.url, 'GET', '/v1/analytics?metrics=clicks,bot_clicks&interval=day', {
        key: t.merchant.key,
      });
      expect(reply.status, reply.text).to.equal(200);
      return reply.body.totals;
    };
    // Read once: the read folds the clicks into the rollup, so none is pending any more. A
    // request that names no user agent counts as a bot's.
    expect(await clicksCounted()).to.deep.equal({ clicks: 0, bot_clicks: 30 });

    // Within the days kept, nothing goes.
    expect(await retentionIn(29).run(new AbortController().signal)).to.deep.equal({ clicks: 0, pageViews: 0 });
    expect(await count('tracking_events')).to.equal(1202);

    const run = await retentionIn(31).run(new AbortController().signal);
    expect(run).to.deep.equal({ clicks: 30, pageViews: 1200 });
    expect(await count('clicks')).to.equal(0);
    expect(await count('tracking_events', { event_type: 'page_view' })).to.equal(0);
    expect(await count('tracking_events')).to.equal(2);
    expect(await count('conversions')).to.equal(1);
    // The report reads its daily counters, the analytics their rollup: the same totals as before.
    expect(await report()).to.deep.equal(totals);
    expect(await clicksCounted()).to.deep.equal({ clicks: 0, bot_clicks: 30 });
  });

  it('keeps an old click the rollup has not counted yet, until it is folded in', async () => {
    const { id: affiliateId } = await addAffiliate(t.db, t.merchant.campaignId);
    const at = new Date();
    const click: NewClick = {
      id: newClickId(at),
      campaignId: t.merchant.campaignId,
      affiliateId,
      createdAt: at,
      bot: false,
      device: 'desktop',
      browser: 'Firefox',
      os: 'Linux',
      country: null,
      referrer: null,
      utm: { utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null },
    };
    // This daemon's periodic fold is paused, so the click stays pending as long as the test says.
    const fold = t.daemon.services.jobs.workers.find((worker) => worker.name === 'click-rollup-fold');
    if (!fold) throw new Error('the daemon runs no click fold');
    await fold.stop();
    try {
      // As the click writer stores it, pending for the fold.
      await t.db.transaction((trx) => insertClicks(trx, [click], true));
      expect(await retentionIn(31).run(new AbortController().signal)).to.deep.equal({ clicks: 0, pageViews: 0 });
      expect(await count('clicks')).to.equal(1);
    } finally {
      fold.start();
    }
    await servicesFor(t.db).clicks.fold.campaign(t.merchant.campaignId);
    expect(await retentionIn(31).run(new AbortController().signal)).to.deep.equal({ clicks: 1, pageViews: 0 });
    expect(await count('clicks')).to.equal(0);
  });

  it('is off unless set, and stops between batches when the daemon stops', async () => {
    expect(retentionIn(0).enabled).to.equal(true);
    const off = eventsRetention({ db: t.db, config: testConfig('sqlite::memory:'), now: () => new Date() });
    expect(off.enabled).to.equal(false);
    const { code } = await addAffiliate(t.db, t.merchant.campaignId);
    const views = Array.from({ length: 600 }, () => pageView(t.merchant.publicId, code));
    await call(t.url, 'POST', '/v1/events', { key: t.merchant.key, body: { events: views } });
    const stop = new AbortController();
    stop.abort();
    expect(await retentionIn(31).run(stop.signal)).to.deep.equal({ clicks: 0, pageViews: 0 });
    expect(await count('tracking_events')).to.equal(600);
  });

  it('refuses a retention that is not a number of days', () => {
    expect(() => testConfig('sqlite::memory:', { EVENTS_RETENTION_DAYS: '0' })).to.throw(/EVENTS_RETENTION_DAYS/);
    expect(() => testConfig('sqlite::memory:', { EVENTS_RETENTION_DAYS: 'month' })).to.throw(/EVENTS_RETENTION_DAYS/);
  });
});
