/**
 * The affiliate portal's dashboard for an affiliate with BENCH_PORTAL_CONVERSIONS conversions
 * (100,000 by default) spread over a year, p95 under a light load, beside the p95 of
 * GET /v1/affiliates/{id} of the same affiliate (whose totals read the same conversions),
 * measured the same way in the same stage.
 *
 * Run alone (after `npm run build`): `node --import tsx bench/portal.ts [sqlite|mysql]`.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../server/db/knex.js';
import { hashSecret } from '../server/services/secretHash.js';
import type { Merchant } from '../test/helpers/daemon.js';
import { addAffiliate } from '../test/helpers/events.js';
import { runIfMain } from './lib/direct.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import { sampledLoad, sampledP95 } from './lib/load.js';
import type { BenchOptions } from './lib/options.js';
import { part, type Part } from './lib/part.js';
import { withStage } from './lib/stage.js';
import { medianOfRounds } from './lib/stats.js';

/** A few browsers at once: an affiliate portal is read by people, not by a load generator. */
const CONNECTIONS = 4;
const DAY_MS = 24 * 60 * 60 * 1000;
/** The dashboard reads a few things more than a get by id does (both sum all the conversions), and must stay near it. */
const TARGET_RATIO = 2;

const conversionsWanted = (opts: BenchOptions) =>
  Number(process.env.BENCH_PORTAL_CONVERSIONS ?? (opts.quick ? 20_000 : 100_000));

interface Seeded {
  affiliateId: number;
  cookie: string;
}

/** One affiliate, its conversions over the last year (a tenth in the last 30 days), a year of daily counters, a session. */
async function seedDashboard(db: Db, merchant: Merchant, conversions: number): Promise<Seeded> {
  await db('campaigns')
    .where('id', merchant.campaignId)
    .update({ portal_enabled: true, site_url: 'https://shop.example/' });
  const { id } = await addAffiliate(db, merchant.campaignId, { code: `PORTAL${randomBytes(3).toString('hex')}` });
  const now = Date.now();
  const statuses = ['pending', 'approved', 'rejected', 'paid'] as const;
  const rows = Array.from({ length: conversions }, (_, i) => {
    const at = new Date(now - (i % 10 === 0 ? (i % 29) * DAY_MS : (30 + (i % 335)) * DAY_MS) - i);
    return {
      campaign_id: merchant.campaignId,
      affiliate_id: id,
      order_id: `P-${i}`,
      order_value_cents: 10_000 + (i % 5_000),
      commission_cents: 1_000 + (i % 500),
      status: statuses[i % 4] ?? 'pending',
      payout_id: null,
      properties: null,
      occurred_at: at,
      created_at: at,
      updated_at: at,
    };
  });
  for (let start = 0; start < rows.length; start += 500) await db('conversions').insert(rows.slice(start, start + 500));
  const days = Array.from({ length: 365 }, (_, d) => ({
    campaign_id: merchant.campaignId,
    day: new Date(now - d * DAY_MS).toISOString().slice(0, 10),
    affiliate_id: id,
    page_views: 40,
    leads: 4,
    conversions: 0,
    revenue_cents: 0,
    commission_cents: 0,
  }));
  for (let start = 0; start < days.length; start += 200)
    await db('affiliate_daily_stats').insert(days.slice(start, start + 200));
  const secret = randomBytes(32).toString('base64url');
  await db('portal_sessions').insert({
    token_hash: hashSecret(secret),
    campaign_id: merchant.campaignId,
    affiliate_id: id,
    created_at: new Date(now),
    last_seen_at: new Date(now),
    expires_at: new Date(now + 7 * DAY_MS),
  });
  return { affiliateId: id, cookie: `affiliated_session=${secret}` };
}

export function benchDashboard(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  const conversions = conversionsWanted(opts);
  let seeded: Seeded | undefined;
  return withStage(
    engine,
    opts,
    async ({ daemon, merchant }) => {
      if (!seeded) throw new Error('the stage was not seeded');
      const dashboard = {
        url: daemon.url,
        paths: [`/portal/${merchant.publicId}/dashboard`],
        headers: { cookie: seeded.cookie, 'accept-language': 'pt-BR' },
        connections: CONNECTIONS,
      };
      const getById = {
        url: daemon.url,
        paths: [`/v1/affiliates/${seeded.affiliateId}`],
        headers: { 'x-api-key': merchant.key },
        connections: CONNECTIONS,
      };
      const p95 = (
        load: { url: string; paths: string[]; headers: Record<string, string>; connections: number },
        what: string,
      ) => sampledP95({ ...load, durationSec: opts.durationSec }, what);
      await sampledLoad({ ...dashboard, durationSec: Math.max(1, opts.warmupSec) });
      await sampledLoad({ ...getById, durationSec: Math.max(1, opts.warmupSec) });
      const m = await medianOfRounds(opts.repeats, async () => ({
        dashboard: await p95(dashboard, 'the dashboard'),
        getById: await p95(getById, 'get by id'),
      }));
      return [
        makeFigure({
          name: `GET /portal/{campaign}/dashboard, ${conversions.toLocaleString('en')} conversions, p95`,
          engine,
          value: m.dashboard,
          unit: 'ms',
          baseline: m.getById,
          baselineName: 'GET /v1/affiliates/{id} of the same affiliate, p95',
          target: { on: 'ratio', op: '<=', limit: TARGET_RATIO },
          note: `${CONNECTIONS} connections, ${opts.durationSec} s a side, median of ${opts.repeats} rounds`,
        }),
      ];
    },
    async (db, merchant) => {
      seeded = await seedDashboard(db, merchant, conversions);
    },
  );
}

export const parts: Part[] = [part('portal', 'dashboard', benchDashboard)];

await runIfMain(import.meta.url, parts);
