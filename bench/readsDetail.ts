/**
 * The read path and bcrypt's effect on intake, each figure beside a baseline measured in the
 * same run (medians of RUNS rounds), on SQLite and, when TEST_MYSQL_URL (or BENCH_MYSQL_URL)
 * is set, on MariaDB. The daemon and the bare Koa baseline run in child processes; the load
 * generator (autocannon) runs here.
 *
 *   node --import tsx bench/reads.ts                 # all three, both engines
 *   node --import tsx bench/reads.ts get search      # a subset: get, search, bcrypt
 *   BENCH_CPU_PROF=/tmp/prof node --import tsx bench/reads.ts get   # daemon under --cpu-prof
 *   BENCH_ENGINE=mysql BENCH_RUNS=1 node --import tsx bench/reads.ts search
 */
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import type { Engine } from '../server/db/knex.js';
import { createMerchant, type Merchant } from '../test/helpers/daemon.js';
import { createTestDatabase } from '../test/helpers/database.js';
import { seedCampaign } from './seed.js';
import { startBareKoa, startDaemonChild } from './support/children.js';
import { load, median, percentile } from './support/load.js';

export interface Figure {
  figure: string;
  engine: Engine;
  value: number;
  unit: string;
  baseline: number;
  baselineLabel: string;
  ratio: number;
  target: string;
  detail?: string;
}

const RUNS = Number(process.env.BENCH_RUNS ?? 3);

