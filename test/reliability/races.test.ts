import { expect } from 'chai';
import type { Db } from '../../server/db/knex.js';
import { countLiveAffiliates } from '../../server/repositories/usage.js';
import { daemonUrls, GALERA_URLS, ON_CLUSTER, reachableOnEveryNode } from '../helpers/cluster.js';
import { createMerchant } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { addConversions } from '../helpers/lifecycle.js';
import { between, conversion, type Outcome, pick, post, type Race, statuses, together } from './support/race.js';
import { RULE_RACES } from './support/ruleRaces.js';
import { recorder } from './support/recorder.js';
import { reproduce, SEED, seededRandom } from './support/seed.js';
import { daemonEnv, type ServedDaemon, serve } from './support/served.js';

/** Rounds on this engine (RACE_ROUNDS); the suite runs on both engines, so 100 here is 200 in all. */
const ROUNDS = Number(process.env.RACE_ROUNDS ?? 100);
/** RACE_ONLY=text runs only the races whose name holds it (to hammer one while working on it). */
const ONLY = process.env.RACE_ONLY ?? '';

const countWhere = async (db: Db, table: 'conversions' | 'affiliates' | 'payouts', where: Record<string, unknown>) =>
  Number(((await db(table).where(where).count({ n: '*' }).first()) as { n?: number | string } | undefined)?.n ?? 0);

/** A variant of a text that the rule treats as the same (e-mails: case and spaces; codes: case). */
const sameEmail = (random: () => number, email: string) =>
  pick(random, [email, email.toUpperCase(), ` ${email}`, email.replace(/^./, (c) => c.toUpperCase())]);
const sameCode = (random: () => number, code: string) => pick(random, [code, code.toLowerCase(), code.toUpperCase()]);

const sumCents = (rows: { cents: number | string | null }[]) =>
  rows.reduce((sum, row) => sum + Number(row.cents ?? 0), 0);

/**
 * Where each approved conversion of an affiliate went: how many payouts hold it (each at most
 * one), and whether the payouts' commission sums equal the commissions of what they hold.
 */
async function payoutLedger(db: Db, affiliateId: number) {
  const links = await db('payout_conversions')
    .join('payouts', 'payouts.id', 'payout_conversions.payout_id')
    .where('payouts.affiliate_id', affiliateId)
    .select('payout_conversions.conversion_id as conversionId');
  const held = new Map<number, number>();
  for (const link of links) held.set(Number(link.conversionId), (held.get(Number(link.conversionId)) ?? 0) + 1);
  const payouts = sumCents(await db('payouts').where('affiliate_id', affiliateId).select('commission_cents as cents'));
  const inPayouts = sumCents(
    await db('conversions')
      .where('affiliate_id', affiliateId)
      .whereNotNull('payout_id')
      .select('commission_cents as cents'),
  );
  return { heldTwice: [...held.values()].filter((n) => n > 1).length, payouts, inPayouts };
}

/**
 * The races of docs/reliability.md. Each makes its own campaign, fires 5 to 30 requests at once and checks
 * the database, not the answers alone. A new race is one more entry in this list, and runs on
 * every engine and on the Galera cluster of `npm run test:cluster` with nothing else to change
 * (the commission rules' races are in support/ruleRaces.ts).
 */
