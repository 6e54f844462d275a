import { expect } from 'chai';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { migrationSourceFor } from '../../server/db/migrations/index.js';
import { addToRollup } from '../../server/repositories/analytics.js';
import { COUNTER_SHARD } from '../../server/repositories/counterShard.js';

const TABLES = [
  'plans',
  'campaigns',
  'api_keys',
  'affiliates',
  'payouts',
  'tracking_events',
  'conversions',
  'monthly_usage',
  'webhook_endpoints',
  'webhook_messages',
  'webhook_deliveries',
  'webhook_attempts',
  'webhook_settings',
  'webhook_subscriptions',
  'webhook_retired_secrets',
  'affiliate_daily_stats',
  'portal_sessions',
  'portal_reset_tokens',
  'portal_counters',
  'portal_login_slots',
  'mail_outbox',
  'audit_log',
  'payout_conversions',
  'payout_sends',
  'payout_rails',
  'payout_runs',
  'clawbacks',
  'affiliate_groups',
  'campaign_customers',
  'refunds',
  'billing_integrations',
  'billing_events',
  'affiliate_coupons',
  'billing_customers',
  'billing_orders',
  'billing_pending_refunds',
  'billing_held_payments',
  'affiliate_count_shards',
  'dashboard_users',
  'dashboard_sessions',
  'dashboard_tokens',
  'dashboard_recovery_codes',
  'dashboard_passkeys',
  'clicks',
  'customer_clicks',
  'analytics_hourly',
  'campaign_daily_stats',
];
const MIGRATIONS = [
  '20261121100000_initial_schema',
  '20261122100000_payouts_lifecycle',
  '20261122110000_webhooks',
  '20261122120000_affiliate_daily_stats',
  '20261122140000_byte_exact_dedupe_keys',
  '20261122140100_search_key_worst_case',
  '20261122150000_affiliate_search',
  '20261126100000_commission_rules',
  '20261126200000_webhook_fanout_at_delivery',
  '20261126300000_portal_and_mail',
  '20261126400000_billing_integrations',
  '20261127100000_counter_shards',
  '20261127110000_dedupe_keys_without_null',
  '20261128400000_dedupe_keys_for_older_daemons',
  '20261129100000_payout_rails',
  '20261129200000_clicks',
  '20261129200100_click_attribution',
  '20261129200200_analytics_rollups',
  '20261129300000_dashboard_users',
  '20261129300100_dashboard_totp_sealed',
  '20261129400000_audit_log',
  '20261129500000_dashboard_passkeys',
  '20261129500100_payout_runs',
  '20261130135000_analytics_day_rows',
  '20261130600000_payout_send_batches',
  '20261201010000_dashboard_passkey_names',
  '20261201030000_campaign_daily_stats',
  '20261202010000_analytics_rollup_clustered',
  '20261203010000_clicks_rollup_pending',
];

/** A campaign row as every migration state accepts it (plan `free` unless named), and its id. */
async function addCampaign(
  db: TestDatabase['db'],
  publicId: string,
  { plan = 'free', ...columns }: { plan?: string; [column: string]: unknown } = {},
): Promise<number> {
  const [planId] = await db('plans').where({ name: plan }).pluck('id');
  const [id] = await db('campaigns').insert({
    public_id: publicId,
    name: 'c',
    plan_id: planId,
    commission_type: 'percent',
    commission_value: 1000,
    cookie_days: 30,
    created_at: new Date(),
    ...columns,
  });
  return Number(id);
}