function profileFlags(label: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  // One profile per thread (tsx's loader has its own); the main thread's is the largest.
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}/${label}`] : [];
}

/** `GET /v1/affiliates/{id}` req/s at 64 connections against a bare Koa app's. */
export async function benchGetById(
  engine: Engine,
  opts: { connections?: number; durationSeconds?: number; affiliates?: number } = {},
): Promise<Figure> {
  const connections = opts.connections ?? 64;
  const duration = opts.durationSeconds ?? 5;
  const t = await createTestDatabase({ engine });
  const merchant = await createMerchant(t.db);
  const ids = await seedCampaign(t.db, merchant.campaignId, {
    affiliates: opts.affiliates ?? 1_000,
    conversions: 10_000,
    tag: 'G',
  });
  const bare = await startBareKoa();
  const daemon = await startDaemonChild(t.url, {}, profileFlags(`get-${engine}`));
  try {
    const paths = ids.slice(0, 200).map((id) => `/v1/affiliates/${id}`);
    const headers = { 'x-api-key': merchant.key };
    // Warm both (JIT, key cache, page cache).
    await load({ url: bare.url, connections, durationSeconds: 1 });
    await load({ url: daemon.url, connections, durationSeconds: 1, headers, paths });
    const base: number[] = [];
    const got: number[] = [];
    // CPU per request, which a busy machine disturbs far less than req/s: bare Koa's / the daemon's.
    const cpuRatios: number[] = [];
    const perRequest = async (child: typeof bare, run: () => Promise<{ reqPerSec: number; samples: unknown[] }>) => {
      const before = child.cpuMs();
      const r = await run();
      return { r, cpuMs: (child.cpuMs() - before) / r.samples.length };
    };
    for (let run = 0; run < RUNS; run++) {
      const b = await perRequest(bare, () => load({ url: bare.url, connections, durationSeconds: duration }));
      base.push(b.r.reqPerSec);
      const d = await perRequest(daemon, async () => {
        const r = await load({ url: daemon.url, connections, durationSeconds: duration, headers, paths });
        if (r.non2xx || r.errors) throw new Error(`get by id: ${r.non2xx} non-2xx, ${r.errors} errors`);
        return r;
      });
      got.push(d.r.reqPerSec);
      cpuRatios.push(b.cpuMs / d.cpuMs);
    }
    const value = median(got);
    const baseline = median(base);
    return {
      figure: 'GET /v1/affiliates/{id}, 64 connections',
      engine,
      value,
      unit: 'req/s',
      baseline,
      baselineLabel: 'bare Koa req/s',
      ratio: value / baseline,
      target: '≥ 0.25',
      detail: `runs: ${got.map(Math.round).join(', ')} vs ${base.map(Math.round).join(', ')} req/s; CPU per request, bare Koa's / the daemon's: median ${median(cpuRatios).toFixed(2)} (${cpuRatios.map((x) => x.toFixed(2)).join(', ')})`,
    };
  } finally {
    await daemon.stop();
    await bare.stop();
    await t.drop();
  }
}

async function timeGet(url: string, key: string): Promise<number> {
  const started = performance.now();
  const res = await request(url, { headers: { 'x-api-key': key } });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
  return performance.now() - started;
}

/**
 * p95 of `search` at 100,000 affiliates against p95 of get by id, one request at a time,
 * interleaved so both meet the same noise. Terms that find a few affiliates (an e-mail's local
 * part, a referral code, a name), plus the p95 of a broad term that matches 11 % of them.
 */
export async function benchSearch(
  engine: Engine,
  opts: { affiliates?: number; samples?: number } = {},
): Promise<Figure[]> {
  const affiliates = opts.affiliates ?? 100_000;
  const samples = opts.samples ?? 200;
  const t = await createTestDatabase({ engine });
  const merchant: Merchant = await createMerchant(t.db);
  const seeded = performance.now();
  const ids = await seedCampaign(t.db, merchant.campaignId, { affiliates, conversions: affiliates, tag: 'L' });
  const seedSeconds = (performance.now() - seeded) / 1000;
  await t.db.raw(engine === 'mysql' ? 'ANALYZE TABLE affiliates, conversions, payouts' : 'ANALYZE');
  const daemon = await startDaemonChild(t.url, {}, profileFlags(`search-${engine}`));
  try {
    const term = (i: number) => {
      const n = (i * 7919) % affiliates;
      const kinds = [`aff${n}.`, `L${n.toString(36)}`, `affiliate ${n} `];
      return encodeURIComponent(kinds[i % kinds.length] ?? '');
    };
    const get = (i: number) => `${daemon.url}/v1/affiliates/${ids[(i * 104_729) % ids.length]}`;
    const search = (i: number) => `${daemon.url}/v1/affiliates?limit=50&search=${term(i)}`;
    const broad = `${daemon.url}/v1/affiliates?limit=50&search=aff7`;
    for (let i = 0; i < 20; i++) {
      await timeGet(get(i), merchant.key);
      await timeGet(search(i), merchant.key);
    }
    const gets: number[] = [];
    const searches: number[] = [];
    const broads: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const g: number[] = [];
      const s: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < samples; i++) {
        g.push(await timeGet(get(run * samples + i), merchant.key));
        s.push(await timeGet(search(run * samples + i), merchant.key));
        if (i % 10 === 0) b.push(await timeGet(broad, merchant.key));
      }
      gets.push(percentile(g, 95));
      searches.push(percentile(s, 95));
      broads.push(percentile(b, 95));
    }
    const baseline = median(gets);
    const detail = `${affiliates.toLocaleString('en')} affiliates seeded in ${seedSeconds.toFixed(1)} s; p95 per run: search ${searches.map((x) => x.toFixed(2)).join(', ')} ms, get ${gets.map((x) => x.toFixed(2)).join(', ')} ms`;
    return [
      {
        figure: `list with search (a few matches), ${affiliates.toLocaleString('en')} affiliates, p95`,
        engine,
        value: median(searches),
        unit: 'ms',
        baseline,
        baselineLabel: 'get by id p95 ms',
        ratio: median(searches) / baseline,
        target: '≤ 10',
        detail,
      },
      {
        figure: `list with search=aff7 (11 % match), ${affiliates.toLocaleString('en')} affiliates, p95`,
        engine,
        value: median(broads),
        unit: 'ms',
        baseline,
        baselineLabel: 'get by id p95 ms',
        ratio: median(broads) / baseline,
        target: 'reported',
      },
    ];
  } finally {
    await daemon.stop();
    await t.drop();
  }
}

/**
 * p99 of single-event `POST /v1/events` (16 connections) while 20 affiliate creations (bcrypt,
 * BCRYPT_ROUNDS 10) run, against p99 over a window of the same length right after them.
 */
export async function benchBcryptP99(
  engine: Engine,
  opts: { connections?: number; creations?: number; env?: Record<string, string> } = {},
): Promise<Figure> {
  const connections = opts.connections ?? 16;
  const creations = opts.creations ?? 20;
  const t = await createTestDatabase({ engine });
  const merchant = await createMerchant(t.db);
  const [code] = (await seedCampaign(t.db, merchant.campaignId, { affiliates: 10, conversions: 0, tag: 'B' }))
    .length
    ? await t.db('affiliates').where({ campaign_id: merchant.campaignId }).pluck('referral_id')
    : [];
  await t.db('affiliates').where({ campaign_id: merchant.campaignId }).update({ status: 'active' });
  const daemon = await startDaemonChild(t.url, { BCRYPT_ROUNDS: '10', ...opts.env }, profileFlags(`bcrypt-${engine}`));
  const body = JSON.stringify({
    events: [{ event_type: 'page_view', campaign_id: merchant.publicId, affiliate_id: String(code) }],
  });
  const headers = { 'x-api-key': merchant.key, 'content-type': 'application/json' };
  let sequence = 0;
  const createAll = async () => {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: creations }, async () => {
        const res = await request(`${daemon.url}/v1/affiliates`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ email: `b${process.pid}-${++sequence}@example.com`, password: 'secret-pass' }),
        });
        await res.body.text();
        if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode}`);
      }),
    );
    return performance.now() - started;
  };
  try {
    await load({ url: `${daemon.url}/v1/events`, connections, durationSeconds: 1, method: 'POST', headers, body });
    await createAll(); // warms bcrypt's pool threads
    const quiet: number[] = [];
    const busy: number[] = [];
    const windows: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const startAt = 1000;
      // The load runs until the creations are done and as long again (at most a minute).
      let windowDone: (ms: number) => void = () => undefined;
      const window = new Promise<number>((resolve) => {
        windowDone = resolve;
      });
      const until = window.then((ms) => new Promise((resolve) => setTimeout(resolve, ms + 500)));
      const loaded = load({ url: `${daemon.url}/v1/events`, connections, durationSeconds: 60, method: 'POST', headers, body, until });
      await new Promise((resolve) => setTimeout(resolve, startAt));
      windowDone(await createAll());
      const windowMs = await window;
      const r = await loaded;
      if (r.non2xx || r.errors) throw new Error(`events: ${r.non2xx} non-2xx, ${r.errors} errors`);
      const inWindow = (from: number, to: number) =>
        r.samples.filter((s) => s.at >= from && s.at <= to).map((s) => s.ms);
      // Answers that arrived while the creations ran, and the same length of time after them.
      busy.push(percentile(inWindow(startAt, startAt + windowMs), 99));
      const after = startAt + windowMs + 250;
      quiet.push(percentile(inWindow(after, after + windowMs), 99));
      windows.push(windowMs);
    }
    const value = median(busy);
    const baseline = median(quiet);
    return {
      figure: `single-event POST /v1/events p99 (${connections} connections) while ${creations} affiliates are created`,
      engine,
      value,
      unit: 'ms',
      baseline,
      baselineLabel: 'p99 without creations, ms',
      ratio: value / baseline,
      target: '≤ 2',
      detail: `creations took ${windows.map(Math.round).join(', ')} ms; p99 with ${busy.map((x) => x.toFixed(1)).join(', ')}, without ${quiet.map((x) => x.toFixed(1)).join(', ')}`,
    };
  } finally {
    await daemon.stop();
    await t.drop();
  }
}

