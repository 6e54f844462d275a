import { expect } from 'chai';
import type { DashboardActor } from '../../server/services/dashboard/types.js';
import { type Merchant, servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate, conversion, lead, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The dashboard's overview reads the campaign's own daily counters (docs/dashboard.md), kept
 * beside the affiliates' that `GET /v1/reports/affiliates` reads: the two must show the same
 * figures for this month and last, after intake on several days and after an affiliate is deleted.
 */
describe(`the dashboard overview against the report (${ENGINE})`, () => {
  const t = useTestDaemon();
  let merchant: Merchant;

  const now = new Date();
  const firstOfMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const firstOfLast = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1);
  const at = (ms: number) => ({ timestamp: new Date(ms + 12 * 3_600_000).toISOString() });

  const viewer = (): DashboardActor => ({
    userId: 1,
    campaignId: merchant.campaignId,
    email: 'viewer@shop.example',
    role: 'viewer',
    totpEnrolled: false,
    factorPending: false,
  });
  const totals = async (from: number, to: number) => {
    const answer = await call(t.url, 'GET', `/v1/reports/affiliates?from=${dayOf(from)}&to=${dayOf(to)}`, {
      key: merchant.key,
    });
    expect(answer.status, answer.text).to.equal(200);
    const { pageViews, leads, conversions, commissions } = answer.body.totals;
    return { pageViews, leads, conversions, commissionCents: Math.round(commissions * 100) };
  };
  const sameAsReport = async () => {
    const overview = await servicesFor(t.db).dashboard.overview(viewer());
    expect(overview.thisMonth).to.deep.equal(await totals(firstOfMonth, now.getTime()));
    expect(overview.lastMonth).to.deep.equal(await totals(firstOfLast, firstOfMonth - DAY_MS));
    return overview;
  };

  beforeEach(() => {
    merchant = t.merchant;
  });

  it('shows what the report shows, day by day, and after an affiliate is deleted', async () => {
    const ana = await addAffiliate(t.db, merchant.campaignId, { code: 'ANA' });
    const bia = await addAffiliate(t.db, merchant.campaignId, { code: 'BIA' });
    const gone = await addAffiliate(t.db, merchant.campaignId, { code: 'GONE' });
    const sale = (code: string, order: string, value: number, when: number) =>
      conversion(merchant.publicId, code, order, value, {
        properties: { order_id: order, order_value: value, ...at(when) },
      });
    const events = [
      pageView(merchant.publicId, ana.code, { properties: at(firstOfMonth) }),
      pageView(merchant.publicId, ana.code, { properties: at(firstOfLast) }),
      lead(merchant.publicId, bia.code, { properties: at(firstOfLast + 3 * DAY_MS) }),
      sale(ana.code, 'o-1', 19.99, firstOfMonth),
      sale(ana.code, 'o-2', 0.1, firstOfLast),
      sale(bia.code, 'o-3', 1000.05, firstOfLast + 3 * DAY_MS),
      sale(gone.code, 'o-4', 250, firstOfMonth),
      sale(gone.code, 'o-5', 33.33, firstOfLast + 3 * DAY_MS),
      pageView(merchant.publicId, gone.code, { properties: at(firstOfLast + 3 * DAY_MS) }),
    ];
    const sent = await call(t.url, 'POST', '/v1/events', { key: merchant.key, body: { events } });
    expect(sent.body).to.include({ accepted: events.length });

    const before = await sameAsReport();
    expect(before.thisMonth).to.include({ pageViews: 1, conversions: 2 });
    expect(before.lastMonth).to.include({ pageViews: 2, leads: 1, conversions: 3 });
    const firstDay = before.days.find((d) => d.day === dayOf(firstOfMonth));
    expect(firstDay).to.include({ pageViews: 1, conversions: 2 });

    const deleted = await call(t.url, 'DELETE', `/v1/affiliates/${gone.id}`, { key: merchant.key });
    expect(deleted.status).to.equal(200);
    const after = await sameAsReport();
    expect(after.thisMonth).to.include({ pageViews: 1, conversions: 1 });
    expect(after.lastMonth).to.include({ pageViews: 1, leads: 1, conversions: 2 });
    expect(after.days.find((d) => d.day === dayOf(firstOfMonth))).to.include({ conversions: 1 });
  });
});
