/**
 * Intake figures: one page view per POST /v1/events under load, against bare Koa; conversions
 * in batches of 500, against the same rows inserted straight through Knex.
 *
 * Run alone (after `npm run build`): `node --import tsx bench/intake.ts [sqlite|mysql] [single|batches]`.
 */
import { withBareKoa } from './lib/bareKoa.js';
import { runIfMain } from './lib/direct.js';
import { activeCodes, pageViewRequest, sendConversionBatches } from './lib/events.js';
import { type Engine, type Figure, makeFigure } from './lib/figure.js';
import { loadOk } from './lib/load.js';
import type { BenchOptions } from './lib/options.js';
import { rawInsertBatch } from './lib/rawInsert.js';
import { seedRules } from './lib/rules.js';
import { seedAffiliates, withStage } from './lib/stage.js';
import { conversionEvent } from './lib/events.js';
import { createMerchant } from '../test/helpers/daemon.js';
import { seedCampaign } from './seed.js';
import { medianOfRounds, timeMs } from './lib/stats.js';

/** Targets (docs/benchmarks.md); MariaDB pays a network round trip per commit, hence its lower bar. */
const SINGLE_TARGET = { sqlite: 0.25, mysql: 0.15 } as const;
const P99_TARGET_MS = 50;
const BATCH_TARGET = 0.5;
/** The commission rules may cost at most a tenth of the batch rate: no per-event query. */
const RULES_TARGET = 0.9;

/** One page view per request at `connections` connections: req/s and p99, beside bare Koa. */
export function benchSingleEvents(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withBareKoa((koa) =>
    withStage(
      engine,
      opts,
      async ({ db, merchant, daemon }) => {
        const request = await pageViewRequest(db, merchant);
        const run = (url: string, durationSec: number) =>
          loadOk({ url, ...request, connections: opts.connections, durationSec });
        await run(`${koa.url}/v1/events`, opts.warmupSec);
        await run(`${daemon.url}/v1/events`, opts.warmupSec);
        const m = await medianOfRounds(opts.repeats, async () => {
          const bare = await run(`${koa.url}/v1/events`, opts.durationSec);
          const real = await run(`${daemon.url}/v1/events`, opts.durationSec);
          return { bare: bare.reqPerSec, bareP99: bare.p99Ms, real: real.reqPerSec, realP99: real.p99Ms };
        });
        const note = `${opts.connections} connections`;
        return [
          makeFigure({
            name: 'one page view per POST /v1/events',
            engine,
            value: m.real,
            unit: 'req/s',
            baseline: m.bare,
            baselineName: 'bare Koa',
            target: { on: 'ratio', op: '>=', limit: SINGLE_TARGET[engine] },
            note,
          }),
          makeFigure({
            name: 'one page view per POST /v1/events, p99',
            engine,
            value: m.realP99,
            unit: 'ms',
            baseline: m.bareP99,
            baselineName: 'bare Koa',
            target: { on: 'value', op: '<=', limit: P99_TARGET_MS },
            note,
          }),
        ];
      },
      seedAffiliates(10),
      `single-${engine}`,
    ),
  );
}

/** Conversions in batches of 500, one request at a time: events/s beside the raw Knex insert. */
export async function benchBatches(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withStage(
    engine,
    opts,
    async ({ db, merchant, daemon }) => {
      const codes = await activeCodes(db, merchant.campaignId);
      const affiliateIds = (
        await db('affiliates').where({ campaign_id: merchant.campaignId, status: 'active' }).orderBy('id').pluck('id')
      ).map(Number);
      const events = opts.batches * opts.batchSize;
      const raw = async (tag: string) => {
        const ms = await timeMs(async () => {
          for (let b = 0; b < opts.batches; b++) {
            const orderIds = Array.from({ length: opts.batchSize }, (_, i) => `${tag}-${b * opts.batchSize + i}`);
            await rawInsertBatch(db, {
              campaignId: merchant.campaignId,
              affiliateIds,
              orderIds,
              intakeId: `${tag}-${b}`,
            });
          }
        });
        return events / (ms / 1000);
      };
      const intake = (tag: string) =>
        sendConversionBatches(daemon.url, merchant.key, merchant.publicId, codes, {
          batches: opts.batches,
          size: opts.batchSize,
          tag,
        });
      // Warm-up: a few batches of each, so neither pays for a cold start.
      await sendConversionBatches(daemon.url, merchant.key, merchant.publicId, codes, {
        batches: 3,
        size: opts.batchSize,
        tag: 'warm',
      });
      await rawInsertBatch(db, {
        campaignId: merchant.campaignId,
        affiliateIds,
        orderIds: Array.from({ length: opts.batchSize }, (_, i) => `rawwarm-${i}`),
        intakeId: 'rawwarm',
      });
      const m = await medianOfRounds(opts.repeats, async (round) => ({
        real: await intake(`r${round}`),
        raw: await raw(`raw${round}`),
      }));
      return [
        makeFigure({
          name: `conversions in batches of ${opts.batchSize}`,
          engine,
          value: m.real,
          unit: 'events/s',
          baseline: m.raw,
          baselineUnit: 'events/s',
          baselineName: 'the same rows straight through Knex',
          target: { on: 'ratio', op: '>=', limit: BATCH_TARGET },
          note: `${events.toLocaleString('en')} a round, one request at a time`,
        }),
      ];
    },
    seedAffiliates(100),
    `batches-${engine}`,
  );
}

/**
 * Conversions in batches of 500 through groups, overrides and product rules, beside the same
 * batches to a campaign with its rule alone, on one daemon and database, rounds interleaved
 * (docs/commissions.md: the rules of a flush are read once inside its transaction).
 */
export async function benchRules(engine: Engine, opts: BenchOptions): Promise<Figure[]> {
  return withStage(
    engine,
    opts,
    async ({ db, merchant: plain, daemon }) => {
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
      const m = await medianOfRounds(opts.repeats, async (round) => {
        // Alternate which side goes first, so neither always meets the fuller database.
        const first = round % 2 === 0;
        const a = first ? await send(plain, plainCodes, `p${round}`) : 0;
        const rules = await send(ruled, ruledCodes, `r${round}`);
        const b = first ? a : await send(plain, plainCodes, `p${round}`);
        return { rules, plain: b };
      });
      return [
        makeFigure({
          name: `conversions in batches of ${opts.batchSize} through groups, overrides and product rules`,
          engine,
          value: m.rules,
          unit: 'events/s',
          baseline: m.plain,
          baselineName: 'the same batches under the campaign rule alone',
          target: { on: 'ratio', op: '>=', limit: RULES_TARGET },
          note: `${(opts.batches * opts.batchSize).toLocaleString('en')} a round, 5 groups, 10 product rules a level`,
        }),
      ];
    },
    seedAffiliates(100),
    `rules-${engine}`,
  );
}

await runIfMain(import.meta.url, { single: benchSingleEvents, batches: benchBatches, rules: benchRules });