export function engines(): Engine[] {
  const mysqlUrl = process.env.BENCH_MYSQL_URL ?? process.env.TEST_MYSQL_URL;
  if (mysqlUrl) process.env.TEST_MYSQL_URL = mysqlUrl;
  const all: Engine[] = mysqlUrl ? ['sqlite', 'mysql'] : ['sqlite'];
  const only = process.env.BENCH_ENGINE;
  return only ? all.filter((engine) => engine === only) : all;
}

function show(figure: Figure): void {
  const fmt = (x: number) => (x >= 100 ? Math.round(x).toLocaleString('en') : x.toFixed(2));
  console.log(
    `| ${figure.engine} | ${figure.figure} | ${fmt(figure.value)} ${figure.unit} | ${fmt(figure.baseline)} (${figure.baselineLabel}) | ${figure.ratio.toFixed(2)} | ${figure.target} |`,
  );
  if (figure.detail) console.log(`|  | ${figure.detail} | | | | |`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const wanted = process.argv.slice(2);
  const run = (name: string) => wanted.length === 0 || wanted.includes(name);
  console.log('| engine | figure | measured | baseline, same run | ratio | target |\n|---|---|---|---|---|---|');
  for (const engine of engines()) {
    if (run('get')) show(await benchGetById(engine));
    if (run('search')) for (const figure of await benchSearch(engine)) show(figure);
    if (run('bcrypt')) show(await benchBcryptP99(engine));
  }
}
