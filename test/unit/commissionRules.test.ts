import { expect } from 'chai';
import { earn, mailbox, secondTier, secondTierCents } from '../../server/services/events/commission.js';
import { addMonths, customerKey, earnsUnder } from '../../server/services/events/recurring.js';
import type { ReferralTarget } from '../../server/repositories/events.js';
import type { LevelRule } from '../../server/repositories/ruleColumns.js';
import { shareOf } from '../../shared/money.js';
import type { TrackingEvent } from '../../shared/schemas/event.js';

const level = (hundredths: number, rest: Partial<LevelRule> = {}): LevelRule => ({
  rate: { type: 'percent', hundredths },
  products: [],
  recurring: null,
  secondTierHundredths: null,
  ...rest,
});

const target = (rest: Partial<ReferralTarget> = {}): ReferralTarget => ({
  id: 7,
  campaignId: 1,
  referralKey: 'ANA',
  status: 'active',
  email: 'ana@example.com',
  groupId: null,
  override: null,
  parent: null,
  ...rest,
});

const sale = (properties: Record<string, unknown> = {}): TrackingEvent =>
  ({
    event_type: 'conversion',
    campaign_id: 'c',
    affiliate_id: 'ANA',
    properties: { order_id: 'o', order_value: 100, ...properties },
  }) as TrackingEvent;

describe('commission rules, computed', () => {
  it('shareOf rounds half up once, exactly past 2^53', () => {
    expect(shareOf(1999, 14990, 19990)).to.equal(1499);
    expect(shareOf(1999, 4995, 19990)).to.equal(500); // 499.5 → 500
    expect(shareOf(1, 1, 2)).to.equal(1);
    expect(shareOf(1, 1, 3)).to.equal(0);
    expect(shareOf(1_000_000_000_000, 9999, 10_000)).to.equal(999_900_000_000);
    expect(secondTierCents(1235, 1000)).to.equal(124); // 10 % of 12.35 = 1.235 → 1.24
  });

  it('precedence: override, group product, group rate, campaign product, campaign rate', () => {
    const campaign = level(1000, {
      products: [{ product: 'Pro', type: 'fixed', hundredths: 3000 }],
      recurring: 'lifetime',
    });
    const group = level(1500, {
      products: [{ product: 'Team', type: 'percent', hundredths: 2000 }],
      recurring: 'first',
    });
    const rules = { campaigns: new Map([[1, campaign]]), groups: new Map([[3, group]]) };
    const of = (t: ReferralTarget, product?: string) =>
      earn(t, sale(product === undefined ? {} : { product }), 10_000, rules);
    expect(of(target()).rule).to.deep.equal({ source: 'campaign', commissionType: 'percent', commissionValue: 10 });
    expect(of(target(), 'Pro')).to.deep.include({ commissionCents: 3000, recurring: 'lifetime' });
    expect(of(target({ groupId: 3 }), 'Pro')).to.deep.include({ commissionCents: 1500, recurring: 'first' });
    expect(of(target({ groupId: 3 }), 'Team').rule).to.deep.equal({
      source: 'product',
      groupId: 3,
      commissionType: 'percent',
      commissionValue: 20,
    });
    const star = target({ groupId: 3, override: { type: 'fixed', hundredths: 123 } });
    expect(of(star, 'Team')).to.deep.include({ commissionCents: 123, recurring: 'first' });
    expect(of(star, 'Team').rule.source).to.equal('affiliate');
  });

  it('second tier: the parent group’s percent, else the campaign’s; none for an inactive parent or 0', () => {
    const rules = {
      campaigns: new Map([[1, level(1000, { secondTierHundredths: 500 })]]),
      groups: new Map([[4, level(1000, { secondTierHundredths: 2500 })]]),
    };
    const child = (parent: ReferralTarget['parent']) => target({ parent });
    expect(secondTier(child({ id: 2, status: 'active', groupId: null }), 1000, rules)).to.deep.equal({
      parentId: 2,
      commissionCents: 50,
      rule: { source: 'second_tier', commissionType: 'percent', commissionValue: 5 },
    });
    expect(secondTier(child({ id: 2, status: 'active', groupId: 4 }), 1000, rules)?.rule).to.deep.include({
      groupId: 4,
      commissionValue: 25,
    });
    expect(secondTier(child({ id: 2, status: 'inactive', groupId: null }), 1000, rules)).to.equal(undefined);
    expect(secondTier(child({ id: 2, status: 'active', groupId: null }), 9, rules)).to.equal(undefined);
  });

  it('a mailbox ignores case, spaces and a +tag', () => {
    expect(mailbox(' Ana.Lima+Shop@Example.COM ')).to.equal('ana.lima@example.com');
    expect(mailbox('plain')).to.equal('plain');
    expect(
      earn(target(), sale({ customer_email: 'ANA+x@example.com' }), 100, {
        campaigns: new Map([[1, level(1000)]]),
        groups: new Map(),
      }).flags,
    ).to.deep.equal(['self_referral']);
  });

  it('recurring: calendar months (the 31st becomes the month’s last day), first, lifetime', () => {
    expect(addMonths(new Date('2026-01-31T10:00:00Z'), 1).toISOString()).to.equal('2026-02-28T10:00:00.000Z');
    expect(addMonths(new Date('2024-01-31T00:00:00Z'), 1).toISOString()).to.equal('2024-02-29T00:00:00.000Z');
    expect(addMonths(new Date('2026-11-15T00:00:00Z'), 3).toISOString()).to.equal('2027-02-15T00:00:00.000Z');
    const first = new Date('2026-01-15T00:00:00Z');
    expect(earnsUnder({ months: 1 }, false, first, new Date('2026-02-14T23:59:59.999Z'))).to.equal(true);
    expect(earnsUnder({ months: 1 }, false, first, new Date('2026-02-15T00:00:00Z'))).to.equal(false);
    expect(earnsUnder('first', true, first, new Date('2030-01-01'))).to.equal(true);
    expect(earnsUnder('first', false, first, first)).to.equal(false);
    expect(earnsUnder('lifetime', false, first, new Date('2099-01-01'))).to.equal(true);
  });

  it('a customer is the provider’s id, else customer_id, else the e-mail (case aside)', () => {
    expect(customerKey(sale({ customer_id: 'c1', customer_email: 'a@b.c' }), 'cus_9')).to.equal('provider:cus_9');
    expect(customerKey(sale({ customer_id: ' c1 ', customer_email: 'a@b.c' }))).to.equal('id:c1');
    expect(customerKey(sale({ customer_id: 42 }))).to.equal('id:42');
    expect(customerKey(sale({ customer_email: ' A@B.C ' }))).to.equal('email:a@b.c');
    expect(customerKey(sale({ customer_id: '', customer_email: '' }))).to.equal(undefined);
  });
});
