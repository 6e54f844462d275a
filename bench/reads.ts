/**
 * Read figures: GET /v1/affiliates/{id} under load against bare Koa; `search` at 100,000
 * affiliates against get by id; p99 of single-event requests while affiliates are created
 * (bcrypt) against the same without.
 */
import { Pool } from 'undici';
import type { Db } from '../server/db/knex.js';
import { startBareKoa } from './lib/bareKoa.js';
import { activeCodes, pageViewBody } from './lib/events.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import { load, loadOk } from './lib/load.js';
import type { BenchOptions } from './lib/options.js';
import { seedAffiliates, withStage } from './lib/stage.js';
import { medianOfRounds, percentile, timeMs } from './lib/stats.js';

const GET_TARGET = 0.25;
const SEARCH_TARGET = 10;
const BCRYPT_TARGET = 2;

/** A middle affiliate of the campaign, so neither end of an index is favoured. */
async function middleId(db: Db, campaignId: number): Promise<number> {
  const ids = await db('affiliates').where({ campaign_id: campaignId }).orderBy('id').pluck('id');
  return Number(ids[Math.floor(ids.length / 2)]);
}

/** The authenticated get by id at `connections` connections, beside bare Koa's GET. */
export async function benchGetById(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  const koa = await startBareKoa();
  try {
    return await withStage(
      engine,
      opts,
      async ({ db, merchant, daemon }) => {
        const id = await middleId(db, merchant.campaignId);
        const headers = { 'x-api-key': merchant.key };
        const run = (url: string, durationSec: number) =>
          loadOk({ url, headers, connections: opts.connections, durationSec });
        await run(`${koa.url}/v1/affiliates/${id}`, opts.warmupSec);
        await run(`${daemon.url}/v1/affiliates/${id}`, opts.warmupSec);
        const m = await medianOfRounds(opts.repeats, async () => ({
          bare: (await run(`${koa.url}/v1/affiliates/${id}`, opts.durationSec)).reqPerSec,
          real: (await run(`${daemon.url}/v1/affiliates/${id}`, opts.durationSec)).reqPerSec,
        }));
        return [
          makeFigure({
            name: 'GET /v1/affiliates/{id}',
            engine,
            value: m.real,
            unit: 'req/s',
            baseline: m.bare,
            baselineName: 'bare Koa',
            target: { on: 'ratio', op: '>=', limit: GET_TARGET },
            note: `${opts.connections} connections`,
          }),
        ];
      },
      seedAffiliates(1_000),
    );
  } finally {
    await koa.stop();
  }
}

/** p95 of `samples` requests sent one after another (after three that warm caches). */
async function sequentialP95(pool: Pool, path: string, key: string, samples: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples + 3; i++) {
    const ms = await timeMs(async () => {
      const res = await pool.request({ path, method: 'GET', headers: { 'x-api-key': key } });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
    });
    if (i >= 3) times.push(ms);
  }
  return percentile(times, 95);
}

/** `search` at BENCH_AFFILIATES affiliates: p95 beside the p95 of get by id, same daemon. */
export async function benchSearch(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withStage(
    engine,
    opts,
    async ({ db, merchant, daemon }) => {
      const id = await middleId(db, merchant.campaignId);
      const pool = new Pool(daemon.url, { connections: 1 });
      try {
        // `aff7` matches one e-mail in nine (aff7…, aff70…): a page of 100 out of many.
        const search = '/v1/affiliates?limit=100&search=aff7';
        const m = await medianOfRounds(opts.repeats, async () => ({
          get: await sequentialP95(pool, `/v1/affiliates/${id}`, merchant.key, opts.samples),
          search: await sequentialP95(pool, search, merchant.key, opts.samples),
        }));
        return [
          makeFigure({
            name: `list with search, ${opts.affiliates.toLocaleString('en')} affiliates, p95`,
            engine,
            value: m.search,
            unit: 'ms',
            baseline: m.get,
            baselineName: 'get by id, p95',
            target: { on: 'ratio', op: '<=', limit: SEARCH_TARGET },
            note: `${opts.samples} requests one at a time`,
          }),
        ];
      } finally {
        await pool.close();
      }
    },
    seedAffiliates(opts.affiliates),
  );
}

/**
 * p99 of single page views at `connections` connections while BENCH_BCRYPT_CREATIONS affiliates
 * are created (bcrypt at the daemon's default cost), beside the p99 of a run without them.
 */
export async function benchBcryptP99(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withStage(
    engine,
    opts,
    async ({ db, merchant, daemon }) => {
      const [code] = await activeCodes(db, merchant.campaignId);
      const body = pageViewBody(merchant.publicId, code ?? '');
      const headers = { 'content-type': 'application/json', 'x-api-key': merchant.key };
      const run = (durationSec: number) =>
        loadOk({ url: `${daemon.url}/v1/events`, method: 'POST', headers, body, connections: opts.connections, durationSec });
      const creators = new Pool(daemon.url, { connections: opts.bcryptCreations });
      let created = 0;
      const createAll = async (round: number) => {
        await Promise.all(
          Array.from({ length: opts.bcryptCreations }, async (_, i) => {
            const res = await creators.request({
              path: '/v1/affiliates',
              method: 'POST',
              headers,
              body: JSON.stringify({ email: `bcrypt${round}.${i}@example.com`, name: `Bcrypt ${i}`, password: 'secret123' }),
            });
            const text = await res.body.text();
            if (res.statusCode !== 201) throw new Error(`POST /v1/affiliates: ${res.statusCode} ${text.slice(0, 200)}`);
            created++;
          }),
        );
      };
      try {
        await run(opts.warmupSec);
        await createAll(-1);
        const m = await medianOfRounds(opts.repeats, async (round) => {
          const quiet = await run(opts.durationSec);
          // The creations start a fifth into the run and all end well before it does.
          const loaded = load({ url: `${daemon.url}/v1/events`, method: 'POST', headers, body, connections: opts.connections, durationSec: opts.durationSec });
          await new Promise((resolve) => setTimeout(resolve, (opts.durationSec * 1000) / 5));
          await createAll(round);
          const busy = await loaded;
          if (busy.non2xx > 0 || busy.errors > 0) throw new Error(`page views failed while creating affiliates: ${busy.non2xx} non-2xx, ${busy.errors} errors`);
          return { quiet: quiet.p99Ms, busy: busy.p99Ms };
        });
        if (created !== opts.bcryptCreations * (opts.repeats + 1)) throw new Error(`only ${created} affiliates were created`);
        return [
          makeFigure({
            name: `one page view per POST /v1/events, p99 while ${opts.bcryptCreations} affiliates are created`,
            engine,
            value: m.busy,
            unit: 'ms',
            baseline: m.quiet,
            baselineName: 'p99 without them',
            target: { on: 'ratio', op: '<=', limit: BCRYPT_TARGET },
            note: `${opts.connections} connections, bcrypt cost 10`,
          }),
        ];
      } finally {
        await creators.close();
      }
    },
    seedAffiliates(10),
  );
}
