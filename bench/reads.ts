/**
 * Read figures: GET /v1/affiliates/{id} under load against bare Koa answering the same JSON,
 * as req/s and as CPU per request; `search` at BENCH_AFFILIATES affiliates against get by id
 * (terms that find a few affiliates, and a broad one), measured on bench/atScale.ts's stage;
 * p99 of single page views while affiliates are created (bcrypt) against the p99 right after.
 *
 * Run alone (after `npm run build`): `node --import tsx bench/reads.ts [sqlite|mysql] [getById|bcrypt]`
 * (search: `bench/atScale.ts search`).
 */
import { Pool } from 'undici';
import { withBareKoa } from './lib/bareKoa.js';
import { compareUnderLoad, comparisonBound } from './lib/compare.js';
import { boundOf } from './lib/bound.js';
import { type CpuShares, cpuPerRequest, medianShares, whileWatching } from './lib/cpu.js';
import { runIfMain } from './lib/direct.js';
import { pageViewRequest } from './lib/events.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import { assertOk, sampledLoad } from './lib/load.js';
import type { BenchOptions } from './lib/options.js';
import { part, type Part } from './lib/part.js';
import type { ScaleStage } from './lib/scale.js';
import { seedAffiliates, withStage } from './lib/stage.js';
import { medianOfRounds, percentile, timeMs } from './lib/stats.js';

/** MariaDB pays a network round trip per request, hence its lower bar. */
const GET_TARGET = { sqlite: 0.35, mysql: 0.25 } as const;
const SEARCH_TARGET = 10;
const BCRYPT_TARGET = 2;
/**
 * Page views during the bcrypt figure come from 16 connections, not 64: at 64 the tail is the
 * queue behind the one writer, whatever bcrypt does, and that is the single-event figure's.
 */
const BCRYPT_CONNECTIONS = 16;

/** What the daemon answers each path: bare Koa then answers the same JSON. */
async function answersOf(url: string, paths: readonly string[], key: string): Promise<Record<string, unknown>> {
  const pool = new Pool(url, { connections: 1 });
  try {
    const bodies: Record<string, unknown> = {};
    for (const path of paths) {
      const res = await pool.request({ path, method: 'GET', headers: { 'x-api-key': key } });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
      bodies[path] = JSON.parse(text);
    }
    return bodies;
  } finally {
    await pool.close();
  }
}

/**
 * The authenticated get by id (200 ids of a campaign of 1,000 affiliates and 10,000 conversions,
 * in turn) at `connections` connections, beside bare Koa answering the same 200 paths with the
 * same JSON (the daemon's answers, fetched first), both driven by wrk: req/s, and the requests
 * each process serves per CPU-second, which moves far less with the rest of the machine's work.
 */
export function benchGetById(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withStage(
    engine,
    opts,
    async ({ db, merchant, daemon, databaseServer }) => {
      const ids = await db('affiliates')
        .where({ campaign_id: merchant.campaignId })
        .orderBy('id')
        .limit(200)
        .pluck('id');
      const paths = ids.map((id) => `/v1/affiliates/${id}`);
      const headers = { 'x-api-key': merchant.key };
      const getBodies = await answersOf(daemon.url, paths, merchant.key);
      const c = await withBareKoa(
        (koa) =>
          compareUnderLoad(opts, {
            baseline: { name: 'bare Koa', child: koa, request: { url: koa.url, paths, headers } },
            real: {
              name: 'daemon',
              child: daemon,
              alsoWatch: databaseServer,
              request: { url: daemon.url, paths, headers },
            },
          }),
        { getBodies, profile: `bareKoa-getById-${engine}` },
      );
      const note = `${opts.connections} connections, wrk, 200 ids in turn`;
      return [
        makeFigure({
          name: 'GET /v1/affiliates/{id}',
          engine,
          value: c.real.reqPerSec,
          unit: 'req/s',
          baseline: c.baseline.reqPerSec,
          baselineName: 'bare Koa answering the same JSON',
          target: { on: 'ratio', op: '>=', limit: GET_TARGET[engine] },
          note,
          ...comparisonBound(c),
        }),
        makeFigure({
          name: 'GET /v1/affiliates/{id}, requests per CPU-second of the server process',
          engine,
          value: c.real.reqPerCpuSec,
          unit: 'req/CPU-s',
          baseline: c.baseline.reqPerCpuSec,
          baselineName: 'bare Koa',
          note: 'the same runs; what a machine of its own would turn into req/s',
        }),
      ];
    },
    seedAffiliates(1_000, 10_000),
    `getById-${engine}`,
  );
}

