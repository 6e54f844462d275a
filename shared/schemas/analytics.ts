import { z } from 'zod';
import { money } from './common.js';

import { ANALYTICS_GROUPS, ANALYTICS_INTERVALS, ANALYTICS_METRICS } from '../vocabulary.js';

export { ANALYTICS_GROUPS, ANALYTICS_INTERVALS, ANALYTICS_METRICS };
export type AnalyticsMetric = (typeof ANALYTICS_METRICS)[number];

const METRIC = `(?:${ANALYTICS_METRICS.join('|')})`;
const METRIC_LIST = new RegExp(`^${METRIC}(?:,${METRIC})*$`);

const range = {
  from: z.iso.date({ error: 'must be a date, YYYY-MM-DD' }).optional().meta({
    description: 'First local day of the range (in `timezone`), included; by default 29 days before `to`',
  }),
  to: z.iso.date({ error: 'must be a date, YYYY-MM-DD' }).optional().meta({
    description: 'Last local day of the range, included; by default today in `timezone`',
  }),
  timezone: z.string().min(1).max(64).optional().meta({
    description:
      'IANA time zone whose days, hours and months cut the series (`America/Sao_Paulo`); UTC by default. Its offset must be whole hours over the range (a rule of the data).',
  }),
};

export const analyticsQuerySchema = z.strictObject({
  metrics: z
    .string()
    .regex(METRIC_LIST, { error: `must be a comma-separated list of ${ANALYTICS_METRICS.join(', ')}` })
    .optional()
    .meta({ description: 'What to count; every metric by default' }),
  interval: z
    .enum(ANALYTICS_INTERVALS)
    .optional()
    .meta({ description: 'One point per local hour, day (the default) or month' }),
  ...range,
  groupBy: z.enum(ANALYTICS_GROUPS).optional().meta({
    description:
      'One series per affiliate (its referral code), or per a click’s device, country, referring host or utm_source; page views, leads and sales carry no click dimension (group "")',
  }),
});
export type AnalyticsQuery = z.infer<typeof analyticsQuerySchema>;

const counts = {
  clicks: z.number().int().optional(),
  bot_clicks: z.number().int().optional(),
  page_views: z.number().int().optional(),
  leads: z.number().int().optional(),
  conversions: z.number().int().optional(),
  /** Order values of the sales, in the campaign's currency. */
  revenue: money.optional(),
  commissions: money.optional(),
};

export const analyticsPointSchema = z.object({
  /** Where the point's hour, day or month begins, on the zone's clock with its offset. */
  start: z.string(),
  ...counts,
});
export type AnalyticsPoint = z.infer<typeof analyticsPointSchema>;

export const analyticsSchema = z.object({
  from: z.string(),
  to: z.string(),
  timezone: z.string(),
  interval: z.enum(ANALYTICS_INTERVALS),
  /** ISO 4217 code of `revenue` and `commissions`. */
  currency: z.string(),
  metrics: z.array(z.enum(ANALYTICS_METRICS)),
  /** One series, or one per group (`group`: a referral code, a device, a country…; null without groupBy). */
  series: z.array(z.object({ group: z.string().nullable(), points: z.array(analyticsPointSchema) })),
  totals: z.object(counts),
});
export type Analytics = z.infer<typeof analyticsSchema>;

export const funnelQuerySchema = z.strictObject(range);
export type FunnelQuery = z.infer<typeof funnelQuerySchema>;

export const funnelSchema = z.object({
  from: z.string(),
  to: z.string(),
  timezone: z.string(),
  /** People's clicks (bots apart). */
  clicks: z.number().int(),
  leads: z.number().int(),
  conversions: z.number().int(),
  /** Ratios to four decimals; null when the step before counted nothing. */
  clickToLead: z.number().nullable(),
  leadToConversion: z.number().nullable(),
  clickToConversion: z.number().nullable(),
});
export type Funnel = z.infer<typeof funnelSchema>;
