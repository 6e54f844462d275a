/**
 * The commission rules' figure: conversions in batches of 500 through groups, overrides and
 * product rules, beside the same batches to a campaign under its own rule alone, on one daemon
 * and database, rounds interleaved (docs/commissions.md: a flush reads its campaigns' rules once,
 * inside its transaction, so the rules cost no query per event).
 *
 * Run alone (after `npm run build`): `node --import tsx bench/rules.ts [sqlite|mysql] [rules]`.
 */
import { createMerchant } from '../test/helpers/daemon.js';
import { boundOf } from './lib/bound.js';
import { type CpuShares, medianShares, whileWatching } from './lib/cpu.js';
import { runIfMain } from './lib/direct.js';
import { activeCodes, conversionEvent, sendConversionBatches } from './lib/events.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { part, type Part } from './lib/part.js';
import { seedRules } from './lib/rules.js';
import { seedAffiliates, withStage } from './lib/stage.js';
import { median } from './lib/stats.js';
import { seedCampaign } from './seed.js';

/** The rules may cost at most a tenth of the batch rate (docs/benchmarks.md). */
const RULES_TARGET = 0.9;

export async function benchRules(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withStage(
    engine,
    opts,
    async ({ db, merchant: plain, daemon, databaseServer }) => {
      const ruled = await createMerchant(db, { plan: 'unlimited' });
      await seedCampaign(db, ruled.campaignId, { affiliates: 100, conversions: 0, tag: 'R' });
      const { products } = await seedRules(db, ruled.campaignId, { groups: 5, productsPerLevel: 10 });
      const plainCodes = await activeCodes(db, plain.campaignId);
      const ruledCodes = await activeCodes(db, ruled.campaignId);
      // Both sides send the same products; only the ruled campaign has rules for them.
      const send = (merchant: typeof plain, codes: string[], tag: string) =>
        sendConversionBatches(daemon.url, merchant.key, merchant.publicId, codes, {
          batches: opts.batches,
          size: opts.batchSize,
          tag,
          event: (n) => {
            const event = conversionEvent(merchant.publicId, codes, tag, n);
            const product = products[n % products.length];
            return { ...event, properties: { ...event.properties, product } };
          },
        });
      // Warm-up of both sides.
      await send(plain, plainCodes, 'warm');
      await send(ruled, ruledCodes, 'warm');
      const pids = { daemon: daemon.pid, ...databaseServer };
      const rules: Array<{ rate: number; shares: CpuShares }> = [];
      const alone: Array<{ rate: number; shares: CpuShares }> = [];
      const plainRound = async (round: number) => {
        const r = await whileWatching(pids, () => send(plain, plainCodes, `p${round}`));
        alone.push({ rate: r.value, shares: r.shares });
      };
      for (let round = 0; round < opts.repeats; round++) {
        // Alternate which side goes first, so neither always meets the fuller database.
        if (round % 2 === 0) await plainRound(round);
        const r = await whileWatching(pids, () => send(ruled, ruledCodes, `r${round}`));
        rules.push({ rate: r.value, shares: r.shares });
        if (round % 2 === 1) await plainRound(round);
      }
      const rulesShares = medianShares(rules.map((r) => r.shares));
      const aloneShares = medianShares(alone.map((r) => r.shares));
      return [
        makeFigure({
          name: `conversions in batches of ${opts.batchSize} through groups, overrides and product rules`,
          engine,
          value: median(rules.map((r) => r.rate)),
          unit: 'events/s',
          baseline: median(alone.map((r) => r.rate)),
          baselineName: 'the same batches under the campaign rule alone',
          target: { on: 'ratio', op: '>=', limit: RULES_TARGET },
          note: `${(opts.batches * opts.batchSize).toLocaleString('en')} a round, 5 groups, 10 product rules a level`,
          bound: `${boundOf('daemon', rulesShares)}; baseline: ${boundOf('daemon', aloneShares)}`,
          cpu: { measured: rulesShares, baseline: aloneShares },
        }),
      ];
    },
    seedAffiliates(100),
    `rules-${engine}`,
  );
}

export const parts: Part[] = [part('rules', 'rules', benchRules)];

await runIfMain(import.meta.url, parts);
