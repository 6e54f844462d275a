/**
 * The merchant dashboard's overview (docs/dashboard.md) for a campaign of BENCH_DASHBOARD_AFFILIATES
 * affiliates (100,000) and BENCH_DASHBOARD_CONVERSIONS conversions (1,000,000), all of them from
 * the first of last month to now, the overview's whole range: p95 under a light load, beside the
 * p95 of `GET /v1/campaign` with an API key of the same campaign, measured the same way in the
 * same stage. A viewer logs in through the real log-in form; its session cookie is what the load
 * sends. Before measuring, the page's figures are checked against `GET /v1/reports/affiliates`
 * over the same days: a fast overview that counts wrong is a failure, not a figure.
 *
 * Run alone (after `npm run build`): `node --import tsx bench/dashboard.ts [sqlite|mysql]`.
 */
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';
import type { Db, Trx } from '../server/db/knex.js';
import { engineOf } from '../server/db/knex.js';
import { insertRows } from '../server/db/bulk.js';
import { insertDashboardUser, setDashboardPassword } from '../server/repositories/dashboardUsers.js';
import type { Merchant } from '../test/helpers/daemon.js';
import { seedCampaign } from './seed.js';
import { runIfMain } from './lib/direct.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import { sampledLoad, sampledP95 } from './lib/load.js';
import type { BenchOptions } from './lib/options.js';
import { part, type Part } from './lib/part.js';
import { withStage } from './lib/stage.js';
import { medianOfRounds } from './lib/stats.js';

/** A few people at once: a dashboard is read by a merchant's team, not by a load generator. */
const CONNECTIONS = 4;
const DAY_MS = 24 * 60 * 60 * 1000;
/** The issue's bound: the overview within twice the campaign's cheapest authenticated read. */
const TARGET_RATIO = 2;
/** Conversions of one affiliate on one day: a counter row holds a few, as an active affiliate's do. */
const PER_ROW = 3;
const PASSWORD = 'bench-viewer-password';

const sizes = (opts: BenchOptions) => ({
  affiliates: Number(process.env.BENCH_DASHBOARD_AFFILIATES ?? (opts.quick ? 10_000 : 100_000)),
  conversions: Number(process.env.BENCH_DASHBOARD_CONVERSIONS ?? (opts.quick ? 100_000 : 1_000_000)),
});

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Rows a transaction on MariaDB (where one transaction of a million rows was slower than many). */
const BLOCK = 20_000;

/**
 * `work` over `count` items in blocks of BLOCK: on SQLite all in one transaction (a commit, and
 * its fsync, per block is most of the time otherwise), on MariaDB a transaction per block.
 */
async function inBlocks(db: Db, count: number, work: (trx: Trx, from: number, to: number) => Promise<void>) {
  const each = async (trx: Trx, from: number) => work(trx, from, Math.min(from + BLOCK, count));
  if (engineOf(db) === 'mysql') {
    for (let from = 0; from < count; from += BLOCK) await db.transaction((trx) => each(trx, from));
  } else {
    await db.transaction(async (trx) => {
      for (let from = 0; from < count; from += BLOCK) await each(trx, from);
    });
  }
}

interface Counter {
  day: string;
  affiliate: number;
  conversions: number;
  revenue: number;
  commission: number;
}

/**
 * The conversions, spread evenly from the first of last month (UTC) to now, and the daily counters
 * intake would have kept for them (with some page views and leads beside), summed from the same
 * rows, then the campaign's totals per day that intake keeps beside them. Multi-row statements
 * written by hand (server/db/bulk.ts): Knex's builder would spend a minute quoting a million rows.
 */
