import { expect } from 'chai';
import { servicesFor } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';

describe(`daily stats migration (${ENGINE})`, () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase({ migrate: false });
  });
  after(async () => t.drop());

  it('counts the events already stored, so a migrated database reports its history', async () => {
    await t.db.migrate.up({ name: '20261121100000_initial_schema' });
    const [planId] = await t.db('plans').where({ name: 'free' }).pluck('id');
    const [campaignId] = await t.db('campaigns').insert({
      public_id: 'old-shop',
      name: 'Old shop',
      plan_id: planId,
      commission_type: 'percent',
      commission_value: 1000,
      cookie_days: 30,
      created_at: new Date(),
    });
    const maria = await addAffiliate(t.db, Number(campaignId), { code: 'MARIA', beforeSearchIndex: true });
    const ana = await addAffiliate(t.db, Number(campaignId), { code: 'ANA', beforeSearchIndex: true });
    let sequence = 0;
    const event = async (affiliateId: number, type: string, occurredAt: string, cents?: number) => {
      sequence++;
      const at = new Date(occurredAt);
      const [eventId] = await t.db('tracking_events').insert({
        campaign_id: campaignId,
        affiliate_id: affiliateId,
        event_type: type,
        order_id: cents === undefined ? null : `o-${sequence}`,
        intake_id: `backfill-${sequence}`,
        occurred_at: at,
        created_at: at,
      });
      if (cents === undefined) return;
      await t.db('conversions').insert({
        campaign_id: campaignId,
        affiliate_id: affiliateId,
        tracking_event_id: eventId,
        order_id: `o-${sequence}`,
        order_value_cents: cents,
        commission_cents: Math.round(cents / 10),
        status: 'pending',
        occurred_at: at,
        created_at: at,
        updated_at: at,
      });
    };
    await event(maria.id, 'page_view', '2026-05-01T00:00:00.000Z');
    await event(maria.id, 'page_view', '2026-05-01T23:59:59.999Z');
    await event(maria.id, 'lead', '2026-05-02T10:00:00.000Z');
    await event(maria.id, 'conversion', '2026-05-02T11:00:00.000Z', 1999);
    await event(maria.id, 'conversion', '2026-05-03T11:00:00.000Z', 1);
    await event(ana.id, 'page_view', '2026-04-30T23:59:59.999Z');

    await t.db.migrate.latest();
    const rows = await t
      .db('affiliate_daily_stats')
      .orderBy(['affiliate_id', 'day'])
      .select('affiliate_id', 'day', 'page_views', 'leads', 'conversions', 'revenue_cents', 'commission_cents');
    const row = (affiliateId: number, day: string, counts: number[]) => ({
      affiliate_id: affiliateId,
      day,
      page_views: counts[0],
      leads: counts[1],
      conversions: counts[2],
      revenue_cents: counts[3],
      commission_cents: counts[4],
    });
    expect(
      rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'day' ? v : Number(v)]))),
    ).to.deep.equal(
      [
        row(maria.id, '2026-05-01', [2, 0, 0, 0, 0]),
        row(maria.id, '2026-05-02', [0, 1, 1, 1999, 200]),
        row(maria.id, '2026-05-03', [0, 0, 1, 1, 0]),
        row(ana.id, '2026-04-30', [1, 0, 0, 0, 0]),
      ].sort((a, b) => a.affiliate_id - b.affiliate_id || a.day.localeCompare(b.day)),
    );

    const report = await servicesFor(t.db).reports.affiliates(Number(campaignId), {
      from: '2026-05-01',
      to: '2026-05-31',
    });
    expect(report.affiliates.map((a) => [a.referralId, a.pageViews, a.conversions, a.revenue])).to.deep.equal([
      ['MARIA', 2, 2, 20],
    ]);

    // Down and up again: the table goes and comes back with the same counts.
    await t.db.migrate.down({ name: '20261122120000_affiliate_daily_stats' });
    expect(await t.db.schema.hasTable('affiliate_daily_stats')).to.equal(false);
    await t.db.migrate.latest();
    expect(await t.db('affiliate_daily_stats').count({ n: '*' }).first()).to.deep.equal({ n: 4 });
  });
});
