import { expect } from 'chai';
import { servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { call } from '../helpers/http.js';

/**
 * `search` on each engine's text index (README, Affiliates): every substring of name, e-mail or
 * referral code, case-insensitively, whether the index serves the term or LIKE alone does.
 */
describe(`affiliates search (${ENGINE})`, () => {
  const t = useTestDaemon();
  const people = [
    { email: 'maria.silva@gmail.com', name: 'Maria da Silva', referralId: 'MARIA2026' },
    { email: 'joao@loja.com.br', name: 'João Gonçalves', referralId: 'JOAO' },
    { email: 'ana@shop.com', name: 'Ana', referralId: 'ZZANA' },
    { email: 'odd.name@x.io', name: 'Star * 100% off - "quoted" O\'Neil', referralId: 'ODD1' },
    { email: 'yamada@example.jp', name: '山田太郎 🎉', referralId: 'YAMADA' },
    { email: 'eve_5@x.io', name: 'Eve', referralId: 'EVE5' },
  ];

  const found = async (term: string) => {
    const res = await call(t.url, 'GET', `/v1/affiliates?limit=100&search=${encodeURIComponent(term)}`, {
      key: t.merchant.key,
    });
    expect(res.status, `search=${term}: ${res.text}`).to.equal(200);
    const emails = res.body.affiliates.map((a: { email: string }) => a.email).sort();
    expect(res.body.total, `total for ${term}`).to.equal(emails.length);
    return emails;
  };

  beforeEach(async () => {
    for (const person of people) {
      const res = await call(t.url, 'POST', '/v1/affiliates', {
        key: t.merchant.key,
        body: { ...person, password: 'secret1' },
      });
      expect(res.status, res.text).to.equal(201);
    }
  });

  it('finds any substring of 3 or more characters, inside a word, across words and punctuation', async () => {
    expect(await found('ANA')).to.deep.equal(['ana@shop.com']); // inside the code ZZANA, the name, the e-mail
    expect(await found('ilva')).to.deep.equal(['maria.silva@gmail.com']);
    expect(await found('a.silva@gm')).to.deep.equal(['maria.silva@gmail.com']);
    expect(await found('ria da si')).to.deep.equal(['maria.silva@gmail.com']);
    expect(await found('ia2026')).to.deep.equal(['maria.silva@gmail.com']);
    expect(await found('.com')).to.deep.equal(['ana@shop.com', 'joao@loja.com.br', 'maria.silva@gmail.com']);
    expect(await found('çalves')).to.deep.equal(['joao@loja.com.br']);
    expect(await found('JOÃO G')).to.deep.equal(['joao@loja.com.br']);
    expect(await found('山田太')).to.deep.equal(['yamada@example.jp']);
    expect(await found('maria.silva@gmail.comx')).to.deep.equal([]);
    expect(await found('silvana')).to.deep.equal([]);
  });

  it('serves terms of 1 and 2 characters and terms without letters, by reading the campaign', async () => {
    expect(await found('zz')).to.deep.equal(['ana@shop.com']);
    expect(await found('_')).to.deep.equal(['eve_5@x.io']);
    expect(await found('5@')).to.deep.equal(['eve_5@x.io']);
    expect(await found('🎉')).to.deep.equal(['yamada@example.jp']);
    expect(await found('山田')).to.deep.equal(['yamada@example.jp']);
    expect(await found('@')).to.have.length(people.length);
  });

  it('takes quotes, *, %, -, operators and keywords as plain text: never a 500', async () => {
    expect(await found('"quoted"')).to.deep.equal(['odd.name@x.io']);
    expect(await found('- "q')).to.deep.equal(['odd.name@x.io']);
    expect(await found("o'neil")).to.deep.equal(['odd.name@x.io']);
    expect(await found('star *')).to.deep.equal(['odd.name@x.io']);
    expect(await found('100%')).to.deep.equal(['odd.name@x.io']);
    expect(await found('% off - "')).to.deep.equal(['odd.name@x.io']);
    expect(await found('*')).to.deep.equal(['odd.name@x.io']);
    expect(await found('"')).to.deep.equal(['odd.name@x.io']);
    for (const term of [
      '""',
      '-maria',
      '+maria -silva',
      'maria*',
      'NEAR(maria silva)',
      'maria AND silva',
      'maria OR x',
      'NOT maria',
      'search_key:maria',
      '(maria)',
      '^maria',
      '~maria',
      '@maria',
      'ma%ia',
      'ma_ia',
      '\\',
      "'); DROP TABLE affiliates; --",
      '\u0000maria',
      'mar\u0000',
      '\u{1F600}\u{1F600}\u{1F600}',
    ]) {
      expect(await found(term), term).to.deep.equal([]);
    }
    expect(await found('maria')).to.deep.equal(['maria.silva@gmail.com']);
  });

  it('follows updates and deletes at once', async () => {
    const list = await call(t.url, 'GET', '/v1/affiliates?search=silva', { key: t.merchant.key });
    const id = list.body.affiliates[0].id;
    const patched = await call(t.url, 'PATCH', `/v1/affiliates/${id}`, {
      key: t.merchant.key,
      body: { name: 'Maria Pereira', email: 'mp@proton.me', referralId: 'NEWCODE7' },
    });
    expect(patched.status).to.equal(200);
    expect(await found('silva')).to.deep.equal([]);
    expect(await found('pereira')).to.deep.equal(['mp@proton.me']);
    expect(await found('wcode')).to.deep.equal(['mp@proton.me']);
    expect((await call(t.url, 'DELETE', `/v1/affiliates/${id}`, { key: t.merchant.key })).status).to.equal(200);
    expect(await found('pereira')).to.deep.equal([]);
    expect(await found('maria')).to.deep.equal([]);
  });

  it('keeps to the campaign and combines with status', async () => {
    const otherShop = await call(t.url, 'GET', '/v1/affiliates?search=maria', { key: t.merchant.key });
    expect(otherShop.body.total).to.equal(1);
    const inactive = await call(t.url, 'GET', '/v1/affiliates?search=maria&status=inactive', { key: t.merchant.key });
    expect(inactive.body.total).to.equal(0);
  });
});

describe(`affiliate search migration (${ENGINE})`, () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase({ migrate: false });
  });
  after(async () => t.drop());

  it('indexes the affiliates already stored, and its down removes the index', async () => {
    await t.db.migrate.up({ name: '20261121100000_initial_schema' });
    while ((await t.db.migrate.status()) > 1) await t.db.migrate.up();
    const [planId] = await t.db('plans').where({ name: 'free' }).pluck('id');
    const [campaignId] = await t.db('campaigns').insert({
      public_id: 'search-shop',
      name: 'Search shop',
      plan_id: planId,
      commission_type: 'percent',
      commission_value: 1000,
      cookie_days: 30,
      created_at: new Date(),
    });
    await addAffiliate(t.db, Number(campaignId), { code: 'OLDZZANA1', beforeSearchIndex: true });
    await addAffiliate(t.db, Number(campaignId), { code: 'OLDB2', beforeSearchIndex: true });
    await t.db.migrate.latest();
    const { affiliates } = servicesFor(t.db);
    const search = async (term: string) =>
      (await affiliates.list(Number(campaignId), { search: term, page: 1, limit: 10 })).affiliates.map(
        (a) => a.referralId,
      );
    expect(await search('zzana')).to.deep.equal(['OLDZZANA1']);
    expect(await search('ldb')).to.deep.equal(['OLDB2']);

    const [, undone] = await t.db.migrate.down({ name: '20261122150000_affiliate_search' });
    expect(undone).to.deep.equal(['20261122150000_affiliate_search']);
    expect(await t.db.schema.hasColumn('affiliates', 'search_words')).to.equal(false);
    await t.db.migrate.latest();
    expect(await search('zzana')).to.deep.equal(['OLDZZANA1']);
  });
});
