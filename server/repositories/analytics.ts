import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { inChunks, insertRows } from '../db/bulk.js';
import type { Db, Trx } from '../db/knex.js';
import type { AnalyticsHourlyRow } from '../db/analyticsRows.js';
import { COUNTER_SHARD } from './counterShard.js';

/** What the rollup counts, as its columns. */
export const ROLLUP_COUNTERS = [
  'clicks',
  'bot_clicks',
  'page_views',
  'leads',
  'conversions',
  'revenue_cents',
  'commission_cents',
] as const;
export type RollupCounter = (typeof ROLLUP_COUNTERS)[number];

/** The dimensions a series may be grouped by besides the affiliate. */
export const ROLLUP_DIMENSIONS = ['device', 'country', 'referrer', 'utm_source'] as const;
export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];

/** One thing that happened, as the rollup counts it. */
export interface RollupFact {
  campaignId: number;
  affiliateId: number;
  at: Date;
  dimensions: Readonly<Record<RollupDimension, string>>;
  counts: Readonly<Partial<Record<RollupCounter, number>>>;
}

/** Every counter at zero. */
export const zeroCounts = (): Record<RollupCounter, number> => ({
  clicks: 0,
  bot_clicks: 0,
  page_views: 0,
  leads: 0,
  conversions: 0,
  revenue_cents: 0,
  commission_cents: 0,
});

const HOUR_MS = 3_600_000;
export const hourOf = (at: Date) => Math.floor(at.getTime() / HOUR_MS);

const digest = (dimensions: Readonly<Record<RollupDimension, string>>) =>
  createHash('sha256')
    .update(ROLLUP_DIMENSIONS.map((name) => dimensions[name]).join('\n'))
    .digest('base64url')
    .slice(0, 16);

/** Facts summed per rollup row of this daemon's shard, in key order (concurrent flushes lock rows in one order). */
function rollupRows(facts: readonly RollupFact[]): AnalyticsHourlyRow[] {
  const rows = new Map<string, AnalyticsHourlyRow>();
  for (const fact of facts) {
    const hour = hourOf(fact.at);
    const dims = digest(fact.dimensions);
    const key = `${String(fact.campaignId).padStart(10, '0')}\n${String(hour).padStart(10, '0')}\n${String(fact.affiliateId).padStart(10, '0')}\n${dims}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        campaign_id: fact.campaignId,
        hour,
        affiliate_id: fact.affiliateId,
        dims,
        shard: COUNTER_SHARD,
        ...fact.dimensions,
        ...zeroCounts(),
      };
      rows.set(key, row);
    }
    for (const counter of ROLLUP_COUNTERS) row[counter] += fact.counts[counter] ?? 0;
  }
  return [...rows.keys()]
    .sort()
    .map((key) => rows.get(key))
    .filter((row): row is AnalyticsHourlyRow => row !== undefined);
}

/** Adds facts stored in this transaction to the rollup: multi-row upserts that increment. */
export async function addToRollup(trx: Trx, facts: readonly RollupFact[]): Promise<void> {
  const rows = rollupRows(facts);
  if (rows.length === 0) return;
  await insertRows(
    trx,
    'analytics_hourly',
    ['campaign_id', 'hour', 'affiliate_id', 'dims', 'shard', ...ROLLUP_DIMENSIONS, ...ROLLUP_COUNTERS],
    rows,
    { key: ['campaign_id', 'hour', 'affiliate_id', 'dims', 'shard'], increment: ROLLUP_COUNTERS },
  );
}

/** A series query: a campaign, UTC hours cut into buckets by their first hours, an optional grouping. */
export interface RollupQuery {
  campaignId: number;
  /** First hour of each bucket, ascending; the last bucket ends at `endHour` (excluded). */
  bucketStarts: readonly number[];
  endHour: number;
  groupBy: 'affiliate' | RollupDimension | undefined;
  /** Only this affiliate's rows (the portal). */
  affiliateId?: number;
}

export interface RollupSums {
  bucket: number;
  /** The group's value (an affiliate id as text); '' without grouping. */
  group: string;
  sums: Record<RollupCounter, number>;
}

/** The bucket of an hour, in SQL: a CASE over the buckets' first hours (integers the service computed). */
function bucketOf(db: Db, starts: readonly number[]): Knex.Raw {
  if (starts.length <= 1) return db.raw('0');
  // Hours: every hour is its own bucket, counted from the first.
  if (starts.every((start, i) => start === (starts[0] ?? 0) + i)) return db.raw('hour - ?', [starts[0] ?? 0]);
  const whens = starts.slice(1).map((_, i) => `WHEN hour < ? THEN ${i}`);
  return db.raw(`CASE ${whens.join(' ')} ELSE ${starts.length - 1} END`, starts.slice(1));
}

/**
 * Sums per bucket (and group) over one range scan of the primary key (campaign_id, hour, …).
 */
export async function rollupSums(db: Db, query: RollupQuery): Promise<RollupSums[]> {
  const first = query.bucketStarts[0];
  if (first === undefined) return [];
  const bucket = bucketOf(db, query.bucketStarts);
  // A column of a fixed list, never input.
  const group = query.groupBy === undefined ? "''" : query.groupBy === 'affiliate' ? 'affiliate_id' : query.groupBy;
  let builder = db('analytics_hourly')
    .where('campaign_id', query.campaignId)
    .andWhere('hour', '>=', first)
    .andWhere('hour', '<', query.endHour);
  if (query.affiliateId !== undefined) builder = builder.andWhere('affiliate_id', query.affiliateId);
  const sums = ROLLUP_COUNTERS.map((counter) => db.raw(`SUM(${counter}) AS ${counter}`));
  const rows = await builder
    .select(db.raw(`${bucket.toQuery()} AS bucket`), db.raw(`${group} AS grp`), ...sums)
    .groupBy('bucket', 'grp');
  return (rows as Record<string, unknown>[]).map((row) => ({
    bucket: Number(row.bucket),
    group: String(row.grp ?? ''),
    sums: Object.fromEntries(ROLLUP_COUNTERS.map((counter) => [counter, Number(row[counter] ?? 0)])) as Record<
      RollupCounter,
      number
    >,
  }));
}

/** Referral codes of these affiliates, by id. */
export async function referralIdsOf(db: Db, ids: readonly number[]): Promise<Map<number, string>> {
  const rows = await inChunks(ids, (part) =>
    db('affiliates').whereIn('id', part).select<{ id: number; referral_id: string }[]>('id', 'referral_id'),
  );
  return new Map(rows.map((row) => [Number(row.id), row.referral_id]));
}
