import { expect } from 'chai';
import { clusterNode, nodeUrls, ON_CLUSTER, reachableOnEveryNode, tableChecksums } from '../helpers/cluster.js';
import { createMerchant } from '../helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { addAffiliate, conversion } from '../helpers/events.js';
import { countingProxy, tempDir } from '../helpers/replay.js';
import { ask } from '../reliability/support/http.js';
import { recorder } from '../reliability/support/recorder.js';
import { writeReplayFile } from '../reliability/support/replayFile.js';
import {
  count,
  expectExactly,
  missingOrders,
  replay,
  type ReplaySummary,
  waitForShare,
} from '../reliability/support/replayRun.js';
import { SEED } from '../reliability/support/seed.js';
import { daemonEnv, type ServedDaemon, serve } from '../reliability/support/served.js';

/** Events of the replay (CLUSTER_CRASH_EVENTS), and the share of its conversions stored when node 3 dies. */
const EVENTS = Number(process.env.CLUSTER_CRASH_EVENTS ?? 100_000);
const KILL_AT = 0.3;
/** How long node 3 stays down while the replay goes on through the two others. */
const DOWN_MS = 5_000;
const KILLED = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a Galera node SIGKILLed during a replay through a daemon on each node', function () {
  this.timeout(20 * 60_000);
  const files = tempDir();
  let database: TestDatabase;
  const daemons: ServedDaemon[] = [];

  before(async () => {
    if (!ON_CLUSTER) throw new Error('TEST_GALERA_URLS is not set: run `npm run test:cluster`');
    database = await createTestDatabase();
    await reachableOnEveryNode(database.url);
  });
  after(async () => {
    for (const daemon of daemons) await daemon.stop('SIGKILL');
    await database?.drop();
    files.remove();
  });

  it(`${EVENTS.toLocaleString('en')} events behind a load balancer, node ${KILLED} killed and rejoining by IST: the replay finishes, every distinct conversion is stored once, and the three nodes' tables agree`, async () => {
    const { db } = database;
    const merchant = await createMerchant(db);
    recorder.secret(merchant.key);
    const codes: string[] = [];
    for (let i = 0; i < 20; i++) codes.push((await addAffiliate(db, merchant.campaignId)).code);
    const file = await writeReplayFile(files.file('cluster.ndjson'), EVENTS, merchant.publicId, codes, SEED + 3);
    for (const url of nodeUrls(database.url)) daemons.push(await serve(daemonEnv(url)));
    const balancer = await countingProxy(daemons.map((daemon) => daemon.url));

    const logged = recorder.logLines().length;
    const started = Date.now();
    const cli = replay(files.file('cluster.ndjson'), files.file('config.json'), balancer.url, merchant.key);
    let finished = false;
    void cli.done.finally(() => {
      finished = true;
    });
    await waitForShare(db, merchant.campaignId, file.conversions, KILL_AT, () => finished);
    expect(finished, 'the replay was still running when the node was killed').to.equal(false);

    // While node 3 is down and rejoining: the longest time no conversion was stored (the
    // cluster holds writes until it has declared the dead node gone).
    let sampling = true;
    let longestStallMs = 0;
    const sampler = (async () => {
      let last = await count(db, 'conversions', merchant.campaignId);
      let since = Date.now();
      while (sampling) {
        await sleep(100);
        const now = await count(db, 'conversions', merchant.campaignId);
        if (now !== last) {
          longestStallMs = Math.max(longestStallMs, Date.now() - since);
          [last, since] = [now, Date.now()];
        }
      }
    })();
    await clusterNode('kill', KILLED);
    recorder.count('cluster: node SIGKILLs');
    await sleep(1000);
    // Straight to the dead node's daemon, past the load balancer: a 503 the client may retry, never a 500.
    const orphan = daemons[KILLED - 1]?.url ?? '';
    const probe = await ask(orphan, {
      method: 'POST',
      path: '/v1/events',
      headers: { 'x-api-key': merchant.key, 'content-type': 'application/json' },
      body: JSON.stringify({ events: [conversion(merchant.publicId, codes[0] ?? '', 'probe-while-down', 1)] }),
    });
    expect(probe.status, 'an event sent to the daemon of the dead node').to.equal(503);
    expect((await ask(orphan, { method: 'GET', path: '/health' })).status, 'its health check').to.equal(503);
    await sleep(DOWN_MS - 1000);
    const rejoined = await clusterNode('restart', KILLED);
    sampling = false;
    await sampler;

    const result = await cli.done;
    const seconds = (Date.now() - started) / 1000;
    expect(result.code, result.stderr.slice(-2000)).to.equal(0);
    const summary = JSON.parse(result.stdout) as ReplaySummary;
    console.log(
      `      ${EVENTS} events in ${seconds.toFixed(0)} s (${Math.round(EVENTS / seconds)} ev/s), ` +
        `${summary.accepted} accepted, skipped ${JSON.stringify(summary.skipped)}; ` +
        `requests answered per daemon ${JSON.stringify(balancer.answered())}; retries ${JSON.stringify(summary.retries)}; ` +
        `longest stall ${(longestStallMs / 1000).toFixed(1)} s; ${rejoined.replace(/^test-cluster: /, '')}`,
    );
    expect(rejoined, 'the node caught up by IST, not a full state transfer').to.match(/by IST/);
    expect(summary.rejected).to.equal(0);
    await balancer.close();
    for (const daemon of daemons.splice(0)) await daemon.stop('SIGTERM');

    if ((await count(db, 'conversions', merchant.campaignId)) !== file.conversions) {
      console.log(`      ${await missingOrders(db, merchant.campaignId, files.file('cluster.ndjson'))}`);
    }
    await expectExactly(db, merchant, file);
    const [first, ...others] = await Promise.all(nodeUrls(database.url).map((url) => tableChecksums(url)));
    expect(Object.keys(first ?? {})).to.include.members(['conversions', 'tracking_events', 'monthly_usage']);
    others.forEach((sums, i) => expect(sums, `node ${i + 2}'s tables against node 1's`).to.deep.equal(first));
    const failed = recorder
      .logLines()
      .slice(logged)
      .filter((line) => line.includes('"msg":"request failed"'));
    expect(failed, 'requests answered 500 while a node died').to.deep.equal([]);
  });
});
