import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { migrateToLatest } from '../../server/db/migrate.js';
import { KNOWN_MIGRATIONS } from '../../server/db/migrations/index.js';
import { STRIPE_SECRET } from '../helpers/billing.js';
import { type CliResult, runCli, startServe } from '../helpers/cli.js';
import { createMerchant } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase, useTestDatabases } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { call } from '../helpers/http.js';

/** This build's contract steps (docs/operations.md, "Upgrades"), left pending by a start. */
const CONTRACT_STEPS = ['20261128400100_dedupe_key_defaults_dropped', '20261201030100_campaign_daily_stats_reconciled'];

const BUILD_SCHEMA = KNOWN_MIGRATIONS.at(-1) ?? '';
const serveOnce = (env: Record<string, string>) =>
  runCli(['serve'], { env: { PORT: '0', BCRYPT_ROUNDS: '4', ...env } });
/** What a refused start printed: exactly one line, on stderr. */
const onlyLine = (result: CliResult) => {
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).to.have.length(1);
  return lines[0] ?? '';
};

/** A daemon stores a Stripe signing secret, sealed with its key, and stops. */
async function storeSecret(t: TestDatabase, env: Record<string, string>): Promise<void> {
  const merchant = await createMerchant(t.db);
  const daemon = await startServe({ env: { DATABASE_URL: t.url, BCRYPT_ROUNDS: '4', ...env } });
  try {
    const put = await call(daemon.url, 'PUT', '/v1/integrations/stripe', {
      key: merchant.key,
      body: { signingSecret: STRIPE_SECRET },
    });
    expect(put.status, put.text).to.equal(200);
  } finally {
    daemon.child.kill('SIGTERM');
    await daemon.done;
  }
}

