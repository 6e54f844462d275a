/**
 * The referral link's figure: `GET /r/{campaignPublicId}/{code}` (a click recorded, a 302 to the
 * campaign's site) under load against bare Koa answering every GET with a 302, both driven by
 * wrk in the same run (docs/analytics.md, "Referral links").
 *
 * Run alone (after `npm run build`): `node --import tsx bench/clicks.ts [sqlite|mysql] [redirect]`.
 */
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
      return [
        makeFigure({
          name: 'GET /r/{campaignPublicId}/{code} (click recorded, 302)',
          engine,
          value: c.real.reqPerSec,
          unit: 'req/s',
          baseline: c.baseline.reqPerSec,
          baselineName: 'bare Koa answering a 302',
          target: { on: 'ratio', op: '>=', limit: REDIRECT_TARGET },
          note: `${opts.connections} connections, wrk, 200 codes in turn; ${stored} clicks stored`,
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
