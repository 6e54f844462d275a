import { expect } from 'chai';
import { servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { PortalBrowser, textOf } from '../helpers/portal.js';
import { makeAffiliate } from '../helpers/replay.js';
import { insertConversion, insertPayout } from '../helpers/rows.js';

describe(`the affiliate portal at volume (${ENGINE})`, function () {
  this.timeout(60_000);
  const t = useTestDaemon();

  async function loggedIn(): Promise<{ b: PortalBrowser; affiliateId: number }> {
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { portal: true });
    const { id } = await makeAffiliate(t.url, t.merchant.key, { email: 'ana@example.com', referralId: 'ANA1' });
    const b = new PortalBrowser(t.url, `/portal/${t.merchant.publicId}`);
    await b.get('/');
    const reply = await b.post('/login', { email: 'ana@example.com', password: 'secret123' });
    expect(reply.status).to.equal(303);
    return { b, affiliateId: id };
  }

  it('a payout page lists its conversions a page at a time, with the count and a way to the others', async () => {
    const { b, affiliateId } = await loggedIn();
    const { campaignId } = t.merchant;
    const payout = await insertPayout(t.db, campaignId, affiliateId, 120 * 100, 'paid');
    const ids: number[] = [];
    for (let i = 0; i < 120; i++) ids.push(await insertConversion(t.db, campaignId, affiliateId, 100, 'paid', payout));
    await t.db.batchInsert(
      'payout_conversions',
      ids.map((id) => ({ payout_id: payout, conversion_id: id })),
      60,
    );
    const rowsOf = (html: string) => (html.match(/<td class="num">/g) ?? []).length;

    const first = await b.get(`/payouts/${payout}`);
    expect(first.status).to.equal(200);
    expect(rowsOf(first.html)).to.equal(50);
    expect(textOf(first.html)).to.include('120 in all');
    expect(textOf(first.html)).to.include('Page 1 of 3');
    expect(first.html).to.include(`/payouts/${payout}?page=2`);

    const last = await b.get(`/payouts/${payout}?page=3`);
    expect(rowsOf(last.html)).to.equal(20);
    expect(textOf(last.html)).to.include('Page 3 of 3');
    expect(last.html).to.include(`/payouts/${payout}?page=2`);
    // A page past the last shows the last; nonsense shows the first.
    expect(textOf((await b.get(`/payouts/${payout}?page=99`)).html)).to.include('Page 3 of 3');
    expect(textOf((await b.get(`/payouts/${payout}?page=x`)).html)).to.include('Page 1 of 3');
  });

  it('the dashboard shows the terms the affiliate works under: rate or rule, cookie days, payout minimum, hold', async () => {
    const { b, affiliateId } = await loggedIn();
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, {
      commission: { type: 'percent', value: 12.5 },
      payoutMinimum: 50,
      autoApproveDays: 14,
    });
    const shown = textOf((await b.get('/dashboard')).html);
    expect(shown).to.include('Your terms');
    expect(shown).to.include('12.5% of each sale (the programme’s rate)');
    const campaign = await call(t.url, 'GET', '/v1/campaign', { key: t.merchant.key });
    expect(shown).to.include(`Referral cookie ${campaign.body.cookieDays} days`);
    expect(shown).to.match(/Payout minimum R?\$ ?50[.,]00/);
    expect(shown).to.include('Hold period 14 days, then a sale is approved');

    const own = await call(t.url, 'PATCH', `/v1/affiliates/${affiliateId}`, {
      key: t.merchant.key,
      body: { commissionOverride: { commissionType: 'fixed', commissionValue: 5 } },
    });
    expect(own.status, own.text).to.equal(200);
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { autoApproveDays: null });
    const after = textOf((await b.get('/dashboard')).html);
    expect(after).to.match(/R?\$ ?5[.,]00 per sale \(your own rate\)/);
    expect(after).to.include('Hold period the programme approves each sale');
  });
});
