import { fromCents } from '../../../shared/money.js';
import {
  ANALYTICS_METRICS,
  type Analytics,
  type AnalyticsMetric,
  type AnalyticsPoint,
  type AnalyticsQuery,
  type Funnel,
  type FunnelQuery,
} from '../../../shared/schemas/analytics.js';
import { NotFoundError } from '../../errors.js';
import type { ClickFold } from '../clicks/fold.js';
import { type RollupCounter, type RollupDimension, referralIdsOf, rollupSums } from '../../repositories/analytics.js';
import { findCampaign } from '../../repositories/campaigns.js';
import type { ServiceDeps } from '../deps.js';
import { type Buckets, bucketsOf } from './buckets.js';
import { readPlan } from './plan.js';
import { localIso } from './zone.js';

export interface AnalyticsService {
  /** `GET /v1/analytics`: a campaign's time series from the rollup; `affiliateId`: that affiliate's only (the portal). */
  series(campaignId: number, query: AnalyticsQuery, affiliateId?: number): Promise<Analytics>;
  /** `GET /v1/analytics/funnel`: click → lead → conversion over a range. */
  funnel(campaignId: number, query: FunnelQuery): Promise<Funnel>;
}

const HOUR_MS = 3_600_000;
/** Metrics that count clicks: a read of them folds the campaign's pending clicks first (clicks/fold.ts). */
const CLICK_METRICS: ReadonlySet<AnalyticsMetric> = new Set(['clicks', 'bot_clicks']);
const COLUMN: Record<AnalyticsMetric, RollupCounter> = {
  clicks: 'clicks',
  bot_clicks: 'bot_clicks',
  page_views: 'page_views',
  leads: 'leads',
  conversions: 'conversions',
  revenue: 'revenue_cents',
  commissions: 'commission_cents',
};
const MONEY = new Set<AnalyticsMetric>(['revenue', 'commissions']);

const ratio = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

/**
 * The metrics' values written into `values`, from `sums` at `at`. Money stays in integer
 * hundredths until the answer (exact sums on both engines).
 */
function valuesOf<T extends Partial<AnalyticsPoint>>(
  metrics: readonly AnalyticsMetric[],
  sums: ArrayLike<number>,
  at: number,
  values: T,
): T {
  for (let k = 0; k < metrics.length; k++) {
    const metric = metrics[k];
    if (metric === undefined) continue;
    const sum = sums[at + k] ?? 0;
    values[metric] = MONEY.has(metric) ? fromCents(sum) : sum;
  }
  return values;
}

/**
 * Sums per group and point, and in all, read as the plan says (exact integers: moves only add and
 * take). Each group's points are one flat array, `counters.length` numbers a point in the
 * counters' order: a month by day by affiliate is thousands of rows, each added in place.
 */
async function pointSums(
  db: ServiceDeps['db'],
  campaignId: number,
  buckets: Buckets,
  byHour: boolean,
  read: {
    groupBy: 'affiliate' | RollupDimension | undefined;
    counters: readonly RollupCounter[];
    affiliateId?: number;
  },
) {
  const width = read.counters.length;
  const groups = new Map<string, Float64Array>();
  const totals = new Float64Array(width);
  const addAt = (into: Float64Array, at: number, sums: readonly number[], sign: number) => {
    for (let k = 0; k < width; k++) into[at + k] = (into[at + k] ?? 0) + sign * (sums[k] ?? 0);
  };
  for (const part of readPlan(buckets.starts, buckets.endHour, byHour)) {
    const rows = await rollupSums(db, { campaignId, ...part, ...read });
    for (const row of rows) {
      let points = groups.get(row.group);
      if (!points) {
        points = new Float64Array(buckets.starts.length * width);
        groups.set(row.group, points);
      }
      const move = part.moves[row.run];
      const to = move?.to;
      const from = move?.from;
      if (to !== undefined) addAt(points, to * width, row.sums, 1);
      if (from !== undefined) addAt(points, from * width, row.sums, -1);
      if (to !== undefined && from === undefined) addAt(totals, 0, row.sums, 1);
      if (from !== undefined && to === undefined) addAt(totals, 0, row.sums, -1);
    }
  }
  return { groups, totals };
}

export function analyticsService({ db, now }: ServiceDeps, folds: Pick<ClickFold, 'campaign'>): AnalyticsService {
  async function currencyOf(campaignId: number): Promise<string> {
    const campaign = await findCampaign(db, campaignId);
    if (!campaign) throw new NotFoundError('Campaign not found');
    return campaign.campaign.currency;
  }

  return {
    async series(campaignId, query, affiliateId) {
      const interval = query.interval ?? 'day';
      const metrics = query.metrics
        ? ANALYTICS_METRICS.filter((metric) => query.metrics?.split(',').includes(metric))
        : [...ANALYTICS_METRICS];
      const buckets = bucketsOf(query, interval, now());
      const currency = await currencyOf(campaignId);
      if (metrics.some((metric) => CLICK_METRICS.has(metric))) await folds.campaign(campaignId);
      const { groups, totals } = await pointSums(db, campaignId, buckets, interval === 'hour', {
        groupBy: query.groupBy,
        counters: metrics.map((metric) => COLUMN[metric]),
        affiliateId,
      });
      const names =
        query.groupBy === 'affiliate'
          ? await referralIdsOf(db, [...groups.keys()].map(Number))
          : new Map<number, string>();
      const nameOf = (group: string) =>
        query.groupBy === undefined
          ? null
          : query.groupBy === 'affiliate'
            ? (names.get(Number(group)) ?? group)
            : group;
      // A group with nothing to show for the metrics asked (leads under a click's device) is left out.
      const shown = [...groups.entries()].filter(([, points]) => points.some((sum) => sum !== 0));
      // Each point's label once: reading the zone's clock is the costliest step of a long series.
      const labels = buckets.starts.map((start) => localIso(buckets.timezone, start * HOUR_MS));
      // Each point one object, its label first then the metrics (the answer's order).
      const pointsOf = (points: Float64Array) =>
        labels.map((start, i) => valuesOf(metrics, points, i * metrics.length, { start }));
      const series = shown
        .map(([group, points]) => ({ group: nameOf(group), points: pointsOf(points) }))
        .sort((a, b) => ((a.group ?? '') < (b.group ?? '') ? -1 : (a.group ?? '') > (b.group ?? '') ? 1 : 0));
      if (series.length === 0 && query.groupBy === undefined) {
        series.push({ group: null, points: pointsOf(new Float64Array(labels.length * metrics.length)) });
      }
      return {
        from: buckets.from,
        to: buckets.to,
        timezone: buckets.timezone,
        interval,
        currency,
        metrics,
        series,
        totals: valuesOf(metrics, totals, 0, {}),
      };
    },

    async funnel(campaignId, query) {
      const days = bucketsOf(query, 'day', now());
      // The whole range as one point.
      const buckets = { ...days, starts: days.starts.slice(0, 1) };
      await folds.campaign(campaignId);
      const {
        totals: [clicks = 0, leads = 0, conversions = 0],
      } = await pointSums(db, campaignId, buckets, false, {
        groupBy: undefined,
        counters: ['clicks', 'leads', 'conversions'],
      });
      return {
        from: buckets.from,
        to: buckets.to,
        timezone: buckets.timezone,
        clicks,
        leads,
        conversions,
        clickToLead: ratio(leads, clicks),
        leadToConversion: ratio(conversions, leads),
        clickToConversion: ratio(conversions, clicks),
      };
    },
  };
}
