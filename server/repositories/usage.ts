import type { Db, Trx } from '../db/knex.js';
import { COUNTER_SHARD, LIMIT_SHARD } from './counterShard.js';

/**
 * The plan limits' counters: the campaign's live affiliates (spec §11, spec §4.1.5) and each
 * month's conversions (spec §10.8). Each is a sum of shard rows (counterShard.ts): a plan's limit
 * is taken by one conditional update of the row every daemon shares, so it holds across requests
 * and daemons; without a limit, a daemon adds to its own row, so daemons on different Galera nodes
 * never write the same one (docs/scaling.md, "Hot rows").
 */

/** spec §10.8: months are calendar months in UTC. */
export function monthKey(at: Date): string {
  return at.toISOString().slice(0, 7);
}

const NO_LIMIT = 4294967295;

export async function readMonthlyUsage(db: Db | Trx, campaignId: number, at: Date) {
  const month = monthKey(at);
  const row = await db('monthly_usage')
    .where({ campaign_id: campaignId, month })
    .sum<{ n: number | string | null }[]>({ n: 'conversions' });
  return { month, conversions: Number(row[0]?.n ?? 0) };
}

/**
 * Creates the month's counter rows when missing: the limit's and this daemon's. Call it outside
 * the intake transaction: on InnoDB an INSERT IGNORE that meets an existing row takes a shared
 * lock, and concurrent transactions that hold it and then UPDATE the row deadlock one another.
 */
export async function ensureMonthlyUsage(db: Db | Trx, campaignId: number, at: Date): Promise<void> {
  const month = monthKey(at);
  await db('monthly_usage')
    .insert([LIMIT_SHARD, COUNTER_SHARD].map((shard) => ({ campaign_id: campaignId, month, shard, conversions: 0 })))
    .onConflict(['campaign_id', 'month', 'shard'])
    .ignore();
}

/**
 * Adds `count` conversions to the month (null `max` = unlimited). Under a limit, one conditional
 * UPDATE of the limit's row, checked against the sum of every row: the row lock it takes
 * serialises concurrent intakes, so the limit holds across requests and daemons (spec §10.8).
 * When refused, `current` is read under that row's lock, so it is the latest count.
 */
export async function reserveConversions(
  trx: Trx,
  campaignId: number,
  at: Date,
  count: number,
  max: number | null,
): Promise<{ ok: boolean; current: number }> {
  const month = monthKey(at);
  const shard = max === null ? COUNTER_SHARD : LIMIT_SHARD;
  for (let attempt = 0; attempt < 2; attempt++) {
    const query = trx('monthly_usage').where({ campaign_id: campaignId, month, shard });
    if (max !== null) {
      // The other rows through a derived table: MySQL refuses an UPDATE whose subquery reads its own table.
      query.andWhereRaw(
        `conversions + (SELECT n FROM (SELECT COALESCE(SUM(conversions), 0) AS n FROM monthly_usage
           WHERE campaign_id = ? AND month = ? AND shard <> ?) AS others) <= ?`,
        [campaignId, month, LIMIT_SHARD, max - count],
      );
    }
    if ((await query.increment('conversions', count)) > 0) return { ok: true, current: 0 };
    const locked = await trx('monthly_usage')
      .where({ campaign_id: campaignId, month, shard })
      .forUpdate()
      .first('shard');
    if (locked) return { ok: false, current: (await readMonthlyUsage(trx, campaignId, at)).conversions };
    // No row yet (ensureMonthlyUsage not called): create it and try once more.
    await ensureMonthlyUsage(trx, campaignId, at);
  }
  return { ok: false, current: 0 };
}

/** The campaign's live affiliates beyond campaigns.affiliate_count: every daemon's shard (one binding, the campaign id). */
const SHARDED_AFFILIATES =
  'COALESCE((SELECT SUM(s.affiliates) FROM affiliate_count_shards s WHERE s.campaign_id = ?), 0)';

/** The campaign's live affiliates: the limit's counter plus every daemon's shard. */
const liveAffiliates = (db: Db | Trx, campaignId: number) =>
  db.raw(`campaigns.affiliate_count + ${SHARDED_AFFILIATES} AS n`, [campaignId]);

/** Adds `delta` to this daemon's shard of the campaign's live affiliates. */
async function addToAffiliateShard(trx: Trx, campaignId: number, delta: number): Promise<void> {
  await trx('affiliate_count_shards')
    .insert({ campaign_id: campaignId, shard: COUNTER_SHARD, affiliates: delta })
    .onConflict(['campaign_id', 'shard'])
    .merge({ affiliates: trx.raw('affiliate_count_shards.affiliates + ?', [delta]) });
}

/**
 * Takes one slot of the plan's affiliate limit (spec §4.1.5). Under a limit, a single conditional
 * UPDATE of the campaign row against the live count: concurrent creates queue on that row and can
 * never overshoot. Without one, a create only adds to this daemon's shard. A create that read
 * "no limit" just before the plan gained one counts as made before the change.
 */
export async function reserveAffiliateSlot(trx: Trx, campaignId: number): Promise<boolean> {
  const plan = await trx('campaigns')
    .join('plans', 'plans.id', 'campaigns.plan_id')
    .where('campaigns.id', campaignId)
    .first<{ max_affiliates: number | null } | undefined>('plans.max_affiliates');
  if (plan && plan.max_affiliates === null) {
    await addToAffiliateShard(trx, campaignId, 1);
    return true;
  }
  const changed = await trx('campaigns')
    .where('id', campaignId)
    .andWhereRaw(
      `affiliate_count + ${SHARDED_AFFILIATES}
         < COALESCE((SELECT max_affiliates FROM plans WHERE plans.id = campaigns.plan_id), ${NO_LIMIT})`,
      [campaignId],
    )
    .increment('affiliate_count', 1);
  return changed > 0;
}

/** A deleted affiliate leaves the live count through this daemon's shard: no shared row is written. */
export async function releaseAffiliateSlot(trx: Trx, campaignId: number): Promise<void> {
  await addToAffiliateShard(trx, campaignId, -1);
}

export async function countLiveAffiliates(db: Db | Trx, campaignId: number): Promise<number> {
  const [row] = await db('campaigns')
    .where('campaigns.id', campaignId)
    .select<{ n: number | string }[]>(liveAffiliates(db, campaignId));
  return Number(row?.n ?? 0);
}

export async function affiliateUsage(
  db: Db | Trx,
  campaignId: number,
): Promise<{ count: number; max: number | null; plan: string }> {
  const row = await db('campaigns')
    .join('plans', 'plans.id', 'campaigns.plan_id')
    .where('campaigns.id', campaignId)
    .first<{ n: number | string; max_affiliates: number | null; name: string } | undefined>(
      liveAffiliates(db, campaignId),
      'plans.max_affiliates',
      'plans.name',
    );
  return {
    count: Number(row?.n ?? 0),
    max: row?.max_affiliates ?? null,
    plan: row?.name ?? '',
  };
}
