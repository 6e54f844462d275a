import { randomBytes } from 'node:crypto';
import type { Db } from '../../server/db/knex.js';
import { createMerchant, type Merchant } from '../../test/helpers/daemon.js';
import { seedCampaign } from '../seed.js';
import type { Engine } from './figure.js';
import type { BenchOptions } from './options.js';
import { type Stage, withStage } from './stage.js';

/** A stage with a large campaign (the stage's merchant) and a small one in the same database. */
export interface ScaleStage extends Stage {
  /** The large campaign's affiliate ids, in order, and the tag in their e-mails, codes and names. */
  ids: number[];
  tag: string;
  small: Merchant;
}

/**
 * BENCH_AFFILIATES affiliates and BENCH_CONVERSIONS conversions in the stage's campaign, 100 and
 * 1,000 in a second one, seeded once and shared by the search and list figures (seeding is the
 * slow part of both), then ANALYZEd so the planner knows the tables' sizes.
 */
export async function withCampaignsAtScale<T>(
  engine: Engine,
  opts: BenchOptions,
  work: (stage: ScaleStage) => Promise<T>,
  profile?: string,
): Promise<T> {
  const tag = `L${randomBytes(2).toString('hex')}`;
  let small: Merchant | undefined;
  let ids: number[] = [];
  const seed = async (db: Db, large: Merchant) => {
    const started = Date.now();
    small = await createMerchant(db, { plan: 'unlimited' });
    ids = await seedCampaign(db, large.campaignId, { affiliates: opts.affiliates, conversions: opts.conversions, tag });
    await seedCampaign(db, small.campaignId, { affiliates: 100, conversions: 1000, tag: `S${tag.slice(1)}` });
    await db.raw(engine === 'mysql' ? 'ANALYZE TABLE affiliates, conversions, payouts' : 'ANALYZE');
    console.log(
      `  (${engine}: ${opts.affiliates.toLocaleString('en')} affiliates seeded in ${((Date.now() - started) / 1000).toFixed(0)} s)`,
    );
  };
  return withStage(
    engine,
    opts,
    (stage) => {
      if (!small) throw new Error('the small campaign was not seeded');
      return work({ ...stage, ids, tag, small });
    },
    seed,
    profile,
  );
}
