/**
 * Tenant isolation (docs/benchmarks.md): one campaign's single-event p99 while another
 * campaign's 1,000 webhook endpoints hang and its batches of conversions fan out to them, beside
 * the same p99 with the other campaign quiet, measured in the same run.
 *
 * Run alone (after `npm run build`): `node --import tsx bench/tenants.ts [sqlite|mysql]`.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { createMerchant } from '../test/helpers/daemon.js';
import { createTestDatabase } from '../test/helpers/database.js';
import type { Child } from './lib/child.js';
import { startDaemonChild } from './lib/daemon.js';
import { runIfMain } from './lib/direct.js';
import { activeCodes, pageViewRequest, sendConversionBatches } from './lib/events.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import { assertOk, loadOk } from './lib/load.js';
import type { BenchOptions } from './lib/options.js';
import { part, type Part } from './lib/part.js';
import { medianOfRounds } from './lib/stats.js';
import { wrkLoad } from './lib/wrk.js';
import { seedCampaign } from './seed.js';

/** The numbers: 1,000 endpoints that never answer, batches of 300 conversions. */
const ENDPOINTS = 1000;
const BATCH = 300;
/** One batch a second from the other campaign, however long the last one took. */
const BATCH_EVERY_MS = 1000;
const CONNECTIONS = 16;
const TARGET = 2;

/** A webhook receiver that takes every request and never answers, until released. */
async function hangingReceiver(): Promise<{ url: string; release(): void; stop(): Promise<void> }> {
  const held = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    req.resume();
    held.add(res);
    res.on('close', () => held.delete(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const release = () => {
    for (const res of held) res.destroy();
    held.clear();
  };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    release,
    async stop() {
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `count` endpoints of the campaign on the receiver, subscribed to conversion.created, 8 registrations at a time. */
async function registerEndpoints(url: string, key: string, receiver: string, count: number): Promise<void> {
  const pool = new Pool(url, { connections: 8 });
  try {
    for (let from = 0; from < count; from += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, count - from) }, async (_, i) => {
          const res = await pool.request({
            path: '/v1/webhooks',
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': key },
            body: JSON.stringify({ url: `${receiver}/${from + i}`, events: ['conversion.created'] }),
          });
          const text = await res.body.text();
          if (res.statusCode !== 201) throw new Error(`POST /v1/webhooks: ${res.statusCode} ${text.slice(0, 200)}`);
        }),
      );
    }
  } finally {
    await pool.close();
  }
}

export async function benchHostileTenant(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  const receiver = await hangingReceiver();
  const database = await createTestDatabase({ engine });
  const { db } = database;
  let daemon: Child | undefined;
  try {
    const victim = await createMerchant(db, { plan: 'unlimited' });
    const hostile = await createMerchant(db, { plan: 'unlimited' });
    await seedCampaign(db, victim.campaignId, { affiliates: 10, conversions: 0, tag: `V${engine}` });
    await seedCampaign(db, hostile.campaignId, { affiliates: 10, conversions: 0, tag: `H${engine}` });
    daemon = await startDaemonChild(database.url, {
      logLevel: opts.daemonLogLevel,
      profile: `tenants-${engine}`,
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_MAX_ENDPOINTS: String(ENDPOINTS) },
    });
    const url = daemon.url;
    await registerEndpoints(url, hostile.key, receiver.url, ENDPOINTS);
    const codes = await activeCodes(db, hostile.campaignId);
    const events = { url: `${url}/v1/events`, ...(await pageViewRequest(db, victim)), connections: CONNECTIONS };
    await loadOk({ ...events, durationSec: opts.warmupSec });

    const m = await medianOfRounds(opts.repeats, async (round) => {
      const alone = assertOk(await wrkLoad({ ...events, durationSec: opts.durationSec }), 'page views alone');
      let batches = 0;
      let stop = false;
      const hostileLoop = (async () => {
        while (!stop) {
          const started = Date.now();
          await sendConversionBatches(url, hostile.key, hostile.publicId, codes, {
            batches: 1,
            size: BATCH,
            tag: `r${round}b${batches}`,
          });
          batches++;
          await sleep(Math.max(0, BATCH_EVERY_MS - (Date.now() - started)));
        }
      })();
      const busy = await wrkLoad({ ...events, durationSec: opts.durationSec });
      stop = true;
      await hostileLoop;
      assertOk(busy, 'page views beside the other campaign');
      const fannedOut = await db('webhook_deliveries as d')
        .join('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
        .where('e.campaign_id', hostile.campaignId)
        .count({ n: '*' })
        .first();
      // The next round starts quiet: its messages, their deliveries and the hung attempts gone.
      await db('webhook_messages').where('campaign_id', hostile.campaignId).delete();
      receiver.release();
      await sleep(1000);
      return { busy: busy.p99Ms, alone: alone.p99Ms, batches, deliveries: Number(fannedOut?.n ?? 0) };
    });
    return [
      makeFigure({
        name: `one page view per POST /v1/events, p99 while another campaign’s ${ENDPOINTS.toLocaleString('en')} webhook endpoints hang and its batches of ${BATCH} conversions fan out`,
        engine,
        value: m.busy,
        unit: 'ms',
        baseline: m.alone,
        baselineName: 'the same p99 with the other campaign quiet',
        target: { on: 'ratio', op: '<=', limit: TARGET },
        note: `${CONNECTIONS} connections; ${m.batches} batches a round (one a second), ${m.deliveries.toLocaleString('en')} deliveries written during it`,
      }),
    ];
  } finally {
    await daemon?.stop();
    await database.drop();
    await receiver.stop();
  }
}

export const parts: Part[] = [part('tenants', 'tenants', benchHostileTenant)];

await runIfMain(import.meta.url, parts);