/** docs/operations.md, "Upgrades": what a daemon checks before it serves. */
describe(`upgrades: what a daemon refuses at start (${ENGINE})`, function () {
  this.timeout(180_000);
  const database = useTestDatabases();

  it('a schema newer than the build knows: one line naming both versions, exit 1, nothing changed', async () => {
    const t = await database();
    const later = '20991231000000_from_a_later_release';
    await t.db('knex_migrations').insert({ name: later, batch: 99, migration_time: new Date() });
    const result = await serveOnce({ DATABASE_URL: t.url });
    expect(result.code).to.equal(1);
    expect(onlyLine(result)).to.equal(
      `error: the database's schema is ${later}, newer than this build's ${BUILD_SCHEMA}: a newer release migrated it. Run that release (or newer) on it, or restore a backup made with this one`,
    );
    // Operator commands refuse it too, before they change anything.
    const migrated = await runCli(['db', 'migrate'], { env: { DATABASE_URL: t.url } });
    expect(migrated.code).to.equal(1);
    expect(migrated.stderr).to.include(`newer than this build's ${BUILD_SCHEMA}`);
    expect(await t.db('knex_migrations').where('name', later).count({ n: '*' })).to.deep.equal([{ n: 1 }]);
  });

  it('a key that cannot open the stored secrets: one line naming the key, exit 1; the right key serves', async () => {
    const t = await database();
    const key = randomBytes(32).toString('base64');
    await storeSecret(t, { WEBHOOK_SECRET_KEY: key });
    const other = await serveOnce({ DATABASE_URL: t.url, WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') });
    expect(other.code).to.equal(1);
    expect(onlyLine(other)).to.equal(
      'error: WEBHOOK_SECRET_KEY cannot open the webhook and billing secrets stored in this database (sealed under another key): start with the key they were sealed with',
    );
    const again = await startServe({ env: { DATABASE_URL: t.url, WEBHOOK_SECRET_KEY: key, BCRYPT_ROUNDS: '4' } });
    again.child.kill('SIGTERM');
    expect((await again.done).code).to.equal(0);
  });

  it('a SQLite file copied without its key file: one line naming the missing file, exit 1', async function () {
    if (ENGINE !== 'sqlite') this.skip(); // The generated key lives in the MySQL database itself.
    const t = await database();
    const file = new URL(t.url.replace(/^sqlite:/, 'file:')).pathname;
    await storeSecret(t, {});
    const dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-copy-'));
    try {
      // The whole database in its main file, as a copy of a stopped daemon's file would be.
      await t.db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
      const copy = path.join(dir, 'copy.sqlite3');
      copyFileSync(file, copy);
      const result = await serveOnce({ DATABASE_URL: `sqlite:${copy}` });
      expect(result.code).to.equal(1);
      expect(onlyLine(result)).to.equal(
        `error: the key file ${copy}.webhook-key is missing, and the webhook and billing secrets stored in this database were sealed with it: put it back beside the database (or set WEBHOOK_SECRET_KEY to its content)`,
      );
      copyFileSync(`${file}.webhook-key`, `${copy}.webhook-key`);
      const served = await startServe({ env: { DATABASE_URL: `sqlite:${copy}`, BCRYPT_ROUNDS: '4' } });
      served.child.kill('SIGTERM');
      expect((await served.done).code).to.equal(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The expand and contract steps of the dedupe keys (docs/operations.md, "Upgrades"): a daemon
 * of a release from before 20261127110000 inserts events as below, without event_key and
 * order_key, beside daemons of this release.
 */
describe(`upgrades: events written by a daemon that does not know the dedupe keys (${ENGINE})`, function () {
  this.timeout(60_000);
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase({ migrate: false });
    await migrateToLatest(t.db);
  });
  after(async () => t.drop());

  /** A campaign and an affiliate of it, for events to count for. */
  const owner = async () => {
    const { campaignId } = await createMerchant(t.db);
    const affiliate = await addAffiliate(t.db, campaignId);
    return { campaignId, affiliateId: affiliate.id };
  };
  const olderInsert = async (
    { campaignId, affiliateId }: { campaignId: number; affiliateId: number },
    rows: Array<{ eventId?: string; orderId?: string }>,
  ) => {
    const verb = t.engine === 'mysql' ? 'INSERT IGNORE' : 'INSERT';
    const tail = t.engine === 'mysql' ? '' : ' ON CONFLICT DO NOTHING';
    const values = rows.map(() => "(?, ?, 'conversion', ?, ?, 'older-daemon', ?, ?)").join(', ');
    const now = new Date();
    await t.db.raw(
      `${verb} INTO tracking_events (campaign_id, affiliate_id, event_type, event_id, order_id, intake_id, occurred_at, created_at) VALUES ${values}${tail}`,
      rows.flatMap((row) => [campaignId, affiliateId, row.eventId ?? null, row.orderId ?? null, now, now]),
    );
  };

  it('starts leave the contract step pending; db status lists it', async () => {
    const status = JSON.parse((await runCli(['db', 'status', '--json'], { env: { DATABASE_URL: t.url } })).stdout);
    expect(status.pending).to.deep.equal(CONTRACT_STEPS);
  });

  it('on MySQL/MariaDB such rows get their keys, and a duplicate of a keyed row is dropped', async function () {
    if (ENGINE !== 'mysql') this.skip(); // One daemon per SQLite file: an older one never writes beside a newer one.
    const events = await owner();
    const { campaignId } = events;
    await t.db('tracking_events').insert({
      campaign_id: campaignId,
      affiliate_id: events.affiliateId,
      event_type: 'conversion',
      event_id: 'evt-new',
      order_id: 'order-new',
      event_key: '=evt-new',
      order_key: '=order-new',
      intake_id: 'newer-daemon',
      occurred_at: new Date(),
      created_at: new Date(),
    });
    await olderInsert(events, [
      { eventId: 'evt-new' }, // the newer daemon's event again
      { eventId: 'evt-old', orderId: 'order-new' }, // its order again
      { eventId: 'evt-old-2', orderId: 'order-old' },
      { eventId: 'evt-old-2' }, // an older daemon's event again
      {},
      {},
    ]);
    const rows = await t
      .db('tracking_events')
      .where('campaign_id', campaignId)
      .orderBy('id')
      .select('event_id', 'order_id', 'event_key', 'order_key');
    expect(rows.map((row) => [row.event_id, row.order_id])).to.deep.equal([
      ['evt-new', 'order-new'],
      ['evt-old-2', 'order-old'],
      [null, null],
      [null, null],
    ]);
    expect(rows[1]).to.include({ event_key: '=evt-old-2', order_key: '=order-old' });
    for (const row of rows.slice(2)) {
      expect(row.event_key).to.match(/^#[0-9a-f-]{36}$/);
      expect(row.order_key).to.match(/^#[0-9a-f-]{36}$/);
    }
  });

  it('db migrate --contract applies the contract step; older inserts then keep their NULLs', async () => {
    const contracted = await runCli(['db', 'migrate', '--contract', '--json'], { env: { DATABASE_URL: t.url } });
    expect(contracted.code, contracted.stderr).to.equal(0);
    expect(JSON.parse(contracted.stdout)).to.deep.equal({ applied: CONTRACT_STEPS });
    if (ENGINE !== 'mysql') return;
    const events = await owner();
    await olderInsert(events, [{ eventId: 'after-contract' }]);
    const row = await t.db('tracking_events').where('campaign_id', events.campaignId).first('event_key');
    expect(row?.event_key).to.equal(null);
  });
});
