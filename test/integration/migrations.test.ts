import { expect } from 'chai';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';

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
  'affiliate_daily_stats',
  'portal_sessions',
  'portal_reset_tokens',
  'portal_counters',
  'portal_login_slots',
  'mail_outbox',
  'payout_conversions',
  'clawbacks',
];
const MIGRATIONS = [
  '20261121100000_initial_schema',
  '20261122100000_payouts_lifecycle',
  '20261122110000_webhooks',
  '20261122120000_affiliate_daily_stats',
  '20261122140000_byte_exact_dedupe_keys',
  '20261122140100_search_key_worst_case',
  '20261122150000_affiliate_search',
  '20261126300000_portal_and_mail',
];

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

  it('undoes the payouts migration alone without losing a row (SQLite would cascade a rebuilt table)', async () => {
    const now = new Date();
    const [planId] = await t.db('plans').where({ name: 'free' }).pluck('id');
    const [campaignId] = await t.db('campaigns').insert({
      public_id: 'down-test',
      name: 'c',
      plan_id: planId,
      commission_type: 'percent',
      commission_value: 1000,
      cookie_days: 30,
      auto_approve_days: 3,
      payout_minimum_cents: 500,
      created_at: now,
    });
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
    const [planId] = await t.db('plans').where({ name: 'free' }).pluck('id');
    const [campaignId] = await t.db('campaigns').insert({
      public_id: 'c1',
      name: 'c',
      plan_id: planId,
      commission_type: 'percent',
      commission_value: 1000,
      cookie_days: 30,
      created_at: now,
    });
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
});
