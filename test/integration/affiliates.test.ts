import bcrypt from 'bcrypt';
import { expect } from 'chai';
import { countLiveAffiliates } from '../../server/repositories/usage.js';
import { createMerchant, type Merchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { insertConversion, insertPayout, insertTrackingEvent } from '../helpers/rows.js';

const NOT_FOUND = { statusCode: 404, message: 'Affiliate not found', error: 'Not Found' };
const NUMERIC = {
  statusCode: 400,
  message: 'Validation failed (numeric string is expected)',
  error: 'Bad Request',
};
const EMAIL_TAKEN = { statusCode: 409, message: 'Email is not available', error: 'Conflict' };
const REFERRAL_TAKEN = { statusCode: 409, message: 'Referral ID is not available', error: 'Conflict' };

describe(`affiliates API, spec §4.1 to §4.5 (${ENGINE})`, () => {
  const t = useTestDaemon();
  let shop: Merchant;
  let other: Merchant;

  const api = (merchant: Merchant, method: string, path: string, body?: unknown) =>
    call(t.url, method, path, { key: merchant.key, body });
  const create = (merchant: Merchant, body: Record<string, unknown>) =>
    api(merchant, 'POST', '/v1/affiliates', { password: 'secret1', ...body });

  beforeEach(async () => {
    shop = t.merchant;
    other = await createMerchant(t.db);
  });

  describe('POST /v1/affiliates', () => {
    it('201 with the affiliate, active, a generated 8-character code, no password, no unset fields', async () => {
      const res = await create(shop, { email: 'ana@example.com' });
      expect(res.status).to.equal(201);
      expect(Object.keys(res.body).sort()).to.deep.equal(
        [
          'commissionOverride',
          'createdAt',
          'email',
          'groupId',
          'id',
          'parentAffiliateId',
          'referralId',
          'status',
          'totalCommissions',
          'totalConversions',
          'totalPaid',
          // Always there: null until the affiliate gives its payout details in the portal.
          'payoutMethod',
          'pixKeyType',
          'payoutAccount',
          'flags',
        ].sort(),
      );
      expect(res.body).to.include({
        email: 'ana@example.com',
        status: 'active',
        totalConversions: 0,
        totalCommissions: 0,
        totalPaid: 0,
      });
      expect(res.body.referralId).to.match(/^[A-Z0-9]{8}$/);
      expect(new Date(res.body.createdAt).toISOString()).to.equal(res.body.createdAt);
    });

    it('keeps every field sent, and the status when one is sent', async () => {
      const res = await create(shop, {
        email: 'bia@example.com',
        name: 'Bia',
        phone: '+55 11 99999-0000',
        referralId: 'Bia2026',
        status: 'pending',
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({
        name: 'Bia',
        phone: '+55 11 99999-0000',
        referralId: 'Bia2026',
        status: 'pending',
      });
    });

    it('stores the password only as a bcrypt hash', async () => {
      const res = await create(shop, { email: 'c@example.com', password: 'hunter22' });
      const row = await t.db('affiliates').where({ id: res.body.id }).first();
      expect(row?.password_hash).to.match(/^\$2[aby]\$04\$/);
      expect(await bcrypt.compare('hunter22', row?.password_hash ?? '')).to.equal(true);
      expect(JSON.stringify(res.body)).to.not.include('hunter22');
    });

    it('400 lists every failed rule, and stores nothing', async () => {
      const res = await api(shop, 'POST', '/v1/affiliates', {
        email: 'not-an-email',
        password: '12345',
        totalPaid: 9,
      });
      expect(res.body).to.deep.equal({
        statusCode: 400,
        message: [
          'email must be a valid email',
          'password must be at least 6 characters long',
          'property totalPaid should not exist',
        ],
        error: 'Bad Request',
      });
      const long = await create(shop, { email: 'd@example.com', password: 'x'.repeat(73) });
      expect(long.body.message).to.deep.equal(['password must be at most 72 bytes long (UTF-8)']);
      expect(await t.db('affiliates').count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    });

    it('409 Email is not available for the same e-mail in the campaign, whatever its case and spaces', async () => {
      expect((await create(shop, { email: 'Eva@Example.com' })).status).to.equal(201);
      const again = await create(shop, { email: '  eva@example.COM ' });
      expect(again.status).to.equal(409);
      expect(again.body).to.deep.equal(EMAIL_TAKEN);
      // Unique within the campaign only: another merchant may have the same person.
      expect((await create(other, { email: 'eva@example.com' })).status).to.equal(201);
    });

    it('409 Referral ID is not available across campaigns, case-insensitively, with the same words', async () => {
      expect((await create(other, { email: 'f@example.com', referralId: 'SUMMER24' })).status).to.equal(201);
      const here = await create(shop, { email: 'g@example.com', referralId: 'summer24' });
      expect(here.body).to.deep.equal(REFERRAL_TAKEN);
      await create(shop, { email: 'h@example.com', referralId: 'WINTER24' });
      expect((await create(shop, { email: 'i@example.com', referralId: 'Winter24' })).body).to.deep.equal(
        REFERRAL_TAKEN,
      );
    });

    it('403 with the spec’s message when the plan’s affiliate limit is reached', async () => {
      const small = await createMerchant(t.db, { limits: { maxAffiliates: 2 } });
      const plan = (
        await t
          .db('campaigns')
          .join('plans', 'plans.id', 'campaigns.plan_id')
          .where('campaigns.id', small.campaignId)
          .first('plans.name')
      ).name;
      expect((await create(small, { email: 'a@x.co' })).status).to.equal(201);
      expect((await create(small, { email: 'b@x.co' })).status).to.equal(201);
      const third = await create(small, { email: 'c@x.co' });
      expect(third.status).to.equal(403);
      expect(third.body).to.deep.equal({
        statusCode: 403,
        message: `Affiliate limit exceeded: Affiliate limit reached for ${plan} plan. Current: 2/2`,
        error: 'Forbidden',
      });
    });

    it('the built-in free plan stops at 10 affiliates', async () => {
      const free = await createMerchant(t.db, { plan: 'free' });
      for (let i = 0; i < 10; i++) expect((await create(free, { email: `p${i}@x.co` })).status).to.equal(201);
      expect((await create(free, { email: 'p10@x.co' })).body.message).to.equal(
        'Affiliate limit exceeded: Affiliate limit reached for free plan. Current: 10/10',
      );
    });

    it('concurrent creates never overshoot the limit', async () => {
      const small = await createMerchant(t.db, { limits: { maxAffiliates: 3 } });
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => create(small, { email: `racer${i}@x.co` })),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses.filter((s) => s === 201)).to.have.length(3);
      expect(statuses.filter((s) => s === 403)).to.have.length(17);
      expect(await t.db('affiliates').where({ campaign_id: small.campaignId }).count({ n: '*' }).first()).to.deep.equal(
        {
          n: 3,
        },
      );
    });

    it('concurrent creates with one e-mail store it once', async () => {
      const answers = await Promise.all(Array.from({ length: 10 }, () => create(shop, { email: 'same@x.co' })));
      expect(answers.filter((a) => a.status === 201)).to.have.length(1);
      for (const a of answers.filter((x) => x.status !== 201)) expect(a.body).to.deep.equal(EMAIL_TAKEN);
      expect(await countLiveAffiliates(t.db, shop.campaignId), 'failed creates give their slot back').to.equal(1);
    });
  });

  describe('GET /v1/affiliates', () => {
    async function seed() {
      const made = [];
      const people = [
        { email: 'ana@shop.com', name: 'Ana Souza', referralId: 'ANA1', status: 'active' },
        { email: 'bruno@mail.com', name: 'Bruno', referralId: 'BR100', status: 'inactive' },
        { email: 'carla@shop.com', name: 'Carla Anaya', referralId: 'CARLA', status: 'active' },
        { email: 'dan@x.io', name: 'Dan', referralId: 'ZZANA', status: 'pending' },
        { email: 'eve_5@x.io', name: 'Eve 50%', referralId: 'EVE5', status: 'active' },
      ];
      for (const p of people) {
        const res = await create(shop, p);
        expect(res.status, p.email).to.equal(201);
        made.push(res.body);
      }
      await create(other, { email: 'ana@other.com', name: 'Ana Other', referralId: 'ANAOTHER' });
      return made;
    }

    it('lists newest first with total, page, limit and totalPages; defaults page 1, limit 50', async () => {
      const made = await seed();
      const res = await api(shop, 'GET', '/v1/affiliates');
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ total: 5, page: 1, limit: 50, totalPages: 1 });
      expect(res.body.affiliates.map((a: { id: number }) => a.id)).to.deep.equal(made.map((a) => a.id).reverse());
    });

    it('pages: limit, page, and a page past the end is empty with the true total', async () => {
      const made = await seed();
      const ids = made.map((a) => a.id).reverse();
      const p1 = await api(shop, 'GET', '/v1/affiliates?limit=2&page=1');
      const p3 = await api(shop, 'GET', '/v1/affiliates?limit=2&page=3');
      const p9 = await api(shop, 'GET', '/v1/affiliates?limit=2&page=9');
      expect(p1.body).to.include({ total: 5, page: 1, limit: 2, totalPages: 3 });
      expect(p1.body.affiliates.map((a: { id: number }) => a.id)).to.deep.equal(ids.slice(0, 2));
      expect(p3.body.affiliates.map((a: { id: number }) => a.id)).to.deep.equal(ids.slice(4));
      expect(p9.body).to.deep.equal({ affiliates: [], total: 5, page: 9, limit: 2, totalPages: 3 });
    });

    it('filters by status, searches name, e-mail and referral code at once, case-insensitively, and combines both', async () => {
      await seed();
      const emails = async (query: string) =>
        (await api(shop, 'GET', `/v1/affiliates?${query}`)).body.affiliates
          .map((a: { email: string }) => a.email)
          .sort();
      expect(await emails('status=active')).to.deep.equal(['ana@shop.com', 'carla@shop.com', 'eve_5@x.io']);
      // "ana" is in Ana's name, in Carla Anaya's name, and in Dan's code ZZANA; not in the other campaign.
      expect(await emails('search=aNa')).to.deep.equal(['ana@shop.com', 'carla@shop.com', 'dan@x.io']);
      expect(await emails('search=SHOP.COM')).to.deep.equal(['ana@shop.com', 'carla@shop.com']);
      expect(await emails('search=br1')).to.deep.equal(['bruno@mail.com']);
      expect(await emails('search=ana&status=pending')).to.deep.equal(['dan@x.io']);
      // LIKE wildcards in the search are plain characters.
      expect(await emails('search=50%25')).to.deep.equal(['eve_5@x.io']);
      expect(await emails('search=_')).to.deep.equal(['eve_5@x.io']);
    });

    it('costs the same few queries for a page of 1 and a page of 100', async () => {
      for (let i = 0; i < 100; i++) {
        const a = (await create(shop, { email: `q${i}@x.co` })).body;
        if (i % 10 === 0) await insertConversion(t.db, shop.campaignId, a.id, 100, 'approved');
      }
      // Warms the key cache and, on MySQL, the FULLTEXT word size a daemon reads once.
      await api(shop, 'GET', '/v1/affiliates?limit=1&search=warm');
      const queriesFor = async (path: string) => {
        let count = 0;
        // Only the list's own queries: the key's lookup (its cache may expire on a slow machine)
        // and the daemon's background workers (webhook delivery, hold period) run on the same pool.
        const listener = (query: { sql: string }) => {
          if (!/\b(api_keys|webhook_\w+|auto_approve_days)\b/.test(query.sql)) count++;
        };
        t.daemon.db.on('query', listener);
        try {
          const res = await api(shop, 'GET', path);
          expect(res.status).to.equal(200);
        } finally {
          t.daemon.db.off('query', listener);
        }
        return count;
      };
      const one = await queriesFor('/v1/affiliates?limit=1');
      const hundred = await queriesFor('/v1/affiliates?limit=100');
      const searched = await queriesFor('/v1/affiliates?limit=100&search=x.co&status=active');
      expect(hundred).to.equal(one);
      expect(searched).to.equal(one);
      expect(one).to.be.at.most(4);
    });

    it('400 for limit above 100 and other bad parameters', async () => {
      const res = await api(shop, 'GET', '/v1/affiliates?limit=101');
      expect(res.body).to.deep.equal({
        statusCode: 400,
        message: ['limit must not be greater than 100'],
        error: 'Bad Request',
      });
      const bad = await api(shop, 'GET', '/v1/affiliates?page=0&limit=abc&status=gone&sort=name');
      expect(bad.status).to.equal(400);
      expect(bad.body.message).to.have.members([
        'status must be one of the following values: pending, active, inactive',
        'page must not be less than 1',
        'limit must be a number',
        'property sort should not exist',
      ]);
    });
  });

  describe('GET /v1/affiliates/{id}', () => {
    it('returns the affiliate of the key’s campaign', async () => {
      const made = (await create(shop, { email: 'a@x.co', name: 'A' })).body;
      const res = await api(shop, 'GET', `/v1/affiliates/${made.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(made);
    });

    it('400 for a non-numeric id; the same 404 for unknown, foreign and deleted ids', async () => {
      const mine = (await create(shop, { email: 'a@x.co' })).body;
      const theirs = (await create(other, { email: 'b@x.co' })).body;
      for (const id of ['abc', '1.5', '-1', '1e3']) {
        expect((await api(shop, 'GET', `/v1/affiliates/${id}`)).body, id).to.deep.equal(NUMERIC);
      }
      await api(shop, 'DELETE', `/v1/affiliates/${mine.id}`);
      const answers = await Promise.all(
        [theirs.id, mine.id, 999999, '99999999999999999999'].map((id) => api(shop, 'GET', `/v1/affiliates/${id}`)),
      );
      for (const a of answers) expect(a.text).to.equal(JSON.stringify(NOT_FOUND));
    });
  });

  describe('PATCH /v1/affiliates/{id}', () => {
    it('changes only what was sent and never createdAt', async () => {
      const made = (await create(shop, { email: 'a@x.co', name: 'Ana', phone: '123', referralId: 'ANA1' })).body;
      const res = await api(shop, 'PATCH', `/v1/affiliates/${made.id}`, {
        status: 'inactive',
        name: 'Ana B',
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ ...made, status: 'inactive', name: 'Ana B' });
      expect((await api(shop, 'GET', `/v1/affiliates/${made.id}`)).body.createdAt).to.equal(made.createdAt);
      const same = await api(shop, 'PATCH', `/v1/affiliates/${made.id}`, {});
      expect(same.body).to.deep.equal(res.body);
    });

    it('changes e-mail, code and password; null clears name and phone', async () => {
      const made = (await create(shop, { email: 'a@x.co', name: 'Ana', phone: '123' })).body;
      const before = (await t.db('affiliates').where({ id: made.id }).first())?.password_hash;
      const res = await api(shop, 'PATCH', `/v1/affiliates/${made.id}`, {
        email: 'new@x.co',
        referralId: 'NEWCODE',
        password: 'another1',
        name: null,
        phone: null,
      });
      const { name: _name, phone: _phone, ...unnamed } = made;
      expect(res.body).to.deep.equal({ ...unnamed, email: 'new@x.co', referralId: 'NEWCODE' });
      expect(res.body).to.not.have.any.keys('name', 'phone', 'password');
      const after = (await t.db('affiliates').where({ id: made.id }).first())?.password_hash;
      expect(after).to.not.equal(before);
      expect(await bcrypt.compare('another1', after ?? '')).to.equal(true);
      // The new values are searchable at once.
      const found = await api(shop, 'GET', '/v1/affiliates?search=newcode');
      expect(found.body.total).to.equal(1);
    });

    it('400 for invalid data, 404 for a foreign id, 409 for taken e-mails and codes', async () => {
      const a = (await create(shop, { email: 'a@x.co', referralId: 'AAA1' })).body;
      await create(shop, { email: 'b@x.co', referralId: 'BBB1' });
      const foreign = (await create(other, { email: 'c@x.co', referralId: 'CCC1' })).body;
      const invalid = await api(shop, 'PATCH', `/v1/affiliates/${a.id}`, {
        email: 'x',
        status: 'gone',
        createdAt: 'now',
      });
      expect(invalid.body.message).to.deep.equal([
        'email must be a valid email',
        'status must be one of the following values: pending, active, inactive',
        'property createdAt should not exist',
      ]);
      expect((await api(shop, 'PATCH', `/v1/affiliates/${foreign.id}`, { name: 'x' })).body).to.deep.equal(NOT_FOUND);
      expect((await api(shop, 'PATCH', '/v1/affiliates/x1', { name: 'x' })).body).to.deep.equal(NUMERIC);
      expect((await api(shop, 'PATCH', `/v1/affiliates/${a.id}`, { email: 'B@X.CO' })).body).to.deep.equal(EMAIL_TAKEN);
      expect((await api(shop, 'PATCH', `/v1/affiliates/${a.id}`, { referralId: 'ccc1' })).body).to.deep.equal(
        REFERRAL_TAKEN,
      );
      expect((await api(other, 'GET', `/v1/affiliates/${foreign.id}`)).body.name).to.equal(undefined);
      expect((await api(shop, 'GET', `/v1/affiliates/${a.id}`)).body).to.deep.equal(a);
    });
  });

  describe('payout details (docs/payouts.md)', () => {
    const CPF = { method: 'pix', pixKeyType: 'cpf', account: '529.982.247-25' };
    const STRIPE = { method: 'stripe', account: 'acct_1A2b3C4d5E6f7G8h' };
    const detailsOf = (a: { payoutMethod: unknown; pixKeyType: unknown; payoutAccount: unknown; flags: unknown }) => [
      a.payoutMethod,
      a.pixKeyType,
      a.payoutAccount,
      a.flags,
    ];

    it('create and update set them as the portal checks them, normalised; null clears them', async () => {
      const ana = await create(shop, { email: 'ana@x.co', payoutDetails: CPF });
      expect(ana.status, ana.text).to.equal(201);
      expect(detailsOf(ana.body)).to.deep.equal(['pix', 'cpf', '52998224725', []]);
      const bia = (
        await create(shop, { email: 'bia@x.co', payoutDetails: { method: 'paypal', account: ' Bia@X.co ' } })
      ).body;
      expect(detailsOf(bia)).to.deep.equal(['paypal', null, 'bia@x.co', []]);
      // The same account as a Pix e-mail key is the same person: flagged, as in the portal.
      const twin = await create(shop, {
        email: 'twin@x.co',
        payoutDetails: { method: 'pix', pixKeyType: 'email', account: 'BIA@x.co' },
      });
      expect(detailsOf(twin.body)).to.deep.equal(['pix', 'email', 'bia@x.co', ['duplicate_payout_identity']]);

      const moved = await api(shop, 'PATCH', `/v1/affiliates/${ana.body.id}`, { payoutDetails: STRIPE });
      expect(detailsOf(moved.body)).to.deep.equal(['stripe', null, STRIPE.account, []]);
      const renamed = await api(shop, 'PATCH', `/v1/affiliates/${ana.body.id}`, { name: 'Ana' });
      expect(detailsOf(renamed.body), 'fields not sent stay').to.deep.equal(detailsOf(moved.body));
      const cleared = await api(shop, 'PATCH', `/v1/affiliates/${twin.body.id}`, { payoutDetails: null });
      expect(detailsOf(cleared.body)).to.deep.equal([null, null, null, []]);
      expect(detailsOf((await api(shop, 'GET', `/v1/affiliates/${bia.id}`)).body)).to.deep.equal(detailsOf(bia));
    });

    it('400 with the spec’s body naming what to send; nothing is stored', async () => {
      const bad = async (body: Record<string, unknown>) => (await create(shop, { email: 'x@x.co', ...body })).body;
      expect(await bad({ payoutDetails: { ...CPF, account: '529.982.247-24' } })).to.deep.equal({
        statusCode: 400,
        message: [
          'payoutDetails.account must be a valid CPF for pixKeyType cpf: 11 digits, the last two its check digits (e.g. 529.982.247-25)',
        ],
        error: 'Bad Request',
      });
      expect((await bad({ payoutDetails: { method: 'pix', account: '+55 11 91234-5678' } })).message).to.deep.equal([
        'payoutDetails.pixKeyType is required',
      ]);
      expect((await bad({ payoutDetails: { method: 'wise', account: 'x' } })).message).to.deep.equal([
        'payoutDetails.method must be one of the following values: pix, paypal, stripe',
      ]);
      expect((await bad({ payoutDetails: { ...STRIPE, pixKeyType: 'cpf' } })).message).to.deep.equal([
        'property payoutDetails.pixKeyType should not exist',
      ]);
      expect(await countLiveAffiliates(t.db, shop.campaignId)).to.equal(0);

      const ana = (await create(shop, { email: 'ana@x.co', payoutDetails: CPF })).body;
      const refused = await api(shop, 'PATCH', `/v1/affiliates/${ana.id}`, {
        payoutDetails: { method: 'stripe', account: 'acct_12' },
      });
      expect(refused.status).to.equal(400);
      expect(refused.body.message).to.deep.equal([
        'payoutDetails.account must be a Stripe connected account id for method stripe: acct_ then letters and digits (e.g. acct_1A2b3C4d5E6f7G8h)',
      ]);
      const phone = await api(shop, 'PATCH', `/v1/affiliates/${ana.id}`, {
        payoutDetails: { method: 'pix', pixKeyType: 'phone', account: '+1 555 123 4567' },
      });
      expect(phone.body.message).to.deep.equal([
        'payoutDetails.account must be a Brazilian phone number with its area code for pixKeyType phone (e.g. +55 11 91234-5678)',
      ]);
      expect((await api(shop, 'GET', `/v1/affiliates/${ana.id}`)).body).to.deep.equal(ana);
    });
  });

  describe('DELETE /v1/affiliates/{id}', () => {
    const CHILD_TABLES = ['tracking_events', 'conversions', 'payouts'] as const;
    const rowsOf = async (affiliateId: number) => {
      const counts: Record<string, number> = {};
      for (const table of CHILD_TABLES) {
        counts[table] = Number((await t.db(table).where({ affiliate_id: affiliateId }).count({ n: '*' }).first())?.n);
      }
      counts.affiliates = Number((await t.db('affiliates').where({ id: affiliateId }).count({ n: '*' }).first())?.n);
      return counts;
    };

    it('removes the affiliate and every row of it in every table, and nothing of anyone else', async () => {
      const gone = (await create(shop, { email: 'gone@x.co' })).body;
      const kept = (await create(shop, { email: 'kept@x.co' })).body;
      for (const affiliate of [gone, kept]) {
        await insertTrackingEvent(t.db, shop.campaignId, affiliate.id);
        const payout = await insertPayout(t.db, shop.campaignId, affiliate.id, 500, 'paid');
        await insertConversion(t.db, shop.campaignId, affiliate.id, 500, 'paid', payout);
        await insertConversion(t.db, shop.campaignId, affiliate.id, 300, 'pending');
      }
      const res = await api(shop, 'DELETE', `/v1/affiliates/${gone.id}`);
      expect(res.status).to.equal(200);
      expect(res.text).to.equal('{"success":true,"message":"Affiliate deleted successfully"}');
      expect(await rowsOf(gone.id)).to.deep.equal({
        tracking_events: 0,
        conversions: 0,
        payouts: 0,
        affiliates: 0,
      });
      expect(await rowsOf(kept.id)).to.deep.equal({
        tracking_events: 1,
        conversions: 2,
        payouts: 1,
        affiliates: 1,
      });
    });

    it('400 for a non-numeric id; 404 for unknown, foreign and already deleted ids', async () => {
      const mine = (await create(shop, { email: 'a@x.co' })).body;
      const theirs = (await create(other, { email: 'b@x.co' })).body;
      expect((await api(shop, 'DELETE', '/v1/affiliates/abc')).body).to.deep.equal(NUMERIC);
      expect((await api(shop, 'DELETE', `/v1/affiliates/${theirs.id}`)).body).to.deep.equal(NOT_FOUND);
      expect((await api(other, 'GET', `/v1/affiliates/${theirs.id}`)).status).to.equal(200);
      expect((await api(shop, 'DELETE', `/v1/affiliates/${mine.id}`)).status).to.equal(200);
      expect((await api(shop, 'DELETE', `/v1/affiliates/${mine.id}`)).body).to.deep.equal(NOT_FOUND);
    });

    it('frees the plan slot and the e-mail and referral code', async () => {
      const small = await createMerchant(t.db, { limits: { maxAffiliates: 1 } });
      const first = (await create(small, { email: 'a@x.co', referralId: 'ONLY1' })).body;
      expect((await create(small, { email: 'b@x.co' })).status).to.equal(403);
      await api(small, 'DELETE', `/v1/affiliates/${first.id}`);
      expect((await create(small, { email: 'a@x.co', referralId: 'ONLY1' })).status).to.equal(201);
    });
  });

  describe('totals (spec §2.1)', () => {
    it('counts every conversion, sums approved and paid commissions and paid payouts, exactly', async () => {
      const a = (await create(shop, { email: 'a@x.co' })).body;
      const paid = await insertPayout(t.db, shop.campaignId, a.id, 30, 'paid');
      await insertPayout(t.db, shop.campaignId, a.id, 999, 'pending');
      await insertPayout(t.db, shop.campaignId, a.id, 888, 'failed');
      await insertConversion(t.db, shop.campaignId, a.id, 10, 'approved');
      await insertConversion(t.db, shop.campaignId, a.id, 20, 'paid', paid);
      await insertConversion(t.db, shop.campaignId, a.id, 4000, 'pending');
      await insertConversion(t.db, shop.campaignId, a.id, 5000, 'rejected');
      const expected = { totalConversions: 4, totalCommissions: 0.3, totalPaid: 0.3 };
      expect((await api(shop, 'GET', `/v1/affiliates/${a.id}`)).body).to.include(expected);
      expect((await api(shop, 'GET', '/v1/affiliates')).body.affiliates[0]).to.include(expected);
      expect((await api(shop, 'PATCH', `/v1/affiliates/${a.id}`, { name: 'A' })).body).to.include(expected);
    });
  });
});