async function seedConversions(db: Db, campaignId: number, ids: readonly number[], count: number): Promise<void> {
  const now = Date.now();
  const start = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() - 1, 1);
  const statuses = ['pending', 'approved', 'rejected', 'paid'] as const;
  const tag = randomBytes(3).toString('hex');
  const counters = new Map<string, Counter>();
  await inBlocks(db, count, async (trx, from, to) => {
    const rows = [];
    for (let i = from; i < to; i++) {
      const at = new Date(start + Math.floor((i / count) * (now - start)));
      const affiliate = ids[(Math.floor(i / PER_ROW) * 7919) % ids.length] ?? 0;
      const value = 10_000 + (i % 5000);
      const commission = 1_000 + (i % 500);
      rows.push({
        campaign_id: campaignId,
        affiliate_id: affiliate,
        order_id: `D${tag}-${i}`,
        order_value_cents: value,
        commission_cents: commission,
        status: statuses[i % statuses.length],
        occurred_at: at,
        created_at: at,
        updated_at: at,
      });
      const day = dayOf(at.getTime());
      const key = `${day}\n${affiliate}`;
      const row = counters.get(key) ?? { day, affiliate, conversions: 0, revenue: 0, commission: 0 };
      row.conversions++;
      row.revenue += value;
      row.commission += commission;
      counters.set(key, row);
    }
    await insertRows(trx, 'conversions', Object.keys(rows[0] ?? {}) as Array<keyof (typeof rows)[number]>, rows);
  });
  const all = [...counters.values()];
  await inBlocks(db, all.length, async (trx, from, to) => {
    const rows = all.slice(from, to).map((r, n) => ({
      campaign_id: campaignId,
      day: r.day,
      affiliate_id: r.affiliate,
      shard: 0,
      page_views: 20 + ((from + n) % 7),
      leads: 2 + ((from + n) % 3),
      conversions: r.conversions,
      revenue_cents: r.revenue,
      commission_cents: r.commission,
    }));
    await insertRows(
      trx,
      'affiliate_daily_stats',
      Object.keys(rows[0] ?? {}) as Array<keyof (typeof rows)[number]>,
      rows,
    );
  });
  // The campaign's days, summed from the affiliates' as intake keeps them beside.
  const sums = ['page_views', 'leads', 'conversions', 'revenue_cents', 'commission_cents'];
  await db.raw(
    `INSERT INTO campaign_daily_stats (campaign_id, day, shard, ${sums.join(', ')})
     SELECT campaign_id, day, shard, ${sums.map((c) => `SUM(${c})`).join(', ')} FROM affiliate_daily_stats
     WHERE campaign_id = ? GROUP BY campaign_id, day, shard`,
    [campaignId],
  );
}

/** A viewer (no second factor to give) with a known password, made as `affiliated users create` and its set-up link would. */
async function addViewer(db: Db, campaignId: number): Promise<string> {
  const email = `viewer.${randomBytes(3).toString('hex')}@shop.example`;
  const now = new Date();
  const user = await insertDashboardUser(db, { campaignId, email, role: 'viewer', now });
  await db.transaction((trx) => setDashboardPassword(trx, user.id, bcrypt.hashSync(PASSWORD, 4), now));
  return email;
}

