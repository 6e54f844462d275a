import { expect } from 'chai';
import { toDate } from '../../server/db/rows.js';
import type { Daemon } from '../../server/main.js';
import { createMerchant, type Merchant, startTestDaemon } from '../helpers/daemon.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { addAffiliate, conversion, pageView, storedCounts } from '../helpers/events.js';
import { call } from '../helpers/http.js';

/** A value nested `levels` deep: `{ a: { a: ... 1 } }`, built without recursion. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

const badRequest = (message: string[]) => ({ statusCode: 400, message, error: 'Bad Request' });

/**
 * Inputs that are valid JSON but that the database cannot keep as sent, or that break
 * the code storing them: each is a 400 that says what to change, never a 500, never a loss.
 */
describe(`input bounds (${ENGINE})`, () => {
  let database: TestDatabase;
  let daemon: Daemon;
  let merchant: Merchant;
  let code: string;

  const send = (events: unknown[]) => call(daemon.url, 'POST', '/v1/events', { key: merchant.key, body: { events } });
  const sendSdk = (events: unknown[]) => call(daemon.url, 'POST', '/v1/sdk/events', { body: { events } });
  const nothingStored = async () =>
    expect(await storedCounts(database.db, merchant.campaignId)).to.deep.equal({ events: 0, conversions: 0, usage: 0 });

  before(async () => {
    database = await createTestDatabase();
    daemon = await startTestDaemon(database.url);
  });
  after(async () => {
    await daemon?.close();
    await database?.drop();
  });
  beforeEach(async () => {
    await cleanTables(database.db);
    merchant = await createMerchant(database.db);
    ({ code } = await addAffiliate(database.db, merchant.campaignId));
  });

  describe('ill-formed UTF-16 (lone surrogates) is refused anywhere in a body', () => {
    it('an order_id or event_id with a lone surrogate is a 400 naming the field; nothing is stored', async () => {
      const reply = await send([
        conversion(merchant.publicId, code, 'A\ud800', 10),
        pageView(merchant.publicId, code, { event_id: 'E\udc00x' }),
      ]);
      expect(reply.body).to.deep.equal(
        badRequest([
          'events.0.properties.order_id must be well-formed Unicode text (it holds an unpaired surrogate)',
          'events.1.event_id must be well-formed Unicode text (it holds an unpaired surrogate)',
        ]),
      );
      await nothingStored();
      // The database would have stored U+FFFD: a later, well-formed order is new, not a duplicate.
      const later = await send([conversion(merchant.publicId, code, 'A\ufffd', 10, { event_id: 'E\ufffdx' })]);
      expect(later.body).to.deep.equal({ success: true, received: 1, accepted: 1, skipped: [] });
      const again = await send([conversion(merchant.publicId, code, 'A\ufffd', 10)]);
      expect(again.body.skipped).to.deep.equal([{ index: 0, reason: 'duplicate_order_id' }]);
    });

    it('in an open object, its keys, the SDK endpoint and the affiliates API alike', async () => {
      const inProperties = await send([
        pageView(merchant.publicId, code, { properties: { note: ['ok', { deep: '\udfff' }], ['k\ud800']: 1 } }),
      ]);
      expect(inProperties.body).to.deep.equal(
        badRequest([
          'events.0.properties has a key that is not well-formed Unicode text (it holds an unpaired surrogate)',
          'events.0.properties.note.1.deep must be well-formed Unicode text (it holds an unpaired surrogate)',
        ]),
      );
      const sdk = await sendSdk([pageView(merchant.publicId, code, { session_id: '\ud83d' })]);
      expect(sdk.body).to.deep.equal(
        badRequest(['events.0.session_id must be well-formed Unicode text (it holds an unpaired surrogate)']),
      );
      await nothingStored();
      const affiliate = await call(daemon.url, 'POST', '/v1/affiliates', {
        key: merchant.key,
        body: { email: 'ana@example.com', password: 'secret1', name: 'Ana \ud83d' },
      });
      expect(affiliate.body).to.deep.equal(
        badRequest(['name must be well-formed Unicode text (it holds an unpaired surrogate)']),
      );
      // A well-formed pair (an emoji) is fine.
      const emoji = await call(daemon.url, 'POST', '/v1/affiliates', {
        key: merchant.key,
        body: { email: 'ana@example.com', password: 'secret1', name: 'Ana \ud83d\ude00' },
      });
      expect(emoji.status).to.equal(201);
      expect(emoji.body.name).to.equal('Ana 😀');
    });
  });

  describe('open objects (properties, device_info) are bounded in depth and size', () => {
    it('5,000 levels of nesting is a 400, not a 500, on /v1/events and /v1/sdk/events', async () => {
      // Written as text: JSON.stringify itself overflows the stack on such a value.
      const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
      const event = (field: string) =>
        `{"event_type":"page_view","campaign_id":"${merchant.publicId}","affiliate_id":"${code}","${field}":{"x":${deep}}}`;
      const events = await call(daemon.url, 'POST', '/v1/events', {
        key: merchant.key,
        raw: `{"events":[${event('properties')}]}`,
      });
      expect(events.body).to.deep.equal(badRequest(['body must not be nested more than 32 levels deep']));
      const sdk = await call(daemon.url, 'POST', '/v1/sdk/events', { raw: `{"events":[${event('device_info')}]}` });
      expect(sdk.body).to.deep.equal(badRequest(['body must not be nested more than 32 levels deep']));
      await nothingStored();
    });

    it('properties and device_info: at most 8 levels and 32 KiB of JSON each', async () => {
      const ok = await send([
        pageView(merchant.publicId, code, { properties: nested(8) as object, device_info: nested(8) as object }),
        pageView(merchant.publicId, code, { properties: { text: 'x'.repeat(30_000) } }),
      ]);
      expect(ok.body).to.include({ accepted: 2 });
      await cleanTables(database.db);
      merchant = await createMerchant(database.db);
      ({ code } = await addAffiliate(database.db, merchant.campaignId));
      const reply = await send([
        pageView(merchant.publicId, code, { properties: nested(9) as object }),
        pageView(merchant.publicId, code, { device_info: { a: [[[[[[[[1]]]]]]]] } }),
        pageView(merchant.publicId, code, { properties: { text: 'x'.repeat(33_000) } }),
        pageView(merchant.publicId, code, { device_info: { text: 'é'.repeat(17_000) } }),
      ]);
      expect(reply.body).to.deep.equal(
        badRequest([
          'events.0.properties must not be nested more than 8 levels deep',
          'events.1.device_info must not be nested more than 8 levels deep',
          'events.2.properties must not be larger than 32768 bytes of JSON',
          'events.3.device_info must not be larger than 32768 bytes of JSON',
        ]),
      );
      await nothingStored();
    });
  });

  describe('timestamps are bounded to what both engines store', () => {
    it('an offset that takes a timestamp out of years 1000 to 9999 (UTC) is a 400', async () => {
      const reply = await send([
        conversion(merchant.publicId, code, 'o1', 10, {
          properties: { order_id: 'o1', order_value: 10, timestamp: '9999-12-31T23:59:59.999-01:00' },
        }),
        conversion(merchant.publicId, code, 'o2', 10, {
          properties: { order_id: 'o2', order_value: 10, timestamp: '0000-01-01T00:00:00+01:00' },
        }),
        pageView(merchant.publicId, code, { properties: { timestamp: '0999-12-31T23:59:59.999Z' } }),
      ]);
      const range = 'must be between 1000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z';
      expect(reply.body).to.deep.equal(
        badRequest([
          `events.0.properties.timestamp ${range}`,
          `events.1.properties.timestamp ${range}`,
          `events.2.properties.timestamp ${range}`,
        ]),
      );
      await nothingStored();
    });

    it('the first and last instants of the range are stored exactly', async () => {
      const first = '1000-01-01T00:00:00.000Z';
      const last = '9999-12-31T23:59:59.999Z';
      const at = (orderId: string, timestamp: string) =>
        conversion(merchant.publicId, code, orderId, 10, {
          properties: { order_id: orderId, order_value: 10, timestamp },
        });
      const reply = await send([at('o1', first), at('o2', '1000-01-01T01:00:00+01:00'), at('o3', last)]);
      expect(reply.body).to.include({ accepted: 3 });
      const rows = await database
        .db('conversions')
        .where('campaign_id', merchant.campaignId)
        .orderBy('order_id')
        .select('occurred_at');
      const stored = rows.map((row) => toDate(row.occurred_at).toISOString());
      expect(stored).to.deep.equal([first, first, last]);
    });
  });
  describe('affiliates: derived columns hold the worst case', () => {
    // `İ` lower-cases to two characters: the search column must hold what the fields become.
    const name = 'İ'.repeat(255);
    const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.io`;

    it('a 255-character name of İ with a 254-character e-mail is stored, found and updated', async () => {
      expect(email.length).to.equal(254);
      const created = await call(daemon.url, 'POST', '/v1/affiliates', {
        key: merchant.key,
        body: { email, password: 'secret1', name, referralId: 'Z'.repeat(32) },
      });
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ name, email });
      const found = await call(daemon.url, 'GET', `/v1/affiliates?search=${encodeURIComponent('i̇i̇i̇')}`, {
        key: merchant.key,
      });
      expect(found.body.affiliates.map((a: { id: number }) => a.id)).to.deep.equal([created.body.id]);
      const updated = await call(daemon.url, 'PATCH', `/v1/affiliates/${created.body.id}`, {
        key: merchant.key,
        body: { name: `${'ẞ'.repeat(254)}İ`, email: email.replace('a', 'A') },
      });
      expect(updated.status).to.equal(200);
    });
  });

  describe('page and limit take decimal digits only', () => {
    const list = (query: string) => call(daemon.url, 'GET', `/v1/affiliates?${query}`, { key: merchant.key });

    it('hexadecimal, binary, octal, exponent and signed forms are a 400', async () => {
      for (const value of ['0x10', '0b11', '0o7', '1e1', '+5', ' 5', '5 ', 'Infinity', '']) {
        const reply = await list(`limit=${encodeURIComponent(value)}&page=${encodeURIComponent(value)}`);
        expect(reply.body, value).to.deep.equal(
          badRequest(['page must be written in decimal digits (0-9)', 'limit must be written in decimal digits (0-9)']),
        );
      }
    });

    it('leading zeros are still decimal; a page far past the end is an empty page', async () => {
      const reply = await list('page=010&limit=007');
      expect(reply.body).to.deep.include({ affiliates: [], page: 10, limit: 7 });
      const far = await list('page=9007199254740991&limit=100');
      expect(far.status).to.equal(200);
      expect(far.body).to.deep.include({ affiliates: [], page: 9007199254740991, limit: 100 });
    });
  });
});
