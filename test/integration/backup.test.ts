import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import type { Db } from '../../server/db/knex.js';
import { eventFrom, sendEvent, STRIPE_SECRET } from '../helpers/billing.js';
import { runCli, startServe } from '../helpers/cli.js';
import { createMerchant, startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { addAffiliate, pageView } from '../helpers/events.js';
import { call } from '../helpers/http.js';

const env = (t: TestDatabase) => ({ DATABASE_URL: t.url, BCRYPT_ROUNDS: '4' });

/** Page views each affiliate's daily counters count, and the page-view rows behind them. */
async function pageViewTotals(db: Db): Promise<{ counted: Record<string, number>; stored: Record<string, number> }> {
  const counted = await db('affiliate_daily_stats')
    .groupBy('affiliate_id')
    .select('affiliate_id')
    .sum({ n: 'page_views' });
  const stored = await db('tracking_events')
    .where('event_type', 'page_view')
    .groupBy('affiliate_id')
    .select('affiliate_id')
    .count({ n: '*' });
  const byAffiliate = (rows: Array<Record<string, unknown>>) =>
    Object.fromEntries(rows.map((row) => [String(row.affiliate_id), Number(row.n)]));
  return { counted: byAffiliate(counted), stored: byAffiliate(stored) };
}

/** docs/operations.md, "Backup and restore". */
describe(`db backup and db restore (${ENGINE})`, function () {
  this.timeout(300_000);
  let source: TestDatabase;
  let copy: TestDatabase;
  let dir: string;
  let file: string;
  const answeredBeforeBackup: string[] = [];
  let merchant: Awaited<ReturnType<typeof createMerchant>>;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-backup-test-'));
    file = path.join(dir, 'affiliated.backup.gz');
    source = await createTestDatabase();
    copy = await createTestDatabase({ migrate: false });
    merchant = await createMerchant(source.db);
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) codes.push((await addAffiliate(source.db, merchant.campaignId)).code);
    // A daemon taking events through the whole backup, its webhook key generated as on a new install.
    const daemon = await startTestDaemon(source.url);
    try {
      const put = await call(daemon.url, 'PUT', '/v1/integrations/stripe', {
        key: merchant.key,
        body: { signingSecret: STRIPE_SECRET },
      });
      expect(put.status, put.text).to.equal(200);
      let backingUp = false;
      let stop = false;
      let sent = 0;
      const load = async (lane: number) => {
        while (!stop) {
          const eventId = `pv-${lane}-${sent++}`;
          const body = pageView(merchant.publicId, codes[sent % codes.length] ?? '', { event_id: eventId });
          const wasBackingUp = backingUp;
          const res = await call(daemon.url, 'POST', '/v1/events', { key: merchant.key, body: { events: [body] } });
          expect(res.status, res.text).to.equal(200);
          if (!wasBackingUp) answeredBeforeBackup.push(eventId);
        }
      };
      let failed: unknown;
      const lanes = [0, 1, 2, 3].map((lane) =>
        load(lane).catch((err: unknown) => {
          failed = err;
          stop = true;
        }),
      );
      while (answeredBeforeBackup.length < 200 && !stop) await new Promise((resolve) => setTimeout(resolve, 50));
      if (failed) throw failed;
      backingUp = true;
      const made = await runCli(['db', 'backup', file, '--json'], { env: env(source) });
      stop = true;
      await Promise.all(lanes);
      if (failed) throw failed;
      expect(made.code, made.stderr).to.equal(0);
      expect(JSON.parse(made.stdout)).to.include({ engine: ENGINE });
    } finally {
      await daemon.close();
    }
  });
  after(async () => {
    await source.drop();
    await copy.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the file is readable by its owner only (it carries the webhook key or the data that holds it)', () => {
    expect(statSync(file).mode & 0o777).to.equal(0o600);
  });

  it('restores into an empty database: the source as it was at one instant, under load', async () => {
    const restored = await runCli(['db', 'restore', file, '--json'], { env: env(copy) });
    expect(restored.code, restored.stderr).to.equal(0);
    // Every event answered before the backup began is there...
    const ids = new Set(await copy.db('tracking_events').pluck('event_id'));
    expect(answeredBeforeBackup.filter((id) => !ids.has(id))).to.deep.equal([]);
    // ...every row restored is the source's own, unchanged (no row the source never had)...
    const restoredRows = await copy
      .db('tracking_events')
      .orderBy('id')
      .select('id', 'event_id', 'affiliate_id', 'event_key');
    const sourceRows = await source
      .db('tracking_events')
      .whereIn(
        'id',
        restoredRows.map((row) => row.id),
      )
      .orderBy('id')
      .select('id', 'event_id', 'affiliate_id', 'event_key');
    expect(restoredRows).to.deep.equal(sourceRows);
    // ...and the tables agree with each other as they did at one instant: each affiliate's
    // counters count exactly the page views restored, though both grew all through the backup.
    const totals = await pageViewTotals(copy.db);
    expect(totals.counted).to.deep.equal(totals.stored);
    const grown = await pageViewTotals(source.db);
    const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
    expect(sum(grown.stored), 'the load went on after the snapshot').to.be.greaterThan(sum(totals.stored));
    for (const table of ['campaigns', 'api_keys', 'affiliates', 'plans', 'billing_integrations']) {
      expect(await copy.db(table).orderBy('id').select('*'), table).to.deep.equal(
        await source.db(table).orderBy('id').select('*'),
      );
    }
  });

  it('a daemon on the copy serves it: a correctly signed Stripe event is accepted', async () => {
    const daemon = await startServe({ env: env(copy) });
    try {
      const res = await sendEvent(
        daemon.url,
        'stripe',
        merchant.publicId,
        eventFrom('stripe-checkout-session-payment'),
      );
      expect(res.status, res.text).to.equal(200);
      const listed = await call(daemon.url, 'GET', '/v1/integrations/events', { key: merchant.key });
      expect(listed.body.total).to.equal(1);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.done;
    }
  });

  it('refuses a database that is not empty, naming its tables', async () => {
    const again = await runCli(['db', 'restore', file], { env: env(copy) });
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(
      /is not empty: it has the tables affiliate_count_shards, .*Restore only into an empty database/,
    );
  });

  it('refuses a file cut short, and one that is not a backup (before writing anything)', async () => {
    const damagedInto = await createTestDatabase({ migrate: false });
    const fresh = await createTestDatabase({ migrate: false });
    try {
      const cut = path.join(dir, 'cut.gz');
      const whole = readFileSync(file);
      writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
      const damaged = await runCli(['db', 'restore', cut], { env: env(damagedInto) });
      expect(damaged.code).to.equal(1);
      expect(damaged.stderr).to.match(/is (damaged|not an affiliated backup, or it is damaged)/);
      const foreign = path.join(dir, 'foreign.gz');
      writeFileSync(
        foreign,
        gzipSync(`${JSON.stringify({ some: 'other export', id: randomBytes(4).toString('hex') })}\n`),
      );
      const refused = await runCli(['db', 'restore', foreign], { env: env(fresh) });
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.include(
        `${foreign} is not an affiliated backup: make one with \`affiliated db backup\``,
      );
      const tables = await fresh.db.raw(
        fresh.engine === 'sqlite'
          ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'campaigns'"
          : "SHOW TABLES LIKE 'campaigns'",
      );
      expect(fresh.engine === 'sqlite' ? tables : tables[0], 'the foreign file wrote nothing').to.have.length(0);
    } finally {
      await damagedInto.drop();
      await fresh.drop();
    }
  });
});