describe(`migrations (${ENGINE})`, () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase({ migrate: false });
  });
  after(async () => t.drop());

  it('creates the whole schema with the built-in plans, rolls it back, and applies it again', async () => {
    const [, applied] = await t.db.migrate.latest();
    expect(applied).to.deep.equal(MIGRATIONS);
    for (const table of TABLES) expect(await t.db.schema.hasTable(table), table).to.equal(true);
    const plans = await t.db('plans').orderBy('id').select('name', 'max_affiliates', 'max_monthly_conversions');
    expect(plans).to.deep.equal([
      { name: 'free', max_affiliates: 10, max_monthly_conversions: 100 },
      { name: 'starter', max_affiliates: 100, max_monthly_conversions: 1000 },
      { name: 'pro', max_affiliates: 1000, max_monthly_conversions: 10000 },
      { name: 'unlimited', max_affiliates: null, max_monthly_conversions: null },
    ]);

    const [, undone] = await t.db.migrate.rollback();
    expect(undone).to.deep.equal([...MIGRATIONS].reverse());
    for (const table of TABLES) expect(await t.db.schema.hasTable(table), table).to.equal(false);

    await t.db.migrate.latest();
    expect(await t.db('plans').count({ n: '*' }).first()).to.deep.equal({ n: 4 });
  });

  it('undoes the billing migration alone: campaigns keep their rows, the currency column goes and comes back as BRL', async () => {
    await t.db.migrate.latest();
    await addCampaign(t.db, 'kept-campaign', { name: 'Kept' });
    await t.db.migrate.down({ name: '20261126400000_billing_integrations' });
    expect(await t.db.schema.hasColumn('campaigns', 'currency')).to.equal(false);
    expect(await t.db.schema.hasTable('billing_events')).to.equal(false);
    expect(await t.db('campaigns').where('public_id', 'kept-campaign').count({ n: '*' }).first()).to.deep.equal({
      n: 1,
    });
    await t.db.migrate.up();
    expect(await t.db('campaigns').where('public_id', 'kept-campaign').first('currency')).to.deep.equal({
      currency: 'BRL',
    });
    await t.db('campaigns').where('public_id', 'kept-campaign').delete();
  });

  it("the campaign counters' contract step adds what an older daemon stored or deleted after the fill", async () => {
    await t.db.migrate.latest();
    const campaignId = await addCampaign(t.db, 'overview-reconciled', { plan: 'unlimited', affiliate_count: 1 });
    const now = new Date();
    const [affiliateId] = await t.db('affiliates').insert({
      campaign_id: campaignId,
      email: 'r@x.co',
      email_key: 'r@x.co',
      referral_id: 'RECON1',
      referral_key: 'RECON1',
      status: 'active',
      password_hash: 'x',
      search_key: '',
      created_at: now,
      updated_at: now,
    });
    const counts = (views: number, cents: number) => ({
      page_views: views,
      leads: 1,
      conversions: 1,
      revenue_cents: cents,
      commission_cents: cents / 10,
    });
    // This release's daemon wrote both tables; the previous release's wrote the affiliate's only
    // (day 21, and more of day 20), and deleted an affiliate whose day 19 the campaign still counts.
    await t.db('affiliate_daily_stats').insert([
      { campaign_id: campaignId, day: '2026-11-20', affiliate_id: affiliateId, shard: 7, ...counts(3, 2000) },
      { campaign_id: campaignId, day: '2026-11-20', affiliate_id: affiliateId, shard: 9, ...counts(5, 700) },
      { campaign_id: campaignId, day: '2026-11-21', affiliate_id: affiliateId, shard: 9, ...counts(4, 500) },
    ]);
    await t.db('campaign_daily_stats').insert([
      { campaign_id: campaignId, day: '2026-11-19', shard: 7, ...counts(1, 100) },
      { campaign_id: campaignId, day: '2026-11-20', shard: 7, ...counts(3, 2000) },
    ]);
    const daily = async (table: string) =>
      (
        await t
          .db(table)
          .where({ campaign_id: campaignId })
          .groupBy('day')
          .orderBy('day')
          .select('day', t.db.raw('SUM(page_views) AS v'), t.db.raw('SUM(revenue_cents) AS c'))
      ).map((row) => `${row.day} ${Number(row.v)} ${Number(row.c)}`);
    // Contract steps are shown to knex only by `db migrate --contract`.
    const contract = { migrationSource: migrationSourceFor({ contract: true }) };
    await t.db.migrate.up({ ...contract, name: '20261201030100_campaign_daily_stats_reconciled' });
    expect(await daily('campaign_daily_stats')).to.deep.equal([
      '2026-11-19 0 0',
      '2026-11-20 8 2700',
      '2026-11-21 4 500',
    ]);
    expect((await daily('campaign_daily_stats')).slice(1)).to.deep.equal(await daily('affiliate_daily_stats'));
    await t.db.migrate.down({ ...contract, name: '20261201030100_campaign_daily_stats_reconciled' });
    await t.db('campaigns').where({ id: campaignId }).delete();
  });

  it("folds the counters' shards back into one row each when the shards migration is undone, and keeps them when redone", async () => {
    await t.db.migrate.latest();
    const now = new Date();
    const campaignId = await addCampaign(t.db, 'sharded-counters', { plan: 'unlimited', affiliate_count: 2 });
    const [affiliateId] = await t.db('affiliates').insert({
      campaign_id: campaignId,
      email: 's@x.co',
      email_key: 's@x.co',
      referral_id: 'SHARD1',
      referral_key: 'SHARD1',
      status: 'active',
      password_hash: 'x',
      search_key: '',
      created_at: now,
      updated_at: now,
    });
    await t.db('affiliate_count_shards').insert([
      { campaign_id: campaignId, shard: 7, affiliates: 3 },
      { campaign_id: campaignId, shard: 9, affiliates: -1 },
    ]);
    await t.db('monthly_usage').insert([
      { campaign_id: campaignId, month: '2026-11', shard: 0, conversions: 4 },
      { campaign_id: campaignId, month: '2026-11', shard: 7, conversions: 5 },
      { campaign_id: campaignId, month: '2026-10', shard: 9, conversions: 6 },
    ]);
    const day = (d: string, shard: number, views: number, cents: number) => ({
      campaign_id: campaignId,
      day: d,
      affiliate_id: affiliateId,
      shard,
      page_views: views,
      leads: 1,
      conversions: 1,
      revenue_cents: cents,
      commission_cents: cents / 10,
    });
    await t
      .db('affiliate_daily_stats')
      .insert([day('2026-11-20', 0, 2, 1000), day('2026-11-20', 7, 3, 2000), day('2026-11-21', 9, 4, 500)]);
    const counters = async () => ({
      affiliates: await t.db('campaigns').where({ id: campaignId }).first('affiliate_count'),
      usage: (
        await t.db('monthly_usage').where({ campaign_id: campaignId }).orderBy('month').select('month', 'conversions')
      ).map((row) => ({ month: row.month, conversions: Number(row.conversions) })),
      days: (
        await t
          .db('affiliate_daily_stats')
          .where({ campaign_id: campaignId })
          .orderBy('day')
          .select('day', 'page_views', 'leads', 'conversions', 'revenue_cents', 'commission_cents')
      ).map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, k === 'day' ? v : Number(v)]))),
    });

    await t.db.migrate.down({ name: '20261127100000_counter_shards' });
    expect(await t.db.schema.hasTable('affiliate_count_shards')).to.equal(false);
    expect(await t.db.schema.hasColumn('monthly_usage', 'shard')).to.equal(false);
    const folded = {
      affiliates: { affiliate_count: 4 },
      usage: [
        { month: '2026-10', conversions: 6 },
        { month: '2026-11', conversions: 9 },
      ],
      days: [
        { day: '2026-11-20', page_views: 5, leads: 2, conversions: 2, revenue_cents: 3000, commission_cents: 300 },
        { day: '2026-11-21', page_views: 4, leads: 1, conversions: 1, revenue_cents: 500, commission_cents: 50 },
      ],
    };
    expect(await counters()).to.deep.equal(folded);

    await t.db.migrate.latest();
    expect(
      await t.db('monthly_usage').where({ campaign_id: campaignId }).distinct('shard').pluck('shard'),
    ).to.deep.equal([0]);
    expect(await counters()).to.deep.equal(folded);
    await t.db('campaigns').where({ id: campaignId }).delete();
  });

  it('keys the events already stored for dedupe without NULL, keeps refusing their duplicates, and undoes it', async () => {
    await t.db.migrate.latest();
    await t.db.migrate.down({ name: '20261127110000_dedupe_keys_without_null' });
    const campaignId = await addCampaign(t.db, 'keyed-events');
    const now = new Date();
    const [affiliateId] = await t.db('affiliates').insert({
      campaign_id: campaignId,
      email: 'e@x.co',
      email_key: 'e@x.co',
      referral_id: 'KEYED1',
      referral_key: 'KEYED1',
      status: 'active',
      password_hash: 'x',
      search_key: '',
      created_at: now,
      updated_at: now,
    });
    const event = (type: string, eventId: string | null, orderId: string | null) => ({
      campaign_id: campaignId,
      affiliate_id: affiliateId,
      event_type: type,
      event_id: eventId,
      order_id: orderId,
      intake_id: 'before-keys',
      occurred_at: now,
      created_at: now,
    });
    await t
      .db('tracking_events')
      .insert([
        event('page_view', null, null),
        event('page_view', null, null),
        event('conversion', 'e1', 'o1'),
        event('conversion', null, 'o2 '),
      ]);

    await t.db.migrate.up({ name: '20261127110000_dedupe_keys_without_null' });
    const rows = await t
      .db('tracking_events')
      .where({ campaign_id: campaignId })
      .orderBy('id')
      .select('id', 'event_key', 'order_key');
    expect(rows.map((row) => [row.event_key, row.order_key])).to.deep.equal([
      [`#${rows[0]?.id}`, `#${rows[0]?.id}`],
      [`#${rows[1]?.id}`, `#${rows[1]?.id}`],
      ['=e1', '=o1'],
      [`#${rows[3]?.id}`, '=o2 '],
    ]);
    const keyed = (eventKey: string, orderKey: string) => ({
      ...event('conversion', null, null),
      event_key: eventKey,
      order_key: orderKey,
    });
    const refused = async (row: object) => {
      try {
        await t.db('tracking_events').insert(row);
        return false;
      } catch {
        return true;
      }
    };
    expect(await refused(keyed('=e1', '#new-1')), 'a stored event id').to.equal(true);
    expect(await refused(keyed('#new-2', '=o2 ')), 'a stored order id, byte for byte').to.equal(true);
    expect(await refused(keyed('#new-3', '=o2')), 'another order id').to.equal(false);

    await t.db.migrate.down({ name: '20261127110000_dedupe_keys_without_null' });
    expect(await t.db.schema.hasColumn('tracking_events', 'event_key')).to.equal(false);
    expect(await refused(event('conversion', 'e1', 'o9')), 'the event id index is back').to.equal(true);
    await t.db.migrate.latest();
    await t.db('campaigns').where({ id: campaignId }).delete();
  });

  it('rebuilds the analytics rollup in its key order (WITHOUT ROWID on SQLite) and back, every row as it was, the upsert still adding', async () => {
    await t.db.migrate.latest();
    const campaignId = await addCampaign(t.db, 'rollup-rebuilt', { plan: 'unlimited' });
    const now = new Date();
    const [affiliateId] = await t.db('affiliates').insert({
      campaign_id: campaignId,
      email: 'h@x.co',
      email_key: 'h@x.co',
      referral_id: 'HOURLY1',
      referral_key: 'HOURLY1',
      status: 'active',
      password_hash: 'x',
      search_key: '',
      created_at: now,
      updated_at: now,
    });
    const row = (hour: number, dims: string, shard: number, cents: number) => ({
      campaign_id: campaignId,
      hour,
      affiliate_id: affiliateId,
      dims,
      shard,
      device: dims === '' ? '' : 'mobile',
      country: dims === '' ? '' : 'BR',
      referrer: dims === '' ? '' : 'news.example',
      utm_source: dims === '' ? '' : 'newsletter',
      clicks: shard,
      bot_clicks: 1,
      page_views: Math.abs(hour % 7),
      leads: 2,
      conversions: 1,
      revenue_cents: cents,
      commission_cents: -cents,
    });
    // An hour of year 1000, hours and a day row, money past 2^32; shards no daemon has (1 to 1023).
    await t
      .db('analytics_hourly')
      .insert([
        row(-8_502_840, '', 0, 1),
        row(495_000, 'dimsdimsdimsdims', 2000, 2 ** 40 + 7),
        row(495_001, '', 0, 99),
        row(1_000_020_625, '', 2000, 2 ** 52),
      ]);
    const rows = async () =>
      (await t.db('analytics_hourly').where({ campaign_id: campaignId }).orderBy(['hour', 'dims', 'shard'])).map((r) =>
        Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' ? v : Number(v)])),
      );
    const sums = async () =>
      t
        .db('analytics_hourly')
        .where({ campaign_id: campaignId })
        .first(
          t.db.raw('COUNT(*) AS n'),
          t.db.raw('SUM(clicks) AS clicks'),
          t.db.raw('SUM(revenue_cents) AS revenue'),
          t.db.raw('SUM(commission_cents) AS commission'),
        );
    const clustered = async () =>
      ENGINE === 'sqlite'
        ? /WITHOUT ROWID$/i.test(
            String((await t.db('sqlite_master').where({ name: 'analytics_hourly' }).first('sql'))?.sql).trim(),
          )
        : true;
    const before = { rows: await rows(), sums: await sums() };
    expect(before.rows).to.have.length(4);
    expect(await clustered()).to.equal(true);

    await t.db.migrate.down({ name: '20261202010000_analytics_rollup_clustered' });
    expect(await clustered()).to.equal(ENGINE !== 'sqlite');
    expect({ rows: await rows(), sums: await sums() }).to.deep.equal(before);

    await t.db.migrate.up({ name: '20261202010000_analytics_rollup_clustered' });
    expect(await clustered()).to.equal(true);
    expect({ rows: await rows(), sums: await sums() }).to.deep.equal(before);
    expect(await t.db.schema.hasTable('analytics_hourly_rebuilt')).to.equal(false);

    // The upsert's conflict target is the key: the same fact adds to its hour's row and its day's.
    const fact = {
      campaignId,
      affiliateId: Number(affiliateId),
      at: new Date(495_001 * 3_600_000),
      dimensions: { device: '', country: '', referrer: '', utm_source: '' },
      counts: { clicks: 1, revenue_cents: 5 },
    };
    await t.db.transaction(async (trx) => {
      await addToRollup(trx, [fact]);
      await addToRollup(trx, [fact]);
    });
    const added = await t
      .db('analytics_hourly')
      .where({ campaign_id: campaignId, shard: COUNTER_SHARD })
      .orderBy('hour')
      .select('hour', 'clicks', 'revenue_cents');
    expect(added.map((r) => [Number(r.hour), Number(r.clicks), Number(r.revenue_cents)])).to.deep.equal([
      [495_001, 2, 10],
      [1_000_020_625, 2, 10],
    ]);
    expect(await rows()).to.have.length(6);
    await t.db('campaigns').where({ id: campaignId }).delete();
    expect(await t.db('analytics_hourly').where({ campaign_id: campaignId }).count({ n: '*' }).first()).to.deep.equal({
      n: 0,
    });
  });

  it('undoes the payouts migration alone without losing a row (SQLite would cascade a rebuilt table)', async () => {
    const now = new Date();
    const campaignId = await addCampaign(t.db, 'down-test', { auto_approve_days: 3, payout_minimum_cents: 500 });
    await t.db('affiliates').insert({
      campaign_id: campaignId,
      email: 'k@x.co',
      email_key: 'k@x.co',
      referral_id: 'KEEP1',
      referral_key: 'KEEP1',
      status: 'active',
      password_hash: 'x',
      search_key: '',
      created_at: now,
      updated_at: now,
    });
    const [, undone] = await t.db.migrate.down({ name: '20261122100000_payouts_lifecycle' });
    expect(undone).to.deep.equal(['20261122100000_payouts_lifecycle']);
    expect(await t.db.schema.hasTable('clawbacks')).to.equal(false);
    expect(await t.db.schema.hasColumn('campaigns', 'auto_approve_days')).to.equal(false);
    expect(await t.db('affiliates').where({ campaign_id: campaignId }).count({ n: '*' }).first()).to.deep.equal({
      n: 1,
    });
    await t.db.migrate.latest();
    expect(
      await t.db('campaigns').where({ id: campaignId }).first('auto_approve_days', 'payout_minimum_cents'),
    ).to.deep.equal({
      auto_approve_days: null,
      payout_minimum_cents: 0,
    });
    await t.db('affiliates').where({ campaign_id: campaignId }).delete();
    await t.db('campaigns').where({ id: campaignId }).delete();
  });

  it('enforces uniqueness in the database, case-insensitively through the key columns', async () => {
    const now = new Date();
    const campaignId = await addCampaign(t.db, 'c1');
    const affiliate = (email: string, code: string) => ({
      campaign_id: campaignId,
      email,
      email_key: email.toLowerCase(),
      referral_id: code,
      referral_key: code.toUpperCase(),
      status: 'active' as const,
      password_hash: 'x',
      search_key: '',
      created_at: now,
      updated_at: now,
    });
    await t.db('affiliates').insert(affiliate('a@x.co', 'abc1'));
    let failure: unknown;
    try {
      await t.db('affiliates').insert(affiliate('b@x.co', 'ABC1'));
    } catch (err) {
      failure = err;
    }
    expect(failure, 'referral code unique on its upper-cased form').to.be.instanceOf(Error);
  });

  it('moves webhooks to fan-out at delivery: slots, subscriptions, retired secrets, URLs without credentials; and back', async () => {
    const now = new Date();
    const later = new Date(now.getTime() + 3_600_000);
    await t.db.migrate.down({ name: '20261126200000_webhook_fanout_at_delivery' });
    const campaignId = await addCampaign(t.db, 'hooks-migration');
    const endpoint = (url: string, events: string[], previous: string | null) => ({
      campaign_id: campaignId,
      url,
      events: JSON.stringify(events),
      description: null,
      status: 'enabled',
      disabled_reason: null,
      secret_enc: 'sealed-current',
      previous_secret_enc: previous,
      previous_secret_expires_at: previous === null ? null : later,
      failing_since: null,
      created_at: now,
      updated_at: now,
    });
    /** The table as it was before the migration: its row type today no longer has these columns. */
    const before = () => t.db<Record<string, unknown>>('webhook_endpoints');
    const [first] = await before().insert(endpoint('https://user:pw@a.example.com/h', ['payout.paid'], 'sealed-old'));
    const [second] = await before().insert(
      endpoint('https://b.example.com/h', ['payout.paid', 'affiliate.created'], null),
    );
    await t.db.migrate.latest();

    const rows = await t
      .db('webhook_endpoints')
      .where('campaign_id', campaignId)
      .orderBy('id')
      .select('id', 'url', 'slot');
    expect(rows).to.deep.equal([
      { id: first, url: 'https://a.example.com/h', slot: 1 },
      { id: second, url: 'https://b.example.com/h', slot: 2 },
    ]);
    expect(await t.db.schema.hasColumn('webhook_endpoints', 'previous_secret_enc')).to.equal(false);
    const subscriptions = await t
      .db('webhook_subscriptions')
      .where('campaign_id', campaignId)
      .orderBy(['endpoint_id', 'event_type'])
      .select('endpoint_id', 'event_type');
    expect(subscriptions).to.deep.equal([
      { endpoint_id: first, event_type: 'payout.paid' },
      { endpoint_id: second, event_type: 'affiliate.created' },
      { endpoint_id: second, event_type: 'payout.paid' },
    ]);
    const retired = await t.db('webhook_retired_secrets').select('endpoint_id', 'secret_enc');
    expect(retired).to.deep.equal([{ endpoint_id: first, secret_enc: 'sealed-old' }]);

    // A message recorded but not fanned out yet gets its deliveries when the migration is undone.
    const [messageId] = await t.db('webhook_messages').insert({
      campaign_id: campaignId,
      message_id: 'msg_migration',
      event_type: 'payout.paid',
      payload: '{}',
      created_at: now,
      fanout_pending: 1,
      fanout_cursor: 0,
    });
    await t.db.migrate.down({ name: '20261126200000_webhook_fanout_at_delivery' });
    const deliveries = await t
      .db('webhook_deliveries')
      .where('message_id', messageId)
      .orderBy('endpoint_id')
      .pluck('endpoint_id');
    expect(deliveries.map(Number)).to.deep.equal([first, second]);
    const restored = await before().where('id', Number(first)).first('previous_secret_enc');
    expect(restored).to.deep.equal({ previous_secret_enc: 'sealed-old' });
    await t.db.migrate.latest();
    await t.db('webhook_messages').delete();
    await t.db('webhook_endpoints').delete();
    await t.db('campaigns').where({ id: campaignId }).delete();
  });
});

