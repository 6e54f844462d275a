/**
 * The figures that need a large campaign: `search` (bench/reads.ts) and the list (bench/list.ts)
 * at BENCH_AFFILIATES affiliates and BENCH_CONVERSIONS conversions, on one pair of campaigns
 * seeded once per engine, since seeding is the slow part of both.
 *
 * Run alone (after `npm run build`): `node --import tsx bench/atScale.ts [sqlite|mysql] [search|list]`.
 */
import { benchList } from './list.js';
import { runIfMain } from './lib/direct.js';
import type { Engine, Figure } from './lib/figure.js';
import { type BenchOptions, wants } from './lib/options.js';
import type { Part } from './lib/part.js';
import { withCampaignsAtScale } from './lib/scale.js';
import { benchSearch } from './reads.js';

function benchAtScale(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withCampaignsAtScale(
    engine,
    opts,
    async (stage) => [
      ...(wants(opts, 'reads', 'search') ? await benchSearch(stage, opts) : []),
      ...(wants(opts, 'list', 'list') ? await benchList(stage, opts) : []),
    ],
    `atScale-${engine}`,
  );
}

export const parts: Part[] = [{ names: ['search', 'list'], groups: ['reads', 'list'], run: benchAtScale }];

await runIfMain(import.meta.url, parts);