const RACES: Record<string, (race: Race) => Promise<Outcome>> = {
  ...RULE_RACES,
  async 'same order_id'(race) {
    const merchant = await createMerchant(race.db);
    const { code } = await addAffiliate(race.db, merchant.campaignId);
    const n = between(race.random, 5, 30);
    const answers = await together(
      race,
      Array.from(
        { length: n },
        (_, i) => (url: string) =>
          post(url, merchant.key, '/v1/events', {
            events: [
              { ...conversion(merchant, code, 'same-order'), ...(race.random() < 0.5 && { event_id: `e${i}` }) },
            ],
          }),
      ),
    );
    expect(
      statuses(answers).every((status) => status === 200),
      String(statuses(answers)),
    ).to.equal(true);
    const accepted = answers.reduce((sum, answer) => sum + ((answer.json as { accepted: number }).accepted ?? 0), 0);
    const stored = await countWhere(race.db, 'conversions', { campaign_id: merchant.campaignId });
    expect(accepted, 'one answer accepted it').to.equal(1);
    return { overshoots: 0, doubles: Math.max(0, stored - 1) + Math.max(0, accepted - 1), requests: n };
  },

  async 'same e-mail'(race) {
    const merchant = await createMerchant(race.db);
    const n = between(race.random, 5, 30);
    const answers = await together(
      race,
      Array.from(
        { length: n },
        () => (url: string) =>
          post(url, merchant.key, '/v1/affiliates', {
            email: sameEmail(race.random, 'ana@shop.example'),
            password: 'race-pass1',
          }),
      ),
    );
    const created = statuses(answers).filter((status) => status === 201).length;
    expect(
      statuses(answers).filter((status) => status !== 201 && status !== 409),
      'only 201 or 409',
    ).to.deep.equal([]);
    const stored = await countWhere(race.db, 'affiliates', { campaign_id: merchant.campaignId });
    return { overshoots: 0, doubles: Math.max(0, stored - 1) + Math.max(0, created - 1), requests: n };
  },

  async 'same referral code'(race) {
    const merchants = [await createMerchant(race.db), await createMerchant(race.db)];
    const code = `RACE${Math.floor(race.random() * 1e9)}`;
    const n = between(race.random, 5, 30);
    const answers = await together(
      race,
      Array.from(
        { length: n },
        (_, i) => (url: string) =>
          // Codes are unique across campaigns: the racers come from two of them.
          post(url, pick(race.random, merchants).key, '/v1/affiliates', {
            email: `racer${i}@shop.example`,
            password: 'race-pass1',
            referralId: sameCode(race.random, code),
          }),
      ),
    );
    const created = statuses(answers).filter((status) => status === 201).length;
    expect(
      statuses(answers).filter((status) => status !== 201 && status !== 409),
      'only 201 or 409',
    ).to.deep.equal([]);
    const stored = Number(
      (
        (await race.db('affiliates').where('referral_key', code.toUpperCase()).count({ n: '*' }).first()) as {
          n: number;
        }
      ).n,
    );
    return { overshoots: 0, doubles: Math.max(0, stored - 1) + Math.max(0, created - 1), requests: n };
  },

  async 'the last monthly slot'(race) {
    const max = between(race.random, 1, 5);
    const merchant = await createMerchant(race.db, { limits: { maxMonthlyConversions: max } });
    const { code } = await addAffiliate(race.db, merchant.campaignId);
    if (max > 1) {
      const filled = await post(race.urls[0] ?? '', merchant.key, '/v1/events', {
        events: Array.from({ length: max - 1 }, (_, i) => conversion(merchant, code, `before-${i}`)),
      });
      expect(filled.status).to.equal(200);
    }
    const n = between(race.random, 5, 30);
    const answers = await together(
      race,
      Array.from(
        { length: n },
        (_, i) => (url: string) =>
          post(url, merchant.key, '/v1/events', { events: [conversion(merchant, code, `racer-${i}`)] }),
      ),
    );
    expect(
      statuses(answers).filter((status) => status !== 200 && status !== 403),
      'only 200 or 403',
    ).to.deep.equal([]);
    const stored = await countWhere(race.db, 'conversions', { campaign_id: merchant.campaignId });
    const usage = Number(
      (
        (await race
          .db('monthly_usage')
          .where('campaign_id', merchant.campaignId)
          .sum({ n: 'conversions' })
          .first()) as {
          n: number | string;
        }
      ).n,
    );
    expect(statuses(answers).filter((status) => status === 200).length, 'one request took the slot').to.equal(1);
    return { overshoots: Math.max(0, stored - max) + Math.max(0, usage - max), doubles: 0, requests: n };
  },

  async 'the last affiliate slot'(race) {
    const max = between(race.random, 1, 5);
    const merchant = await createMerchant(race.db, { limits: { maxAffiliates: max } });
    for (let i = 0; i < max - 1; i++) {
      const made = await post(race.urls[0] ?? '', merchant.key, '/v1/affiliates', {
        email: `first${i}@shop.example`,
        password: 'race-pass1',
      });
      expect(made.status).to.equal(201);
    }
    const n = between(race.random, 5, 30);
    const answers = await together(
      race,
      Array.from(
        { length: n },
        (_, i) => (url: string) =>
          post(url, merchant.key, '/v1/affiliates', { email: `racer${i}@shop.example`, password: 'race-pass1' }),
      ),
    );
    expect(
      statuses(answers).filter((status) => status !== 201 && status !== 403),
      'only 201 or 403',
    ).to.deep.equal([]);
    const stored = await countWhere(race.db, 'affiliates', { campaign_id: merchant.campaignId });
    const counter = await countLiveAffiliates(race.db, merchant.campaignId);
    expect(statuses(answers).filter((status) => status === 201).length, 'one request took the slot').to.equal(1);
    return { overshoots: Math.max(0, stored - max) + Math.max(0, counter - max), doubles: 0, requests: n };
  },

  async 'payouts over the same conversions'(race) {
    const merchant = await createMerchant(race.db);
    const affiliate = await addAffiliate(race.db, merchant.campaignId);
    const commissions = Array.from({ length: between(race.random, 1, 20) }, () => between(race.random, 1, 99_999));
    await addConversions(race.db, merchant.campaignId, affiliate.id, commissions, { status: 'approved' });
    const n = between(race.random, 5, 30);
    const answers = await together(
      race,
      Array.from(
        { length: n },
        () => (url: string) =>
          // Single and bulk payouts take the same conversions; each must land in one payout only.
          race.random() < 0.5
            ? post(url, merchant.key, '/v1/payouts', { affiliateId: affiliate.id })
            : post(url, merchant.key, '/v1/payouts/bulk', { affiliateIds: [affiliate.id] }),
      ),
    );
    expect(
      statuses(answers).filter((status) => ![200, 201, 409].includes(status)),
      'only 200, 201 or 409',
    ).to.deep.equal([]);
    const ledger = await payoutLedger(race.db, affiliate.id);
    const total = commissions.reduce((a, b) => a + b, 0);
    expect(ledger.inPayouts, 'every approved conversion went into a payout').to.equal(total);
    const payouts = await countWhere(race.db, 'payouts', { affiliate_id: affiliate.id });
    return {
      overshoots: Math.max(0, ledger.payouts - total),
      doubles: ledger.heldTwice + Math.max(0, payouts - 1),
      requests: n,
    };
  },

  async 'a refund racing a payout'(race) {
    const merchant = await createMerchant(race.db);
    const affiliate = await addAffiliate(race.db, merchant.campaignId);
    const commissions = Array.from({ length: between(race.random, 2, 10) }, () => between(race.random, 1, 99_999));
    const ids = await addConversions(race.db, merchant.campaignId, affiliate.id, commissions, { status: 'approved' });
    const orders = await race.db('conversions').whereIn('id', ids).orderBy('id').pluck('order_id');
    const refunded = orders.filter(() => race.random() < 0.5);
    const requests = [
      (url: string) => post(url, merchant.key, '/v1/payouts', { affiliateId: affiliate.id }),
      // A refund sent twice must still take the commission back once.
      ...[...refunded, ...refunded].map(
        (orderId) => (url: string) => post(url, merchant.key, '/v1/refunds', { order_id: orderId }),
      ),
    ];
    const answers = await together(race, requests);
    expect(
      statuses(answers).filter((status) => ![200, 201, 409].includes(status)),
      'only 200, 201 or 409',
    ).to.deep.equal([]);
    const rows = await race
      .db('conversions')
      .whereIn('order_id', refunded)
      .where('campaign_id', merchant.campaignId)
      .select('id', 'status', 'payout_id', 'commission_cents');
    expect(
      rows.map((row) => row.status),
      'every refunded order is rejected',
    ).to.deep.equal(refunded.map(() => 'rejected'));
    // A clawback is owed exactly when the payout took the conversion before the refund (docs/payouts.md).
    const clawbacks = await race
      .db('clawbacks')
      .where('affiliate_id', affiliate.id)
      .select('conversion_id', 'amount_cents');
    const owed = rows.filter((row) => row.payout_id !== null);
    const clawed = new Map(clawbacks.map((c) => [Number(c.conversion_id), Number(c.amount_cents)]));
    const wrong =
      owed.filter((row) => clawed.get(Number(row.id)) !== Number(row.commission_cents)).length +
      clawbacks.filter((c) => !owed.some((row) => Number(row.id) === Number(c.conversion_id))).length;
    const ledger = await payoutLedger(race.db, affiliate.id);
    expect(ledger.payouts, 'the payout sums what it holds').to.equal(ledger.inPayouts);
    return {
      overshoots: wrong,
      doubles: ledger.heldTwice + Math.max(0, clawbacks.length - owed.length),
      requests: requests.length,
    };
  },
};