/** The cookies a response sets, as one `cookie` header (names and values only). */
function cookiesOf(res: Response, jar: Map<string, string>): string {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair?.indexOf('=') ?? -1;
    if (pair && at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
}

/** Logs the viewer in through the log-in page and its form, as a browser does; the session's cookies. */
async function logIn(url: string, publicId: string, email: string): Promise<string> {
  const jar = new Map<string, string>();
  const base = `${url}/dashboard/${publicId}`;
  const form = await fetch(`${base}/`);
  let cookie = cookiesOf(form, jar);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!csrf) throw new Error('the log-in page has no form token');
  const res = await fetch(`${base}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, email, password: PASSWORD }).toString(),
  });
  cookie = cookiesOf(res, jar);
  if (res.status !== 303 && res.status !== 302) throw new Error(`the log-in answered ${res.status}`);
  if (!(res.headers.get('location') ?? '').endsWith('/overview'))
    throw new Error('the log-in did not lead to the overview');
  return cookie;
}

/** The figures of the overview's table (this month, last month), as whole numbers: counts, and money in cents. */
function figuresOf(html: string): number[][] {
  const rows = [
    ...html.matchAll(
      /<tr><th scope="row">[^<]*<\/th><td class="num">([^<]*)<\/td><td class="num">([^<]*)<\/td><\/tr>/g,
    ),
  ];
  return rows.map((m) => [m[1] ?? '', m[2] ?? ''].map((text) => Number(text.replace(/[^0-9]/g, ''))));
}

interface ReportTotals {
  totals: { pageViews: number; leads: number; conversions: number; commissions: number };
}

/**
 * The overview's figures equal the report API's totals over the same days (this month so far,
 * and the whole of last month): both read the counters intake keeps; neither may drift.
 */
async function checkExact(url: string, merchant: Merchant, cookie: string): Promise<void> {
  const page = await fetch(`${url}/dashboard/${merchant.publicId}/overview`, {
    headers: { cookie, 'accept-language': 'en' },
  });
  if (page.status !== 200) throw new Error(`the overview answered ${page.status}`);
  const figures = figuresOf(await page.text());
  const now = new Date();
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const ranges = [
    [dayOf(Date.UTC(y, m, 1)), dayOf(now.getTime())],
    [dayOf(Date.UTC(y, m - 1, 1)), dayOf(Date.UTC(y, m, 1) - DAY_MS)],
  ];
  for (const [column, [from, to]] of ranges.entries()) {
    const res = await fetch(`${url}/v1/reports/affiliates?from=${from}&to=${to}`, {
      headers: { 'x-api-key': merchant.key },
    });
    if (res.status !== 200) throw new Error(`the report answered ${res.status}`);
    const { totals } = (await res.json()) as ReportTotals;
    const expected = [totals.pageViews, totals.leads, totals.conversions, Math.round(totals.commissions * 100)];
    const shown = figures.map((row) => row[column]);
    if (JSON.stringify(shown) !== JSON.stringify(expected))
      throw new Error(`the overview shows ${shown.join(', ')} for ${from}..${to}; the report ${expected.join(', ')}`);
  }
}

interface Load {
  url: string;
  paths: string[];
  headers: Record<string, string>;
  connections: number;
}

export function benchOverview(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  const size = sizes(opts);
  let email = '';
  return withStage(
    engine,
    opts,
    async ({ daemon, merchant }) => {
      const cookie = await logIn(daemon.url, merchant.publicId, email);
      await checkExact(daemon.url, merchant, cookie);
      const overview: Load = {
        url: daemon.url,
        paths: [`/dashboard/${merchant.publicId}/overview`],
        headers: { cookie, 'accept-language': 'pt-BR' },
        connections: CONNECTIONS,
      };
      const campaign: Load = {
        url: daemon.url,
        paths: ['/v1/campaign'],
        headers: { 'x-api-key': merchant.key },
        connections: CONNECTIONS,
      };
      const p95 = (load: Load, what: string) => sampledP95({ ...load, durationSec: opts.durationSec }, what);
      await sampledLoad({ ...overview, durationSec: Math.max(1, opts.warmupSec) });
      await sampledLoad({ ...campaign, durationSec: Math.max(1, opts.warmupSec) });
      const m = await medianOfRounds(opts.repeats, async () => ({
        overview: await p95(overview, 'the overview'),
        campaign: await p95(campaign, 'GET /v1/campaign'),
      }));
      const scale = `${size.affiliates.toLocaleString('en')} affiliates, ${size.conversions.toLocaleString('en')} conversions`;
      return [
        makeFigure({
          name: `GET /dashboard/{campaign}/overview, ${scale}, p95`,
          engine,
          value: m.overview,
          unit: 'ms',
          baseline: m.campaign,
          baselineName: 'GET /v1/campaign of the same campaign, p95',
          target: { on: 'ratio', op: '<=', limit: TARGET_RATIO },
          note: `${CONNECTIONS} connections, ${opts.durationSec} s a side, median of ${opts.repeats} rounds; figures checked against the report API`,
        }),
      ];
    },
    async (db, merchant) => {
      const started = Date.now();
      const tag = `D${randomBytes(2).toString('hex')}`;
      const ids = await seedCampaign(db, merchant.campaignId, { affiliates: size.affiliates, conversions: 0, tag });
      await seedConversions(db, merchant.campaignId, ids, size.conversions);
      email = await addViewer(db, merchant.campaignId);
      await db.raw(engine === 'mysql' ? 'ANALYZE TABLE affiliates, conversions, affiliate_daily_stats' : 'ANALYZE');
      console.log(`  (${engine}: dashboard campaign seeded in ${((Date.now() - started) / 1000).toFixed(0)} s)`);
    },
    `dashboard-${engine}`,
  );
}

export const parts: Part[] = [part('merchantDashboard', 'overview', benchOverview)];

await runIfMain(import.meta.url, parts);
