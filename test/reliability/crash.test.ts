import { expect } from 'chai';
import { parseDatabaseUrl } from '../../server/config.js';
import { createDb, type Db } from '../../server/db/knex.js';
import { createMerchant } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { tempDir } from '../helpers/replay.js';
import { ask, send } from './support/http.js';
import { canStartMariadb, ThrowawayMariadb } from './support/mariadb.js';
import { recorder } from './support/recorder.js';
import { writeReplayFile } from './support/replayFile.js';
import { expectExactly, replay, type ReplaySummary, waitForShare } from './support/replayRun.js';
import { SEED, seededRandom } from './support/seed.js';
import { daemonEnv, type ServedDaemon, serve } from './support/served.js';

/** Events of the daemon-crash replay (CRASH_EVENTS), and of the database-crash replay (DB_CRASH_EVENTS). */
const CRASH_EVENTS = Number(process.env.CRASH_EVENTS ?? 100_000);
const DB_CRASH_EVENTS = Number(process.env.DB_CRASH_EVENTS ?? 30_000);
const FAULTS = 5;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Five moments, as fractions of the conversions the file holds, drawn from the run's seed. */
function faultMoments(seed: number): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: FAULTS }, () => 0.05 + random() * 0.85).sort((a, b) => a - b);
}