describe(`the commission rules migration on a database with data (${ENGINE})`, () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase({ migrate: false });
  });
  after(async () => t.drop());

  it('gives refunded conversions their refund, links their clawback, keeps the commission and the rule; down keeps every row', async () => {
    // Up to the migration before it, one at a time.
    const before = MIGRATIONS.indexOf('20261126100000_commission_rules');
    for (let i = 0; i < before; i++) await t.db.migrate.up();
    const now = new Date();
    const campaignId = await addCampaign(t.db, 'old-shop', { commission_value: 1250 });
    const [affiliateId] = await t.db('affiliates').insert({
      campaign_id: campaignId,
      email: 'k@x.co',
      email_key: 'k@x.co',
      referral_id: 'OLD1',
      referral_key: 'OLD1',
      status: 'active',
      password_hash: 'x',
      search_key: '',
      created_at: now,
      updated_at: now,
    });
    const [payoutId] = await t.db('payouts').insert({
      campaign_id: campaignId,
      affiliate_id: affiliateId,
      amount_cents: 1500,
      commission_cents: 1500,
      status: 'paid',
      created_at: now,
    });
    const conversion = (orderId: string, extra: Record<string, unknown>) => ({
      campaign_id: campaignId,
      affiliate_id: affiliateId,
      order_id: orderId,
      order_value_cents: 12000,
      commission_cents: 1500,
      payout_id: payoutId,
      occurred_at: now,
      created_at: now,
      updated_at: now,
      ...extra,
    });
    const [refundedId] = await t
      .db('conversions')
      .insert(conversion('o-1', { status: 'rejected', refunded_at: now, refund_reason: 'chargeback' }));
    await t.db('conversions').insert(conversion('o-2', { status: 'paid' }));
    await t.db('clawbacks').insert({
      campaign_id: campaignId,
      affiliate_id: affiliateId,
      conversion_id: refundedId,
      source_payout_id: payoutId,
      amount_cents: 1500,
      reason: 'chargeback',
      created_at: now,
    });

    await t.db.migrate.up();
    const rows = await t
      .db('conversions')
      .orderBy('id')
      .select('order_id', 'intake_commission_cents', 'refunded_value_cents', 'source_key', 'commission_rule');
    expect(
      rows.map((r) => [
        r.order_id,
        Number(r.intake_commission_cents),
        Number(r.refunded_value_cents),
        Number(r.source_key),
      ]),
    ).to.deep.equal([
      ['o-1', 1500, 12000, 0],
      ['o-2', 1500, 0, 0],
    ]);
    expect(JSON.parse(rows[0]?.commission_rule ?? 'null')).to.deep.equal({
      source: 'campaign',
      commissionType: 'percent',
      commissionValue: 12.5,
    });
    const refunds = await t
      .db('refunds')
      .select('id', 'conversion_id', 'amount_cents', 'commission_removed_cents', 'reason');
    expect(
      refunds.map((r) => [
        Number(r.conversion_id),
        Number(r.amount_cents),
        Number(r.commission_removed_cents),
        r.reason,
      ]),
    ).to.deep.equal([[Number(refundedId), 12000, 1500, 'chargeback']]);
    expect(Number((await t.db('clawbacks').first('refund_id'))?.refund_id)).to.equal(Number(refunds[0]?.id));

    const [, undone] = await t.db.migrate.down();
    expect(undone).to.deep.equal(['20261126100000_commission_rules']);
    expect(await t.db('conversions').count({ n: '*' }).first()).to.deep.equal({ n: 2 });
    expect(await t.db('clawbacks').count({ n: '*' }).first()).to.deep.equal({ n: 1 });
    expect(await t.db('affiliates').count({ n: '*' }).first()).to.deep.equal({ n: 1 });
    await t.db.migrate.latest();
  });
});
