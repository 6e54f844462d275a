import { expect } from 'chai';
import { servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion, lead, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';

const DAY_MS = 86_400_000;
const COOKIE_DAYS = 7;

describe(`attribution by click: windows and models (${ENGINE})`, () => {
  const t = useTestDaemon();
  let ana: { id: number; code: string };
  let bia: { id: number; code: string };

  /** Follows a referral link as a browser would, and answers the click id the site got. */
  const click = async (code: string): Promise<string> => {
    const reply = await call(t.url, 'GET', `/r/${t.merchant.publicId}/${code}`, {
      headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' },
    });
    const id = new URL(String(reply.headers.location)).searchParams.get('click_id');
    if (id === null) throw new Error(`no click id: ${reply.status}`);
    // Click ids sort by their millisecond: the next click is a later one.
    await new Promise((resolve) => setTimeout(resolve, 3));
    return id;
  };
  const send = (events: unknown[], key = t.merchant.key) =>
    call(t.url, 'POST', '/v1/events', { key, body: { events } });
  const later = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();
  const conversions = () =>
    t
      .db('conversions')
      .where('campaign_id', t.merchant.campaignId)
      .orderBy('id')
      .select('order_id', 'affiliate_id', 'click_id');

  beforeEach(async () => {
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { siteUrl: 'https://shop.example/' });
    await t.db('campaigns').where('id', t.merchant.campaignId).update({ cookie_days: COOKIE_DAYS });
    ana = await addAffiliate(t.db, t.merchant.campaignId);
    bia = await addAffiliate(t.db, t.merchant.campaignId);
  });

  it('a sale naming a click counts for that click’s affiliate within cookieDays, and is skipped after', async () => {
    const clickId = await click(ana.code);
    const reply = await send([
      // The code names Bia, the click is Ana's: the click decides.
      conversion(t.merchant.publicId, bia.code, 'o-1', 100, { click_id: clickId }),
      conversion(t.merchant.publicId, ana.code, 'o-2', 100, {
        click_id: clickId,
        properties: { order_id: 'o-2', order_value: 100, timestamp: later(COOKIE_DAYS - 0.5) },
      }),
      conversion(t.merchant.publicId, ana.code, 'o-3', 100, {
        click_id: clickId,
        properties: { order_id: 'o-3', order_value: 100, timestamp: later(COOKIE_DAYS + 0.5) },
      }),
      lead(t.merchant.publicId, ana.code, { click_id: clickId, properties: { timestamp: later(COOKIE_DAYS + 1) } }),
    ]);
    expect(reply.status, reply.text).to.equal(200);
    expect(reply.body).to.deep.equal({
      success: true,
      received: 4,
      accepted: 2,
      skipped: [
        { index: 2, reason: 'attribution_expired' },
        { index: 3, reason: 'attribution_expired' },
      ],
    });
    expect(await conversions()).to.deep.equal([
      { order_id: 'o-1', affiliate_id: ana.id, click_id: clickId },
      { order_id: 'o-2', affiliate_id: ana.id, click_id: clickId },
    ]);
  });

  it('a click id nobody made, or another campaign’s, leaves the code to decide', async () => {
    const other = await servicesFor(t.db).campaigns.create({ name: 'Other', plan: 'unlimited' });
    await servicesFor(t.db).campaigns.update(other.id, { siteUrl: 'https://other.example/' });
    const theirs = await addAffiliate(t.db, other.id);
    const reply = await call(t.url, 'GET', `/r/${other.publicId}/${theirs.code}`);
    const foreign = new URL(String(reply.headers.location)).searchParams.get('click_id');
    const answer = await send([
      conversion(t.merchant.publicId, bia.code, 'o-1', 10, { click_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }),
      conversion(t.merchant.publicId, bia.code, 'o-2', 10, { click_id: foreign }),
    ]);
    expect(answer.body).to.include({ accepted: 2 });
    expect(await conversions()).to.deep.equal([
      { order_id: 'o-1', affiliate_id: bia.id, click_id: null },
      { order_id: 'o-2', affiliate_id: bia.id, click_id: null },
    ]);
  });

  it('refuses a malformed click id with the spec’s 400', async () => {
    const reply = await send([lead(t.merchant.publicId, ana.code, { click_id: 'not-a-click' })]);
    expect(reply.status).to.equal(400);
    expect(reply.body).to.deep.equal({
      statusCode: 400,
      message: ['events.0.click_id must be a click id as a referral link hands it to the site (26 letters and digits)'],
      error: 'Bad Request',
    });
  });

  for (const model of ['last_click', 'first_click'] as const) {
    it(`${model}: one customer's clicks of two affiliates, the ${model === 'last_click' ? 'later' : 'earlier'} earns`, async () => {
      if (model === 'first_click')
        await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { attribution: model });
      const first = await click(ana.code);
      const second = await click(bia.code);
      // The tracking script reports each landing with its click and the browser's session.
      const seen = await call(t.url, 'POST', '/v1/sdk/events', {
        body: {
          events: [
            pageView(t.merchant.publicId, ana.code, { session_id: 'visitor-1', click_id: first }),
            pageView(t.merchant.publicId, bia.code, { session_id: 'visitor-1', click_id: second }),
          ],
        },
      });
      expect(seen.body).to.include({ accepted: 2 });
      // The sale comes from the backend with the session and the cookie's code (Bia's, the last).
      const sale = await send([conversion(t.merchant.publicId, bia.code, 'o-1', 50, { session_id: 'visitor-1' })]);
      expect(sale.body).to.include({ accepted: 1 });
      const winner = model === 'last_click' ? { id: bia.id, click: second } : { id: ana.id, click: first };
      expect(await conversions()).to.deep.equal([{ order_id: 'o-1', affiliate_id: winner.id, click_id: winner.click }]);
      // Another visitor's session knows none of these clicks: the code decides.
      await send([conversion(t.merchant.publicId, bia.code, 'o-2', 50, { session_id: 'visitor-2' })]);
      expect((await conversions())[1]).to.deep.equal({ order_id: 'o-2', affiliate_id: bia.id, click_id: null });
    });
  }
});
