import { expect } from 'chai';
import type { Daemon } from '../../server/main.js';
import { createMerchant, type Merchant, startTestDaemon } from '../helpers/daemon.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { addAffiliate, conversion, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';

/**
 * Dedupe keys compare byte for byte on both engines (spec §10.7). MariaDB's and MySQL 8's
 * `utf8mb4_bin` are PAD SPACE collations: their unique indexes took `e1` and `e1 ` for the
 * same key, so a second, different conversion was lost and reported as a duplicate.
 */
describe(`dedupe keys compare byte for byte (${ENGINE})`, () => {
  let database: TestDatabase;
  let daemon: Daemon;
  let merchant: Merchant;
  let code: string;

  const send = (events: unknown[]) => call(daemon.url, 'POST', '/v1/events', { key: merchant.key, body: { events } });
  const storedOrders = async (): Promise<string[]> =>
    database.db('conversions').where('campaign_id', merchant.campaignId).orderBy('id').pluck('order_id');
  const storedEventIds = async (): Promise<(string | null)[]> =>
    database.db('tracking_events').where('campaign_id', merchant.campaignId).orderBy('id').pluck('event_id');

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

  it('an event_id that differs only by trailing spaces is another event, and its conversion is stored', async () => {
    const first = await send([conversion(merchant.publicId, code, 'o1', 10, { event_id: 'e1' })]);
    expect(first.body).to.include({ accepted: 1 });
    const second = await send([
      conversion(merchant.publicId, code, 'o2', 20, { event_id: 'e1 ' }),
      pageView(merchant.publicId, code, { event_id: 'e1  ' }),
    ]);
    expect(second.status).to.equal(200);
    expect(second.body).to.deep.equal({ success: true, received: 2, accepted: 2, skipped: [] });
    expect(await storedOrders()).to.deep.equal(['o1', 'o2']);
    expect(await storedEventIds()).to.deep.equal(['e1', 'e1 ', 'e1  ']);
  });

  it('the skipped reason is the true one when keys differ only by trailing spaces', async () => {
    await send([conversion(merchant.publicId, code, 'o1', 10, { event_id: 'e1' })]);
    const replies = await send([
      // A new event_id with a stored order_id: the order is the duplicate.
      conversion(merchant.publicId, code, 'o1', 10, { event_id: 'e1 ' }),
      // The same event_id again, byte for byte.
      conversion(merchant.publicId, code, 'o3', 10, { event_id: 'e1' }),
    ]);
    expect(replies.body).to.deep.equal({
      success: true,
      received: 2,
      accepted: 0,
      skipped: [
        { index: 0, reason: 'duplicate_order_id' },
        { index: 1, reason: 'duplicate_event_id' },
      ],
    });
    const retried = await send([
      pageView(merchant.publicId, code, { event_id: 'p ' }),
      pageView(merchant.publicId, code, { event_id: 'p' }),
    ]);
    expect(retried.body).to.include({ accepted: 2 });
    const again = await send([pageView(merchant.publicId, code, { event_id: 'p ' })]);
    expect(again.body.skipped).to.deep.equal([{ index: 0, reason: 'duplicate_event_id' }]);
    expect(await storedOrders()).to.deep.equal(['o1']);
  });

  it('keys that differ only by case or accents are different keys too', async () => {
    const reply = await send([
      conversion(merchant.publicId, code, 'order-a', 10, { event_id: 'k' }),
      conversion(merchant.publicId, code, 'ORDER-A', 10, { event_id: 'K' }),
      conversion(merchant.publicId, code, 'order-á', 10, { event_id: 'ǩ' }),
    ]);
    expect(reply.body).to.include({ accepted: 3 });
    expect(await storedOrders()).to.deep.equal(['order-a', 'ORDER-A', 'order-á']);
  });
});