function timeGet(pool: Pool, path: string, key: string): Promise<number> {
  return timeMs(async () => {
    const res = await pool.request({ path, method: 'GET', headers: { 'x-api-key': key } });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
  });
}

/**
 * `search` on the large campaign, one request at a time, interleaved with gets by id so both
 * meet the same noise: p95 of terms that find a few affiliates (an e-mail's local part, a
 * code, a name), and p95 of `aff7`, which matches one e-mail in nine, each beside the p95 of get
 * by id. `samples` of each a round, the broad term every second one.
 */
export async function benchSearch(stage: ScaleStage, opts: BenchOptions): Promise<Figure[]> {
  const { engine, merchant, daemon, ids, tag, databaseServer } = stage;
  const pool = new Pool(daemon.url, { connections: 1 });
  const meter = cpuPerRequest({ daemon: daemon.pid, ...databaseServer });
  try {
    const affiliates = ids.length;
    const term = (i: number) => {
      const n = (i * 7919) % affiliates;
      const kinds = [`aff${n}.`, `${tag}${n.toString(36)}`, `affiliate ${n} `];
      return encodeURIComponent(kinds[i % kinds.length] ?? '');
    };
    const get = (i: number) => `/v1/affiliates/${ids[(i * 104_729) % ids.length]}`;
    const search = (i: number) => `/v1/affiliates?limit=50&search=${term(i)}`;
    const broad = '/v1/affiliates?limit=50&search=aff7';
    for (let i = 0; i < 10; i++) {
      await timeGet(pool, get(i), merchant.key);
      await timeGet(pool, search(i), merchant.key);
    }
    await timeGet(pool, broad, merchant.key);
    const m = await medianOfRounds(opts.repeats, async (round) => {
      const g: number[] = [];
      const s: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < opts.samples; i++) {
        const n = (round + 1) * opts.samples + i;
        g.push(await meter.time('get by id', () => timeGet(pool, get(n), merchant.key)));
        s.push(await meter.time('search', () => timeGet(pool, search(n), merchant.key)));
        if (i % 2 === 0) b.push(await meter.time('search=aff7', () => timeGet(pool, broad, merchant.key)));
      }
      return { get: percentile(g, 95), search: percentile(s, 95), broad: percentile(b, 95) };
    });
    const scale = `${affiliates.toLocaleString('en')} affiliates`;
    const note = `${opts.samples} requests one at a time, interleaved with get by id`;
    return [
      makeFigure({
        name: `list with search (a few matches), ${scale}, p95`,
        engine,
        value: m.search,
        unit: 'ms',
        baseline: m.get,
        baselineName: 'get by id, p95',
        target: { on: 'ratio', op: '<=', limit: SEARCH_TARGET },
        note,
        bound: `${meter.describe('search')}; ${meter.describe('get by id')}`,
      }),
      makeFigure({
        name: `list with search=aff7 (one in nine matches), ${scale}, p95`,
        engine,
        value: m.broad,
        unit: 'ms',
        baseline: m.get,
        baselineName: 'get by id, p95',
        note: `${Math.ceil(opts.samples / 2)} requests a round; reported, no target`,
        bound: meter.describe('search=aff7'),
      }),
    ];
  } finally {
    await pool.close();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * p99 of single page views at 16 connections while BENCH_BCRYPT_CREATIONS affiliates are created
 * at once (bcrypt at the daemon's default cost), beside the p99 over a window as long right after
 * them. The load starts a second before the creations and runs until they are done and as long
 * again, so both windows come from the same run whatever the creations take.
 */
export async function benchBcryptP99(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withStage(
    engine,
    opts,
    async ({ db, merchant, daemon, databaseServer }) => {
      const request = await pageViewRequest(db, merchant);
      const { headers } = request;
      // autocannon runs in this process: its share is the load generator's.
      const pids = { daemon: daemon.pid, 'bench (autocannon)': process.pid, ...databaseServer };
      const windows: CpuShares[] = [];
      const events = { url: `${daemon.url}/v1/events`, ...request, connections: BCRYPT_CONNECTIONS };
      const creators = new Pool(daemon.url, { connections: opts.bcryptCreations });
      let created = 0;
      const createAll = async (round: number) =>
        timeMs(() =>
          Promise.all(
            Array.from({ length: opts.bcryptCreations }, async (_, i) => {
              const res = await creators.request({
                path: '/v1/affiliates',
                method: 'POST',
                headers,
                body: JSON.stringify({
                  email: `bcrypt${round}.${i}@example.com`,
                  name: `Bcrypt ${i}`,
                  password: 'secret123',
                }),
              });
              const text = await res.body.text();
              if (res.statusCode !== 201)
                throw new Error(`POST /v1/affiliates: ${res.statusCode} ${text.slice(0, 200)}`);
              created++;
            }),
          ),
        );
      try {
        await sampledLoad({ ...events, durationSec: Math.max(1, opts.warmupSec) });
        await createAll(-1); // starts bcrypt's threads
        const startAt = 1000;
        const m = await medianOfRounds(opts.repeats, async (round) => {
          let done: (ms: number) => void = () => undefined;
          const creations = new Promise<number>((resolve) => {
            done = resolve;
          });
          const until = creations.then((ms) => sleep(ms + 500));
          const loaded = sampledLoad({ ...events, durationSec: 300, until, keepSamples: true });
          await sleep(startAt);
          const creating = await whileWatching(pids, () => createAll(round));
          windows.push(creating.shares);
          done(creating.value);
          const windowMs = await creations;
          const run = assertOk(await loaded, 'page views while creating affiliates');
          const within = (from: number, to: number) =>
            run.samples.filter((s) => s.at >= from && s.at <= to).map((s) => s.ms);
          const after = startAt + windowMs + 250;
          return {
            busy: percentile(within(startAt, startAt + windowMs), 99),
            quiet: percentile(within(after, after + windowMs), 99),
            windowMs,
          };
        });
        if (created !== opts.bcryptCreations * (opts.repeats + 1))
          throw new Error(`only ${created} affiliates were created`);
        return [
          makeFigure({
            name: `one page view per POST /v1/events, p99 while ${opts.bcryptCreations} affiliates are created`,
            engine,
            value: m.busy,
            unit: 'ms',
            baseline: m.quiet,
            baselineName: 'p99 over as long right after',
            bound: `while creating: ${boundOf('daemon', medianShares(windows))}`,
            cpu: { measured: medianShares(windows) },
            target: { on: 'ratio', op: '<=', limit: BCRYPT_TARGET },
            note: `${BCRYPT_CONNECTIONS} connections, bcrypt cost 10, creations took ${(m.windowMs / 1000).toFixed(1)} s`,
          }),
        ];
      } finally {
        await creators.close();
      }
    },
    seedAffiliates(10),
    `bcrypt-${engine}`,
  );
}

export const parts: Part[] = [part('reads', 'getById', benchGetById), part('reads', 'bcrypt', benchBcryptP99)];

await runIfMain(import.meta.url, parts);
