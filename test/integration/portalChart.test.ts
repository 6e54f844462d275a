import { expect } from 'chai';
import { servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { conversion, lead } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { PortalBrowser } from '../helpers/portal.js';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const DAY_MS = 24 * 3600 * 1000;

/** The rows of the chart's table: its day, then clicks, leads and sales as the page writes them. */
function chartRows(html: string): string[][] {
  const table = /<details class="chart-numbers">([\s\S]*?)<\/details>/.exec(html)?.[1] ?? '';
  return [...table.matchAll(/<tr><th scope="row">([^<]*)<\/th>((?:<td class="num">[^<]*<\/td>)+)<\/tr>/g)].map(
    (row) => [row[1] ?? '', ...[...(row[2] ?? '').matchAll(/<td class="num">([^<]*)<\/td>/g)].map((c) => c[1] ?? '')],
  );
}

/** docs/portal.md#the-dashboard: the affiliate's own clicks, leads and sales per UTC day, 30 days. */
describe(`the portal dashboard's chart (${ENGINE})`, () => {
  const t = useTestDaemon();

  const send = (events: unknown[]) => call(t.url, 'POST', '/v1/events', { key: t.merchant.key, body: { events } });
  const click = (code: string, agent = FIREFOX) =>
    call(t.url, 'GET', `/r/${t.merchant.publicId}/${code}`, { headers: { 'user-agent': agent } });
  const at = (ms: number) => ({ properties: { timestamp: new Date(ms).toISOString() } });
  const sale = (code: string, order: string, ms: number) =>
    conversion(t.merchant.publicId, code, order, 50, {
      properties: { order_id: order, order_value: 50, timestamp: new Date(ms).toISOString() },
    });

  async function logIn(email: string): Promise<PortalBrowser> {
    const b = new PortalBrowser(t.url, `/portal/${t.merchant.publicId}`, 'en');
    await b.get('/');
    const reply = await b.post('/login', { email, password: 'correct-horse' });
    expect(reply.status).to.equal(303);
    return b;
  }

  it('shows the affiliate its own clicks, leads and sales per day, never another affiliate’s', async () => {
    const services = servicesFor(t.db);
    await services.campaigns.update(t.merchant.campaignId, { portal: true, siteUrl: 'https://shop.example/' });
    const ana = await services.affiliates.create(t.merchant.campaignId, {
      email: 'ana@example.com',
      password: 'correct-horse',
      referralId: 'ANA10',
    });
    const bia = await services.affiliates.create(t.merchant.campaignId, {
      email: 'bia@example.com',
      password: 'correct-horse',
      referralId: 'BIA20',
    });
    const now = Date.now();
    // Ana: two people's clicks and a bot's today, a lead and a sale today, a lead three days ago.
    for (const agent of [FIREFOX, FIREFOX, GOOGLEBOT]) expect((await click('ANA10', agent)).status).to.equal(302);
    // Bia: far more of everything, on the same days.
    for (let i = 0; i < 5; i++) expect((await click('BIA20')).status).to.equal(302);
    const { publicId } = t.merchant;
    const sent = await send([
      lead(publicId, ana.referralId, at(now - 1000)),
      lead(publicId, ana.referralId, at(now - 3 * DAY_MS)),
      sale(ana.referralId, 'A-1', now - 2000),
      ...[1, 2, 3, 4].map((i) => lead(publicId, bia.referralId, at(now - i * 1000))),
      ...[1, 2, 3].map((i) => lead(publicId, bia.referralId, at(now - 3 * DAY_MS - i * 1000))),
      ...[1, 2, 3].map((i) => sale(bia.referralId, `B-${i}`, now - i * 1000)),
    ]);
    expect(sent.status).to.equal(200);

    const reply = await (await logIn('ana@example.com')).get('/dashboard');
    expect(reply.status).to.equal(200);
    const rows = chartRows(reply.html);
    expect(rows).to.have.length(30);
    const utcDay = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' });
    expect(rows[29]).to.deep.equal([utcDay.format(new Date(now)), '2', '1', '1']);
    expect(rows[26]).to.deep.equal([utcDay.format(new Date(now - 3 * DAY_MS)), '0', '1', '0']);
    const others = rows.filter((_, i) => i !== 26 && i !== 29);
    expect(others.every((row) => row.slice(1).join() === '0,0,0')).to.equal(true);
    // The SVG draws the same: three bars a day, the tallest (Ana's two clicks) at full height.
    const bars = [...reply.html.matchAll(/<rect class="series-(\d)"[^>]* height="(\d+)"/g)];
    expect(bars).to.have.length(90);
    expect(bars.filter((bar) => bar[2] !== '0').map((bar) => bar[1])).to.deep.equal(['1', '0', '1', '2']);

    // Bia sees hers: five clicks, four leads and three sales today.
    const biaRows = chartRows((await (await logIn('bia@example.com')).get('/dashboard')).html);
    expect(biaRows[29]?.slice(1)).to.deep.equal(['5', '4', '3']);
    expect(biaRows[26]?.slice(1)).to.deep.equal(['0', '3', '0']);
  });
});
