import { expect } from 'chai';
import { type Db, TransactionOvertaken } from '../../server/db/knex.js';
import type { Daemon } from '../../server/main.js';
import { insertTrackingEventsIgnoringDuplicates } from '../../server/repositories/events.js';
import { type IgnoredEvent, whyIgnored } from '../../server/services/events/ignored.js';
import { trackingEventSchema } from '../../shared/schemas/event.js';
import { createMerchant, type Merchant, startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { addAffiliate, conversion, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { sleep } from '../helpers/receiver.js';

/**
 * An event the insert-ignore left out is answered `duplicate_*` only while a row holds its key.
 * On a Galera node whose cluster lost another node, a whole request was once answered
 * "duplicate" for 500 events that no row held afterwards: the rows its insert had met were rolled
 * back. The intake now reads the rows that hold the keys with a lock, and runs the transaction
 * again when one is gone (server/services/events/ignored.ts).
 */
describe(`events left out of an insert are duplicates only while a row holds their key (${ENGINE})`, () => {
  let database: TestDatabase;
  let daemon: Daemon;
  let merchant: Merchant;
  let affiliate: { id: number; code: string };
  let db: Db;

  const left = (index: number, raw: Record<string, unknown>): IgnoredEvent => {
    const event = trackingEventSchema.parse(raw);
    const orderId = event.event_type === 'conversion' ? event.properties?.order_id : undefined;
    return { index, campaignId: merchant.campaignId, event, orderId };
  };
  const outcome = <T>(promise: Promise<T>) =>
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );

  before(async () => {
    database = await createTestDatabase();
    db = database.db;
    daemon = await startTestDaemon(database.url);
    merchant = await createMerchant(db);
    affiliate = await addAffiliate(db, merchant.campaignId);
    const stored = await call(daemon.url, 'POST', '/v1/events', {
      key: merchant.key,
      body: {
        events: [
          conversion(merchant.publicId, affiliate.code, 'o1', 10, { event_id: 'e1' }),
          pageView(merchant.publicId, affiliate.code, { event_id: 'p1' }),
        ],
      },
    });
    expect(stored.body).to.include({ accepted: 2 });
  });
  after(async () => {
    await daemon?.close();
    await database?.drop();
  });

  it('names the key a stored row holds: the event_id first, then the order_id', async () => {
    const skips = await db.transaction((trx) =>
      whyIgnored(trx, [
        left(0, conversion(merchant.publicId, affiliate.code, 'o9', 10, { event_id: 'e1' })),
        left(1, conversion(merchant.publicId, affiliate.code, 'o1', 10, { event_id: 'e-new' })),
        left(2, pageView(merchant.publicId, affiliate.code, { event_id: 'p1' })),
      ]),
    );
    expect(skips).to.deep.equal([
      { index: 0, reason: 'duplicate_event_id' },
      { index: 1, reason: 'duplicate_order_id' },
      { index: 2, reason: 'duplicate_event_id' },
    ]);
  });

  it('an event whose keys no row holds is no duplicate: the transaction is taken back to run again', async () => {
    const judged = await outcome(
      db.transaction((trx) =>
        whyIgnored(trx, [
          left(0, pageView(merchant.publicId, affiliate.code, { event_id: 'p1' })),
          left(1, conversion(merchant.publicId, affiliate.code, 'o-never', 10, { event_id: 'e-never' })),
        ]),
      ),
    );
    expect(judged).to.have.property('error').that.is.instanceOf(TransactionOvertaken);
  });

  it('waits for a writer still deciding on the key, and sees what it committed (MySQL: a locking read)', async function () {
    if (ENGINE !== 'mysql') this.skip(); // SQLite has one writer at a time: nobody is deciding meanwhile.
    const writer = await db.transaction();
    const now = new Date();
    await insertTrackingEventsIgnoringDuplicates(writer, [
      {
        campaignId: merchant.campaignId,
        affiliateId: affiliate.id,
        event: trackingEventSchema.parse(pageView(merchant.publicId, affiliate.code, { event_id: 'p-deciding' })),
        orderId: undefined,
        intakeId: 'writer-deciding',
        clickId: undefined,
        occurredAt: now,
        createdAt: now,
      },
    ]);
    try {
      let settled = false;
      const judged = outcome(
        db.transaction((trx) =>
          whyIgnored(trx, [left(0, pageView(merchant.publicId, affiliate.code, { event_id: 'p-deciding' }))]),
        ),
      ).finally(() => {
        settled = true;
      });
      await sleep(300);
      expect(settled, 'answered before the writer decided').to.equal(false);
      await writer.commit();
      expect(await judged).to.deep.equal({ value: [{ index: 0, reason: 'duplicate_event_id' }] });
    } finally {
      // A failed expectation must not leave the writer's locks behind.
      if (!writer.isCompleted()) await writer.rollback();
    }
  });
});
