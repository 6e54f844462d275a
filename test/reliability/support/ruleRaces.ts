import { expect } from 'chai';
import type { Db } from '../../../server/db/knex.js';
import { shareOf } from '../../../shared/money.js';
import { createMerchant, servicesFor } from '../../helpers/daemon.js';
import { addAffiliate } from '../../helpers/events.js';
import { between, conversion, type Outcome, post, type Race, statuses, together } from './race.js';

/** The races of the commission rules (docs/commissions.md, docs/reliability.md). */

const conversionsOf = async (db: Db, campaignId: number) =>
  Number(
    ((await db('conversions').where('campaign_id', campaignId).count({ n: '*' }).first()) as { n: number | string }).n,
  );

const cents = (value: unknown) => Number(value ?? 0);

/**
 * Payments of one new customer sent at once, under `first`: exactly one is the customer's first
 * and earns; every other answer skips its payment (recurring_limit_reached) and stores nothing.
 */
async function firstPayment(race: Race): Promise<Outcome> {
  const merchant = await createMerchant(race.db);
  await servicesFor(race.db).campaigns.update(merchant.campaignId, { recurring: 'first' });
  const { code } = await addAffiliate(race.db, merchant.campaignId);
  const n = between(race.random, 5, 30);
  // The same customer by id or, on some payments, by an e-mail in another case with the same id.
  const answers = await together(
    race,
    Array.from(
      { length: n },
      (_, i) => (url: string) =>
        post(url, merchant.key, '/v1/events', {
          events: [conversion(merchant, code, `pay-${i}`, { customer_id: 'cus_race', customer_email: `R${i}@x.io` })],
        }),
    ),
  );
  expect(
    statuses(answers).filter((status) => status !== 200),
    'only 200',
  ).to.deep.equal([]);
  const accepted = answers.reduce((sum, answer) => sum + ((answer.json as { accepted: number }).accepted ?? 0), 0);
  const skipped = answers.flatMap((answer) => (answer.json as { skipped: { reason: string }[] }).skipped);
  expect(
    skipped.every((skip) => skip.reason === 'recurring_limit_reached'),
    JSON.stringify(skipped),
  ).to.equal(true);
  const stored = await conversionsOf(race.db, merchant.campaignId);
  const customers = await race.db('campaign_customers').where('campaign_id', merchant.campaignId).select('payments');
  expect(
    customers.map((c) => Number(c.payments)),
    'one customer, one payment that earned',
  ).to.deep.equal([1]);
  expect(accepted, 'one answer accepted it').to.equal(1);
  return {
    overshoots: Math.max(0, stored - 1),
    doubles: Math.max(0, accepted - 1) + Math.max(0, 1 - stored),
    requests: n,
  };
}

/**
 * A child's sale, approved with its second-tier conversion, refunded (in full or in part, some
 * refunds sent twice with one refund_id) while a payout of the parent takes that second-tier
 * conversion. Whatever the order: the refunds never take more than the order, the sale keeps the
 * rounded share of its commission, the parent's conversion its percent of it, and exactly what
 * the refunds took off it after the payout took it is clawed back from the parent.
 */
async function childRefundAndParentPayout(race: Race): Promise<Outcome> {
  const merchant = await createMerchant(race.db);
  const percent = between(race.random, 1, 50);
  await servicesFor(race.db).campaigns.update(merchant.campaignId, { secondTierPercent: percent });
  const parent = await addAffiliate(race.db, merchant.campaignId);
  const child = await addAffiliate(race.db, merchant.campaignId);
  await race.db('affiliates').where('id', child.id).update({ parent_affiliate_id: parent.id });
  const orderCents = between(race.random, 1_000, 1_000_000);
  const url = race.urls[0] ?? '';
  const sent = await post(url, merchant.key, '/v1/events', {
    events: [conversion(merchant, child.code, 'sale', { order_value: orderCents / 100 })],
  });
  expect((sent.json as { accepted: number }).accepted).to.equal(1);
  const sale = await race.db('conversions').where({ campaign_id: merchant.campaignId, source_key: 0 }).first();
  if (!sale) throw new Error('the sale was not stored');
  const approved = await post(url, merchant.key, '/v1/conversions/bulk', { status: 'approved', ids: [sale.id] });
  expect(approved.status).to.equal(200);

  const refunds = Array.from({ length: between(race.random, 1, 6) }, (_, i) =>
    race.random() < 0.25 ? {} : { amount: between(race.random, 1, orderCents) / 100, refund_id: `r-${i % 3}` },
  );
  const requests = [
    (at: string) => post(at, merchant.key, '/v1/payouts', { affiliateId: parent.id }),
    ...refunds.map((body) => (at: string) => post(at, merchant.key, '/v1/refunds', { order_id: 'sale', ...body })),
  ];
  const answers = await together(race, requests);
  expect(
    statuses(answers).filter((status) => ![200, 201, 409].includes(status)),
    'only 200, 201 or 409',
  ).to.deep.equal([]);

  const after = await race.db('conversions').where('id', sale.id).first();
  if (!after) throw new Error('the sale is gone');
  const tier = await race.db('conversions').where('source_conversion_id', sale.id).first();
  const refunded = await race.db('refunds').where('conversion_id', sale.id).select('amount_cents', 'refund_key');
  const refundedCents = refunded.reduce((sum, r) => sum + cents(r.amount_cents), 0);
  const keys = refunded.map((r) => r.refund_key).filter((key) => key !== null);
  expect(tier, 'the parent earned a second-tier conversion').to.not.equal(undefined);
  let wrong = 0;
  // Never more than the order; the sale's refunded value is the sum of its refunds.
  if (cents(after.refunded_value_cents) > orderCents || refundedCents !== cents(after.refunded_value_cents)) wrong++;
  const left = orderCents - cents(after.refunded_value_cents);
  if (
    left === 0
      ? after.status !== 'rejected'
      : cents(after.commission_cents) !== shareOf(cents(sale.intake_commission_cents), left, orderCents)
  ) {
    wrong++;
  }
  if (tier) {
    if ((tier.status === 'rejected') !== (after.status === 'rejected')) wrong++;
    if (
      tier.status !== 'rejected' &&
      cents(tier.commission_cents) !== shareOf(cents(after.commission_cents), percent * 100, 10_000)
    ) {
      wrong++;
    }
    const clawed = (await race.db('clawbacks').where('conversion_id', tier.id).select('amount_cents')).reduce(
      (sum, c) => sum + cents(c.amount_cents),
      0,
    );
    const held = tier.payout_id === null ? undefined : await race.db('payouts').where('id', tier.payout_id).first();
    const kept = tier.status === 'rejected' ? 0 : cents(tier.commission_cents);
    // In the payout: what it took is what the parent keeps plus what was clawed back; else nothing is clawed.
    if (held ? cents(held.commission_cents) !== kept + clawed : clawed !== 0) wrong++;
  }
  return {
    overshoots: wrong,
    doubles: keys.length - new Set(keys).size,
    requests: requests.length,
  };
}

export const RULE_RACES: Record<string, (race: Race) => Promise<Outcome>> = {
  "a new customer's first payment": firstPayment,
  "a child's refund racing its parent's payout": childRefundAndParentPayout,
};