describe(`crashes during a replay (${ENGINE})`, function () {
  this.timeout(20 * 60_000);
  const files = tempDir();
  after(() => files.remove());

  describe('the daemon is SIGKILLed and restarted', () => {
    let database: TestDatabase;
    let daemon: ServedDaemon | undefined;
    before(async () => {
      database = await createTestDatabase();
    });
    after(async () => {
      await daemon?.stop('SIGKILL');
      await database?.drop();
    });

    it(`${CRASH_EVENTS.toLocaleString('en')} events, ${FAULTS} kills: the CLI retries and finishes; exactly the file’s distinct conversions are stored`, async () => {
      const merchant = await createMerchant(database.db);
      recorder.secret(merchant.key);
      const codes: string[] = [];
      for (let i = 0; i < 20; i++) codes.push((await addAffiliate(database.db, merchant.campaignId)).code);
      const file = await writeReplayFile(files.file('daemon.ndjson'), CRASH_EVENTS, merchant.publicId, codes, SEED);

      daemon = await serve(daemonEnv(database.url));
      const { port, url } = daemon;
      const started = Date.now();
      const cli = replay(files.file('daemon.ndjson'), files.file('daemon-config.json'), url, merchant.key);
      let finished = false;
      cli.done.finally(() => {
        finished = true;
      });
      for (const share of faultMoments(SEED)) {
        await waitForShare(database.db, merchant.campaignId, file.conversions, share, () => finished);
        if (finished) break;
        await daemon.stop('SIGKILL');
        recorder.count('crash: daemon SIGKILLs');
        await sleep(Math.floor(seededRandom(SEED + share * 1e6)() * 1000));
        daemon = await serve(daemonEnv(database.url), port);
      }
      const result = await cli.done;
      const seconds = (Date.now() - started) / 1000;
      const summary = JSON.parse(result.stdout) as ReplaySummary;
      console.log(
        `      ${CRASH_EVENTS} events in ${seconds.toFixed(0)} s (${Math.round(CRASH_EVENTS / seconds)} ev/s), ` +
          `${recorder.figures().get('crash: daemon SIGKILLs') ?? 0} kills, retries ${JSON.stringify(summary.retries)}`,
      );
      expect(result.code, result.stderr.slice(-2000)).to.equal(0);
      expect(recorder.figures().get('crash: daemon SIGKILLs') ?? 0, 'every planned kill happened').to.equal(FAULTS);
      expect(summary.rejected).to.equal(0);
      await expectExactly(database.db, merchant, file);
    });
  });

  describe('MariaDB is SIGKILLed and restarted under the daemon', () => {
    const mariadb = new ThrowawayMariadb();
    let db: Db | undefined;
    let daemon: ServedDaemon | undefined;

    before(async function () {
      if (ENGINE !== 'mysql') this.skip();
      if (!canStartMariadb()) throw new Error('mariadbd is not installed (scripts/test-services.sh installs it)');
      await mariadb.install();
    });
    after(async () => {
      await daemon?.stop('SIGKILL');
      await db?.destroy();
      await mariadb.remove();
    });

    it(`${DB_CRASH_EVENTS.toLocaleString('en')} events, ${FAULTS} database kills: 5xx while it is down, never a false 200; the daemon recovers by itself`, async () => {
      daemon = await serve(daemonEnv(mariadb.url, { API_KEY_CACHE_MS: '60000' }));
      db = createDb(parseDatabaseUrl(mariadb.url));
      const merchant = await createMerchant(db);
      recorder.secret(merchant.key);
      const codes: string[] = [];
      for (let i = 0; i < 20; i++) codes.push((await addAffiliate(db, merchant.campaignId)).code);
      const file = await writeReplayFile(files.file('db.ndjson'), DB_CRASH_EVENTS, merchant.publicId, codes, SEED + 1);
      const pid = daemon.child.pid;

      const probe = async (n: number) => {
        const answer = await ask(daemon?.url ?? '', {
          method: 'POST',
          path: '/v1/events',
          headers: { 'x-api-key': merchant.key, 'content-type': 'application/json' },
          body: JSON.stringify({
            events: [
              {
                event_type: 'conversion',
                campaign_id: merchant.publicId,
                affiliate_id: codes[0],
                properties: { order_id: `probe-${n}`, order_value: 1 },
              },
            ],
          }),
        });
        return answer.status;
      };
      const stored: string[] = [];
      const refused: string[] = [];
      let probes = 0;

      const cli = replay(files.file('db.ndjson'), files.file('db-config.json'), daemon.url, merchant.key);
      let finished = false;
      cli.done.finally(() => {
        finished = true;
      });
      for (const share of faultMoments(SEED + 1)) {
        await waitForShare(db, merchant.campaignId, file.conversions, share, () => finished);
        if (finished) break;
        await mariadb.kill();
        recorder.count('crash: MariaDB SIGKILLs');
        // Down for three seconds: every answer that needs the database is a 5xx.
        const downUntil = Date.now() + 3000;
        while (Date.now() < downUntil) {
          const n = ++probes;
          const status = await probe(n);
          expect(status, `probe ${n} while MariaDB is down`).to.be.within(500, 599);
          refused.push(`probe-${n}`);
          const list = await send(daemon.url, {
            method: 'GET',
            path: '/v1/affiliates',
            headers: { 'x-api-key': merchant.key },
          });
          expect(list !== 'unsendable' && list !== 'reset' && list.status, 'GET while MariaDB is down').to.equal(503);
          recorder.count('crash: requests answered while MariaDB was down');
          await sleep(200);
        }
        await mariadb.start();
        // The same daemon (no restart) serves again once the database is back.
        for (let attempt = 0; ; attempt++) {
          const n = ++probes;
          const status = await probe(n);
          if (status === 200) {
            stored.push(`probe-${n}`);
            break;
          }
          refused.push(`probe-${n}`);
          expect(attempt, 'the daemon recovers within 30 s of MariaDB').to.be.below(150);
          await sleep(200);
        }
        expect(daemon.child.pid).to.equal(pid);
        expect(daemon.child.exitCode).to.equal(null);
      }
      const result = await cli.done;
      expect(result.code, result.stderr.slice(-2000)).to.equal(0);
      expect(recorder.figures().get('crash: MariaDB SIGKILLs') ?? 0, 'every planned kill happened').to.equal(FAULTS);
      const probesStored = await db('conversions')
        .where('campaign_id', merchant.campaignId)
        .where('order_id', 'like', 'probe-%')
        .pluck('order_id');
      expect([...probesStored].sort(), 'a probe is stored exactly when it got a 200').to.deep.equal([...stored].sort());
      await db('conversions').where('campaign_id', merchant.campaignId).where('order_id', 'like', 'probe-%').delete();
      await db('tracking_events')
        .where('campaign_id', merchant.campaignId)
        .where('order_id', 'like', 'probe-%')
        .delete();
      // The month's usage is a sum of shard rows (one per daemon): take the probes back from them.
      let left = stored.length;
      for (const row of await db('monthly_usage')
        .where('campaign_id', merchant.campaignId)
        .where('conversions', '>', 0)
        .select('month', 'shard', 'conversions')) {
        const taken = Math.min(left, Number(row.conversions));
        await db('monthly_usage')
          .where({ campaign_id: merchant.campaignId, month: row.month, shard: row.shard })
          .decrement('conversions', taken);
        left -= taken;
      }
      expect(left, 'the probes were counted in the month').to.equal(0);
      await expectExactly(db, merchant, file);
    });
  });
});
