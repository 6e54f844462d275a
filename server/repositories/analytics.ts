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
const HOURS_A_DAY = 24;
/**
 * A UTC day's row sits in the same table at `DAY_ROWS + day` (docs/analytics.md, "The rollups"):
 * far beyond any hour (year 9999 is hour 70 million), so an hour range never meets one, and one
 * upsert keeps both, in one key order.
 */
export const DAY_ROWS = 1_000_000_000;
export const hourOf = (at: Date) => Math.floor(at.getTime() / HOUR_MS);

/** Digests remembered: a campaign's clicks repeat a few devices, referrers and sources. */
const DIGESTS_KEPT = 10_000;
const digests = new Map<string, string>();

function digest(dimensions: Readonly<Record<RollupDimension, string>>): string {
  const text = ROLLUP_DIMENSIONS.map((name) => dimensions[name]).join('\n');
  let found = digests.get(text);
  if (found === undefined) {
    found = createHash('sha256').update(text).digest('base64url').slice(0, 16);
    if (digests.size >= DIGESTS_KEPT) digests.clear();
    digests.set(text, found);
  }
  return found;
}

/**
 * Facts summed per rollup row of this daemon's shard, each in its hour's row and its UTC day's,
 * in key order (concurrent flushes lock rows in one order).
 */
function rollupRows(facts: readonly RollupFact[]): AnalyticsHourlyRow[] {
  const rows = new Map<string, AnalyticsHourlyRow>();
  for (const fact of facts) {
    const dims = digest(fact.dimensions);
    const at = hourOf(fact.at);
    for (const hour of [at, DAY_ROWS + Math.floor(at / HOURS_A_DAY)]) addFact(rows, fact, hour, dims);
  }
  return [...rows.keys()]
    .sort()
    .map((key) => rows.get(key))
    .filter((row): row is AnalyticsHourlyRow => row !== undefined);
}

function addFact(rows: Map<string, AnalyticsHourlyRow>, fact: RollupFact, hour: number, dims: string): void {
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

/** Adds facts stored in this transaction to the rollup, by hour and by day: one multi-row upsert that increments. */
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

/** Which rows a query reads: hours, or UTC days (at DAY_ROWS + day). */
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
  /** The counters summed, each once. */
  counters: readonly RollupCounter[];
}

export interface RollupSums {
  /** The run's index in `runStarts`. */
  run: number;
  /** The group's value (an affiliate id as text); '' without grouping. */
  group: string;
  /** The sums of `counters`, in their order. */
  sums: number[];
}

/**
 * The run of a unit, in SQL: the unit itself counted from the first where every run is one unit
 * long, else a CASE over the runs' first units (integers the service computed).
 */
function runOf(db: Db, starts: readonly number[], end: number): { run: Knex.Raw; by: string } {
  const column = 'hour';
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
  // A day's row is at DAY_ROWS + day.
  const shift = query.grain === 'day' ? DAY_ROWS : 0;
  const { run, by } = runOf(
    db,
    query.runStarts.map((start) => start + shift),
    query.end + shift,
  );
  const group = query.groupBy === undefined ? "''" : query.groupBy === 'affiliate' ? 'affiliate_id' : query.groupBy;
  let builder = db('analytics_hourly').where('campaign_id', query.campaignId);
  builder = query.only
    ? builder.whereIn(
        'hour',
        query.only.map((unit) => unit + shift),
      )
    : builder.andWhere('hour', '>=', first + shift).andWhere('hour', '<', query.end + shift);
  if (query.affiliateId !== undefined) builder = builder.andWhere('affiliate_id', query.affiliateId);
  const sums = query.counters.map((counter) => db.raw(`SUM(${counter}) AS ${counter}`));
  const rows = await builder
    .select(db.raw(`${run.toQuery()} AS run`), db.raw(`${group} AS grp`), ...sums)
    .groupBy(by, 'grp');
  // A month by day by affiliate is thousands of rows: one small array each, no object per row.
  return (rows as Record<string, unknown>[]).map((row) => ({
    run: Number(row.run),
    group: String(row.grp ?? ''),
    sums: query.counters.map((counter) => Number(row[counter] ?? 0)),
  }));
}

/** Referral codes of these affiliates, by id. */
export async function referralIdsOf(db: Db, ids: readonly number[]): Promise<Map<number, string>> {
  const rows = await inChunks(ids, (part) =>
    db('affiliates').whereIn('id', part).select<{ id: number; referral_id: string }[]>('id', 'referral_id'),
  );
  return new Map(rows.map((row) => [Number(row.id), row.referral_id]));
}