// SQLite serves one daemon at a time; MariaDB is shared by several (README.md#running-on-mysql--mariadb); on a Galera
// cluster each node has its own daemon, and every request may land on any of them.
const DAEMONS = ON_CLUSTER ? GALERA_URLS.length : ENGINE === 'mysql' ? 2 : 1;
const WHERE = ON_CLUSTER
  ? `${DAEMONS} daemons, one per Galera node`
  : ENGINE === 'mysql'
    ? 'two daemons on one database'
    : 'one daemon';

describe(`races (${ENGINE}, ${WHERE})`, function () {
  this.timeout(20 * 60_000);
  let database: TestDatabase;
  const daemons: ServedDaemon[] = [];

  before(async () => {
    database = await createTestDatabase();
    await reachableOnEveryNode(database.url);
    for (const url of daemonUrls(database.url, DAEMONS)) {
      daemons.push(await serve(daemonEnv(url, { API_KEY_CACHE_MS: '0' })));
    }
    recorder.secret('race-pass1');
  });
  after(async () => {
    for (const daemon of daemons) await daemon.stop('SIGTERM');
    await database?.drop();
  });

  it(`${ROUNDS} randomised rounds: zero overshoots, zero doubles`, async () => {
    const random = seededRandom(SEED + 2);
    const race: Race = { db: database.db, urls: daemons.map((daemon) => daemon.url), random };
    const names = Object.keys(RACES).filter((name) => name.includes(ONLY));
    const byRace = new Map<string, Outcome & { rounds: number }>();
    for (let round = 0; round < ROUNDS; round++) {
      const name = pick(random, names);
      const outcome = await (RACES[name] as (race: Race) => Promise<Outcome>)(race).catch((err: unknown) => {
        throw new Error(`${reproduce(`round ${round} (${name})`)}: ${(err as Error).message}`);
      });
      const total = byRace.get(name) ?? { rounds: 0, overshoots: 0, doubles: 0, requests: 0 };
      byRace.set(name, {
        rounds: total.rounds + 1,
        overshoots: total.overshoots + outcome.overshoots,
        doubles: total.doubles + outcome.doubles,
        requests: total.requests + outcome.requests,
      });
      recorder.count('races: rounds');
      recorder.count('races: concurrent requests', outcome.requests);
      recorder.count('races: overshoots', outcome.overshoots);
      recorder.count('races: doubles', outcome.doubles);
    }
    for (const [name, total] of byRace) {
      console.log(
        `      ${name}: ${total.rounds} rounds, ${total.requests} requests, ${total.overshoots} overshoots, ${total.doubles} doubles`,
      );
    }
    const sum = [...byRace.values()].reduce((a, b) => ({
      ...a,
      overshoots: a.overshoots + b.overshoots,
      doubles: a.doubles + b.doubles,
    }));
    expect({ overshoots: sum.overshoots, doubles: sum.doubles }).to.deep.equal({ overshoots: 0, doubles: 0 });
  });
});
