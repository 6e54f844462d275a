import { expect } from 'chai';
import type { Browser, BrowserContext, Cookie, Page, Request } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { type Merchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { type Shop, startShop } from '../helpers/shop.js';

const COOKIE_DAYS = 7;

/** `window.affiliated` as pages see it (the callbacks below run in the browser, not in Node). */
interface Tracker {
  referral: string | null;
  track(type: string, properties?: Record<string, unknown>): Promise<boolean>;
  ready(callback: (api: Tracker) => void): void;
}
declare const window: { affiliated: Tracker };

/** Polls until `check` stops throwing: the page view is sent after the page is ready. */
async function eventually<T>(check: () => Promise<T>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe(`the tracking script in Chromium, shop and daemon on different origins (${ENGINE})`, () => {
  const t = useTestDaemon();
  let browser: Browser;
  let merchant: Merchant;
  let shop: Shop;
  let context: BrowserContext;
  let page: Page;
  let requests: Request[];
  let daemonOrigin: string;
  const affiliates: Record<string, number> = {};

  const report = async () => {
    const answer = await call(t.url, 'GET', '/v1/reports/affiliates', { key: merchant.key });
    expect(answer.status, answer.text).to.equal(200);
    return answer.body as {
      affiliates: { referralId: string; pageViews: number; leads: number; conversions: number; revenue: number }[];
    };
  };
  const rowOf = async (code: string) => (await report()).affiliates.find((row) => row.referralId === code);
  const events = async () =>
    (await t.db('tracking_events').where('campaign_id', merchant.campaignId).orderBy('id').select('*')).map((row) => ({
      ...row,
      properties: JSON.parse(row.properties ?? 'null'),
      device_info: JSON.parse(row.device_info ?? 'null'),
    }));
  const refCookie = async (): Promise<Cookie | undefined> =>
    (await context.cookies()).find((c) => c.name === 'affiliated_ref');
  /** Opens a shop page and waits until the script has decided on the referral. */
  const visit = async (path: string) => {
    await page.goto(`${shop.url}${path}`);
    return page.evaluate(
      () => new Promise<string | null>((resolve) => window.affiliated.ready((api) => resolve(api.referral))),
    );
  };
  const sdkCalls = (path: string) => requests.filter((r) => new URL(r.url()).pathname.endsWith(path));

  before(async () => {
    // Two sites on loopback: Chromium resolves both names to 127.0.0.1 and nothing else.
    browser = await launchBrowser({
      args: ['--host-resolver-rules=MAP shop.test 127.0.0.1, MAP daemon.test 127.0.0.1, MAP * ~NOTFOUND'],
    });
  });
  after(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    daemonOrigin = `http://daemon.test:${new URL(t.url).port}`;
    merchant = t.merchant;
    await t.db('campaigns').where({ id: merchant.campaignId }).update({ cookie_days: COOKIE_DAYS });
    for (const [code, status] of [
      ['MARIA10', 'active'],
      ['JOAO', 'active'],
      ['GONE', 'inactive'],
    ] as const) {
      affiliates[code] = (await addAffiliate(t.db, merchant.campaignId, { code, status })).id;
    }
    shop = await startShop({
      scriptBase: daemonOrigin,
      daemonUrl: t.url,
      apiKey: merchant.key,
      campaign: merchant.publicId,
    });
    context = await browser.newContext();
    requests = [];
    context.on('request', (request) => {
      requests.push(request);
    });
    page = await context.newPage();
  });
  afterEach(async () => {
    await context?.close();
    await shop?.close();
  });

  it('stores ?ref= in a first-party cookie for the campaign’s days, records the page view, fills the form', async () => {
    const before = Date.now() / 1000;
    const referral = await visit('/shop/?ref=maria10');
    expect(referral).to.equal('MARIA10');
    expect(await page.evaluate(() => window.affiliated.referral)).to.equal('MARIA10');
    expect(await page.inputValue('input[name="affiliated_ref"]')).to.equal('MARIA10');

    const cookie = await refCookie();
    expect(cookie).to.include({ value: 'MARIA10', domain: 'shop.test', path: '/', sameSite: 'Lax', secure: false });
    expect(cookie?.expires).to.be.closeTo(before + COOKIE_DAYS * 86400, 60);

    const row = await eventually(async () => {
      const found = await rowOf('MARIA10');
      expect(found).to.include({ pageViews: 1, leads: 0 });
      return found;
    });
    expect(row).to.include({ conversions: 0 });
    const [stored] = await events();
    expect(stored).to.include({ affiliate_id: affiliates.MARIA10, event_type: 'page_view' });
    expect(stored?.session_id).to.match(/^[0-9a-f]{32}$/);
    expect(stored?.properties).to.deep.include({ url: `${shop.url}/shop/?ref=maria10` });
    const device = stored?.device_info;
    expect(device.user_agent).to.include('Chrome');
    expect(device).to.include({ language: 'en-US' });
    expect(device.screen_width).to.be.above(0);

    // Only loopback sites were asked, and the daemon got no cookie and no key.
    for (const request of requests) {
      expect(new URL(request.url()).hostname).to.be.oneOf(['shop.test', 'daemon.test']);
      if (new URL(request.url()).hostname === 'daemon.test') {
        const headers = await request.allHeaders();
        expect(headers).not.to.have.property('x-api-key');
        expect(headers).not.to.have.property('cookie');
      }
    }
  });

  it('records track("lead") in the same session, on a later page without ?ref=', async () => {
    await visit('/shop/?ref=MARIA10');
    await eventually(async () => expect(await rowOf('MARIA10')).to.include({ pageViews: 1 }));
    expect(await visit('/shop/cart')).to.equal('MARIA10');
    const accepted = await page.evaluate(() => window.affiliated.track('lead', { plan: 'pro' }));
    expect(accepted).to.equal(true);
    expect(await rowOf('MARIA10')).to.include({ pageViews: 1, leads: 1 });
    const [view, lead] = await events();
    expect(lead).to.include({ event_type: 'lead', affiliate_id: affiliates.MARIA10, session_id: view?.session_id });
    expect(lead?.properties).to.include({ plan: 'pro', url: `${shop.url}/shop/cart` });
    // Only lead and page_view can be sent from a browser.
    expect(await page.evaluate(() => window.affiliated.track('conversion'))).to.equal(false);
  });

  it('last click wins: a later visit with another code (?via=) replaces the first', async () => {
    await visit('/shop/?ref=MARIA10');
    expect(await visit('/shop/?via=JOAO')).to.equal('JOAO');
    expect((await refCookie())?.value).to.equal('JOAO');
    expect(await page.inputValue('input[name="affiliated_ref"]')).to.equal('JOAO');
    await eventually(async () => expect(await rowOf('JOAO')).to.include({ pageViews: 1 }));
    expect(await rowOf('MARIA10')).to.include({ pageViews: 1 });
  });

  it('stores nothing for unknown or inactive codes, and keeps the code it had', async () => {
    expect(await visit('/shop/?ref=NOBODY')).to.equal(null);
    expect(await refCookie()).to.equal(undefined);
    expect(await page.inputValue('input[name="affiliated_ref"]')).to.equal('');
    expect(sdkCalls('/v1/sdk/events')).to.have.length(0);

    await visit('/shop/?ref=MARIA10');
    expect(await visit('/shop/?ref=GONE')).to.equal('MARIA10');
    expect(await visit('/shop/?ref=NOBODY')).to.equal('MARIA10');
    expect((await refCookie())?.value).to.equal('MARIA10');
    await eventually(async () => expect(await events()).to.have.length(1));
    expect(sdkCalls('/v1/sdk/events')).to.have.length(1);
  });

  it('sends nothing on a visit without ?ref= unless the page calls track', async () => {
    expect(await visit('/shop/')).to.equal(null);
    expect(await page.evaluate(() => window.affiliated.track('lead'))).to.equal(false);
    const daemonCalls = requests.filter((r) => new URL(r.url()).hostname === 'daemon.test');
    expect(daemonCalls.map((r) => new URL(r.url()).pathname)).to.deep.equal(['/v1/sdk/tracker.js']);
  });

  it('a conversion the backend sends with the cookie’s code counts for that affiliate', async () => {
    await visit('/shop/?ref=MARIA10');
    await page.fill('input[name="order_id"]', 'order-1001');
    await page.fill('input[name="order_value"]', '249.90');
    await Promise.all([page.waitForURL(`${shop.url}/checkout`), page.click('button[type="submit"]')]);
    expect(shop.conversions).to.deep.equal([
      {
        code: 'MARIA10',
        formCode: 'MARIA10',
        status: 200,
        body: { success: true, received: 1, accepted: 1, skipped: [] },
      },
    ]);
    const row = await eventually(async () => {
      const found = await rowOf('MARIA10');
      expect(found).to.include({ pageViews: 1 });
      return found;
    });
    expect(row).to.include({ conversions: 1, revenue: 249.9 });
    expect((await report()).affiliates.map((r) => r.referralId)).to.deep.equal(['MARIA10']);
  });

  it('reads another parameter with data-param and keeps the cookie for data-cookie-days', async () => {
    shop.attributes = { param: 'aff', 'cookie-days': '3' };
    expect(await visit('/shop/?ref=MARIA10')).to.equal(null);
    const before = Date.now() / 1000;
    expect(await visit('/shop/?aff=MARIA10')).to.equal('MARIA10');
    expect((await refCookie())?.expires).to.be.closeTo(before + 3 * 86400, 60);
  });

  it('honours Do Not Track with data-respect-dnt, and only then', async () => {
    // A string, not a function: the test's TypeScript loader would wrap a function's inner arrows.
    await page.addInitScript("Object.defineProperty(Navigator.prototype, 'doNotTrack', { get: () => '1' })");
    shop.attributes = { 'respect-dnt': '' };
    expect(await visit('/shop/?ref=MARIA10')).to.equal(null);
    expect(await refCookie()).to.equal(undefined);
    expect(sdkCalls('/v1/sdk/referrals/MARIA10')).to.have.length(0);

    shop.attributes = {};
    expect(await visit('/shop/?ref=MARIA10')).to.equal('MARIA10');
    await eventually(async () => expect(await events()).to.have.length(1));
  });
  it('adds the code to Stripe Payment Links and Buy Buttons, to ones added later too, never over a value set', async () => {
    await visit('/shop/?ref=maria10');
    const href = (selector: string) => page.getAttribute(selector, 'href');
    expect(await href('#payment-link')).to.equal('https://buy.stripe.com/test_8wM5kF3aB?client_reference_id=MARIA10');
    expect(await href('#own-reference')).to.equal('https://buy.stripe.com/test_4gA9cR?client_reference_id=CART7');
    expect(await page.getAttribute('#buy-button', 'client-reference-id')).to.equal('MARIA10');
    await page.evaluate(
      `document.body.insertAdjacentHTML('beforeend', '<a id="later" href="https://buy.stripe.com/test_later">x</a>')`,
    );
    await eventually(async () =>
      expect(await href('#later')).to.equal('https://buy.stripe.com/test_later?client_reference_id=MARIA10'),
    );

    // Without a referral, links are left as they are.
    await context.clearCookies();
    await visit('/shop/');
    expect(await href('#payment-link')).to.equal('https://buy.stripe.com/test_8wM5kF3aB');
    expect(await page.getAttribute('#buy-button', 'client-reference-id')).to.equal(null);
  });

  it('a referral link through the daemon lands with ref and click_id; the click id goes with the code', async () => {
    await t
      .db('campaigns')
      .where({ id: merchant.campaignId })
      .update({ site_url: `${shop.url}/shop/` });
    await page.goto(`${daemonOrigin}/r/${merchant.publicId}/maria10?utm_source=newsletter`);
    const landed = new URL(page.url());
    const clickId = landed.searchParams.get('click_id');
    expect(landed.searchParams.get('ref')).to.equal('maria10');
    const clicks = await t.db('clicks').select('id', 'affiliate_id', 'utm_source');
    expect(clicks).to.deep.equal([{ id: clickId, affiliate_id: affiliates.MARIA10, utm_source: 'newsletter' }]);
    await page.evaluate(() => new Promise<void>((resolve) => window.affiliated.ready(() => resolve())));
    const cookie = (await context.cookies()).find((c) => c.name === 'affiliated_click');
    expect(cookie?.value).to.equal(clickId);
    // On the next page the code and its click come from the cookies, and a lead names both.
    await visit('/shop/cart');
    expect(await page.evaluate(() => window.affiliated.track('lead'))).to.equal(true);
    const stored = await eventually(async () => {
      const rows = await events();
      expect(rows.map((row) => row.event_type)).to.deep.equal(['page_view', 'lead']);
      return rows;
    });
    expect(stored.map((row) => [row.affiliate_id, row.click_id])).to.deep.equal([
      [affiliates.MARIA10, clickId],
      [affiliates.MARIA10, clickId],
    ]);
    // A later ?ref= without a click replaces the code and forgets the old click.
    await visit('/shop/?ref=JOAO');
    expect((await context.cookies()).find((c) => c.name === 'affiliated_click')).to.equal(undefined);
  });
});

describe(`the tracking script on an https shop that proxies the daemon under /affiliated (${ENGINE})`, () => {
  const t = useTestDaemon();
  let browser: Browser;
  let shop: Shop;

  before(async () => {
    browser = await launchBrowser({ args: ['--host-resolver-rules=MAP shop.test 127.0.0.1, MAP * ~NOTFOUND'] });
  });
  after(async () => {
    await shop?.close();
    await browser?.close();
  });

  it('sets a Secure cookie and sends the daemon none of the shop’s cookies', async () => {
    const { merchant } = t;
    await addAffiliate(t.db, merchant.campaignId, { code: 'MARIA10' });
    shop = await startShop({ daemonUrl: t.url, apiKey: merchant.key, campaign: merchant.publicId, https: true });
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    await context.addCookies([{ name: 'shop_session', value: 'secret', url: shop.url }]);
    const sent: Request[] = [];
    context.on('request', (request) => {
      sent.push(request);
    });
    const page = await context.newPage();
    await page.goto(`${shop.url}/shop/?ref=MARIA10`);
    const referral = await page.evaluate(
      () => new Promise<string | null>((resolve) => window.affiliated.ready((api) => resolve(api.referral))),
    );
    expect(referral).to.equal('MARIA10');
    const cookie = (await context.cookies()).find((c) => c.name === 'affiliated_ref');
    expect(cookie).to.include({ value: 'MARIA10', secure: true, sameSite: 'Lax' });

    await eventually(async () => {
      const stored = await t.db('tracking_events').where('campaign_id', merchant.campaignId);
      expect(stored).to.have.length(1);
    });
    const sdkRequests = sent.filter((r) => /\/affiliated\/v1\/sdk\/(events|referrals)/.test(r.url()));
    expect(sdkRequests.length).to.equal(2);
    for (const request of sdkRequests) {
      expect(await request.allHeaders()).not.to.have.property('cookie');
    }
    await context.close();
  });
});
