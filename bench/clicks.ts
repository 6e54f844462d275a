/**
 * The referral link's figure: `GET /r/{campaignPublicId}/{code}` (a click recorded, a 302 to the
 * campaign's site) under load against bare Koa answering every GET with a 302, both driven by
 * wrk in the same run (docs/analytics.md, "Referral links").
 *
 * Run alone (after `npm run build`): `node --import tsx bench/clicks.ts [sqlite|mysql] [redirect]`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../server/db/knex.js';
import { DAY_ROWS } from '../server/repositories/analytics.js';
import { withBareKoa } from './lib/bareKoa.js';
import { compareUnderLoad, comparisonBound } from './lib/compare.js';
import { runIfMain } from './lib/direct.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { part, type Part } from './lib/part.js';
import { seedAffiliates, withStage } from './lib/stage.js';

const REDIRECT_TARGET = 0.35;
const SITE = 'https://shop.example/landing?lang=pt';
/** A person's browser: a user agent isbot passes, so every click is parsed and stored as a person's. */
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

/** Clicks stored that the rollup's fold has not counted yet. */
async function pendingClicks(db: Db): Promise<number> {
  const row = await db('clicks').where('rollup_pending', true).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** Clicks (people's and bots') the campaign's hour rows of the rollup count. */
async function clicksCounted(db: Db, campaignId: number): Promise<number> {
  const row = await db('analytics_hourly')
    .where('campaign_id', campaignId)
    .andWhere('hour', '<', DAY_ROWS)
    .first<{ n: number | string | null } | undefined>(db.raw('SUM(clicks + bot_clicks) AS n'));
  return Number(row?.n ?? 0);
}

/** 200 affiliates' links in turn, each request a click row written (the daemon's group commit). */
export function benchRedirect(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withStage(
    engine,
    opts,
    async ({ db, merchant, daemon, databaseServer }) => {
      await db('campaigns').where({ id: merchant.campaignId }).update({ site_url: SITE });
      const codes = await db('affiliates')
        .where({ campaign_id: merchant.campaignId, status: 'active' })
        .orderBy('id')
        .limit(200)
        .pluck('referral_id');
      const paths = codes.map((code: string) => `/r/${merchant.publicId}/${encodeURIComponent(code)}?utm_source=bench`);
      const headers = { 'user-agent': BROWSER };
      const before = await db('clicks').count({ n: '*' }).first();
      const countedBefore = await clicksCounted(db, merchant.campaignId);
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
        { redirectTo: SITE, profile: `bareKoa-redirect-${engine}` },
      );
      const after = await db('clicks').count({ n: '*' }).first();
      const stored = Number(after?.n ?? 0) - Number(before?.n ?? 0);
      if (stored === 0) throw new Error('the referral links recorded no click: the figure would measure nothing');
      // The fold's work is the daemon's too: what it had not done when the load stopped is said,
      // then waited for, and the rollup must count every click stored, once.
      const pendingAtEnd = await pendingClicks(db);
      const deadline = Date.now() + 60_000;
      while ((await pendingClicks(db)) > 0 && Date.now() < deadline) await sleep(100);
      const counted = (await clicksCounted(db, merchant.campaignId)) - countedBefore;
      if (counted !== stored) throw new Error(`the rollup counts ${counted} of the ${stored} clicks stored`);
      return [
        makeFigure({
          name: 'GET /r/{campaignPublicId}/{code} (click recorded, 302)',
          engine,
          value: c.real.reqPerSec,
          unit: 'req/s',
          baseline: c.baseline.reqPerSec,
          baselineName: 'bare Koa answering a 302',
          target: { on: 'ratio', op: '>=', limit: REDIRECT_TARGET },
          note: `${opts.connections} connections, wrk, 200 codes in turn; ${stored} clicks stored, ${pendingAtEnd} of them not yet folded into the rollup when the load stopped`,
          ...comparisonBound(c),
        }),
      ];
    },
    seedAffiliates(200),
    `redirect-${engine}`,
  );
}

export const parts: Part[] = [part('clicks', 'redirect', benchRedirect)];

await runIfMain(import.meta.url, parts);
