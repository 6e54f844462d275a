import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { inChunks, insertRows } from '../db/bulk.js';
import type { Db, Trx } from '../db/knex.js';
import type { AnalyticsDailyRow, AnalyticsHourlyRow } from '../db/analyticsRows.js';
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

const HOURS_A_DAY = 24;

/** The hourly rows summed per UTC day, in key order as well. */
function dailyRows(hourly: readonly AnalyticsHourlyRow[]): AnalyticsDailyRow[] {
  const rows = new Map<string, AnalyticsDailyRow>();
  for (const { hour, ...rest } of hourly) {
    const day = Math.floor(hour / HOURS_A_DAY);
    const key = `${String(rest.campaign_id).padStart(10, '0')}\n${String(day).padStart(10, '0')}\n${String(rest.affiliate_id).padStart(10, '0')}\n${rest.dims}`;
    const row = rows.get(key);
    if (!row) rows.set(key, { ...rest, day });
    else for (const counter of ROLLUP_COUNTERS) row[counter] += rest[counter];
  }
  return [...rows.keys()]
    .sort()
    .map((key) => rows.get(key))
    .filter((row): row is AnalyticsDailyRow => row !== undefined);
}

/** Adds facts stored in this transaction to both rollups: multi-row upserts that increment. */
export async function addToRollup(trx: Trx, facts: readonly RollupFact[]): Promise<void> {
  const rows = rollupRows(facts);
  if (rows.length === 0) return;
  const kept = ['campaign_id', 'affiliate_id', 'dims', 'shard', ...ROLLUP_DIMENSIONS, ...ROLLUP_COUNTERS] as const;
  const increment = { increment: ROLLUP_COUNTERS };
  await insertRows(trx, 'analytics_hourly', ['hour', ...kept], rows, {
    key: ['campaign_id', 'hour', 'affiliate_id', 'dims', 'shard'],
    ...increment,
  });
  await insertRows(trx, 'analytics_daily', ['day', ...kept], dailyRows(rows), {
    key: ['campaign_id', 'day', 'affiliate_id', 'dims', 'shard'],
    ...increment,
  });
}

/** Which rollup a query reads: `hour` (analytics_hourly) or `day` (analytics_daily, UTC days). */
export type RollupGrain = 'hour' | 'day';

/**
 * A read of one rollup: a campaign's units (hours or UTC days since 1970) cut into runs by their
 * first units, an optional grouping.
 */
export interface RollupQuery {
  campaignId: number;
  grain: RollupGrain;
  /** First unit of each run, ascending; the last run ends at `end` (excluded). */
  runStarts: readonly number[];
  end: number;
  /** Only these units of the range, ascending (an index seek each); all of it when absent. */
  only?: readonly number[];
  groupBy: 'affiliate' | RollupDimension | undefined;
  /** Only this affiliate's rows (the portal). */
  affiliateId?: number;
  /** The counters summed; the others read 0. */
  counters: readonly RollupCounter[];
}

export interface RollupSums {
  /** The run's index in `runStarts`. */
  run: number;
  /** The group's value (an affiliate id as text); '' without grouping. */
  group: string;
  sums: Record<RollupCounter, number>;
}

/**
 * The run of a unit, in SQL: the unit itself counted from the first where every run is one unit
 * long, else a CASE over the runs' first units (integers the service computed).
 */
function runOf(db: Db, column: RollupGrain, starts: readonly number[], end: number): { run: Knex.Raw; by: string } {
  if (starts.length <= 1) return { run: db.raw('0'), by: 'run' };
  const first = starts[0] ?? 0;
  if (end === first + starts.length && starts.every((start, i) => start === first + i)) {
    // Grouped by the column itself, the groups follow the key's order: no sort of the rows read.
    return { run: db.raw(`${column} - ?`, [first]), by: column };
  }
  const whens = starts.slice(1).map((_, i) => `WHEN ${column} < ? THEN ${i}`);
  return { run: db.raw(`CASE ${whens.join(' ')} ELSE ${starts.length - 1} END`, starts.slice(1)), by: 'run' };
}

/**
 * Sums per run (and group) over one range scan of the rollup's primary key (campaign_id, unit,
 * …), or one seek per unit of `only`.
 */
export async function rollupSums(db: Db, query: RollupQuery): Promise<RollupSums[]> {
  const first = query.runStarts[0];
  if (first === undefined || query.only?.length === 0) return [];
  // Columns and tables of fixed lists, never input.
  const column = query.grain;
  const { run, by } = runOf(db, column, query.runStarts, query.end);
  const group = query.groupBy === undefined ? "''" : query.groupBy === 'affiliate' ? 'affiliate_id' : query.groupBy;
  let builder = db(query.grain === 'hour' ? 'analytics_hourly' : 'analytics_daily').where(
    'campaign_id',
    query.campaignId,
  );
  builder = query.only
    ? builder.whereIn(column, [...query.only])
    : builder.andWhere(column, '>=', first).andWhere(column, '<', query.end);
  if (query.affiliateId !== undefined) builder = builder.andWhere('affiliate_id', query.affiliateId);
  const counters = ROLLUP_COUNTERS.filter((counter) => query.counters.includes(counter));
  const sums = counters.map((counter) => db.raw(`SUM(${counter}) AS ${counter}`));
  const rows = await builder
    .select(db.raw(`${run.toQuery()} AS run`), db.raw(`${group} AS grp`), ...sums)
    .groupBy(by, 'grp');
  // A month by day by affiliate is thousands of rows: plain loops, no intermediate arrays.
  return (rows as Record<string, unknown>[]).map((row) => {
    const sumsOf = zeroCounts();
    for (const counter of counters) sumsOf[counter] = Number(row[counter] ?? 0);
    return { run: Number(row.run), group: String(row.grp ?? ''), sums: sumsOf };
  });
}

/** Referral codes of these affiliates, by id. */
export async function referralIdsOf(db: Db, ids: readonly number[]): Promise<Map<number, string>> {
  const rows = await inChunks(ids, (part) =>
    db('affiliates').whereIn('id', part).select<{ id: number; referral_id: string }[]>('id', 'referral_id'),
  );
  return new Map(rows.map((row) => [Number(row.id), row.referral_id]));
}
