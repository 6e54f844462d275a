import { z } from 'zod';
import { PUBLIC_ID } from './campaign.js';
import { trimmedText } from './common.js';
import { jsonBytes, jsonDepth } from './jsonShape.js';
import { orderValue } from './orderValue.js';

import { EVENT_TYPES, MAX_EVENTS_PER_REQUEST } from '../vocabulary.js';

export { EVENT_TYPES, MAX_EVENTS_PER_REQUEST };
export { MAX_ORDER_VALUE, MIN_ORDER_VALUE, ORDER_VALUE_MESSAGES, orderValue } from './orderValue.js';
export const eventType = z.enum(EVENT_TYPES);
/** A click id (docs/analytics.md): 26 characters of Crockford's base 32, a time then randomness. */
export const CLICK_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
export type EventType = z.infer<typeof eventType>;

/** Bounds of the open objects: enough for a cart of items, small enough to store and read back. */
export const OPEN_OBJECT_MAX_DEPTH = 8;
export const OPEN_OBJECT_MAX_BYTES = 32 * 1024;

/**
 * `properties` and `device_info` are kept as JSON text: bounded in depth (stringifying is
 * recursive) and in size, so that what is accepted is always stored and read back whole.
 */
function boundedOpenObject<T extends z.ZodType<object>>(schema: T, description: string) {
  const bounds = `at most ${OPEN_OBJECT_MAX_DEPTH} levels deep and ${OPEN_OBJECT_MAX_BYTES / 1024} KiB of JSON`;
  return schema.meta({ description: `${description}; ${bounds}` }).superRefine((value, ctx) => {
    if (jsonDepth(value, OPEN_OBJECT_MAX_DEPTH) > OPEN_OBJECT_MAX_DEPTH) {
      ctx.addIssue({ code: 'custom', message: `must not be nested more than ${OPEN_OBJECT_MAX_DEPTH} levels deep` });
    } else if (jsonBytes(value) > OPEN_OBJECT_MAX_BYTES) {
      ctx.addIssue({ code: 'custom', message: `must not be larger than ${OPEN_OBJECT_MAX_BYTES} bytes of JSON` });
    }
  });
}

/**
 * Both engines store DATETIME(3) (MariaDB and MySQL: years 1000 to 9999), so a timestamp is
 * bounded once its offset is applied: `9999-12-31T23:59:59.999-01:00` is year 10000 in UTC.
 */
export const EARLIEST_TIMESTAMP = '1000-01-01T00:00:00.000Z';
export const LATEST_TIMESTAMP = '9999-12-31T23:59:59.999Z';
const timestamp = z.iso.datetime({ offset: true, error: 'must be a valid ISO 8601 date-time' }).refine(
  (value) => {
    const at = Date.parse(value);
    // A malformed value is reported by the format rule alone.
    return Number.isNaN(at) || (at >= Date.parse(EARLIEST_TIMESTAMP) && at <= Date.parse(LATEST_TIMESTAMP));
  },
  { error: `must be between ${EARLIEST_TIMESTAMP} and ${LATEST_TIMESTAMP}` },
);

/**
 * The bounds as JSON Schema can say them (it cannot compare instants): years 1001 to 9998 with
 * any offset, 1000 and 9999 in UTC (`Z`). zod's own pattern for the format stays beside it.
 */
const TIMESTAMP_YEARS =
  '^(?:(?:100[1-9]|10[1-9]\\d|1[1-9]\\d{2}|[2-8]\\d{3}|9[0-8]\\d{2}|99[0-8]\\d|999[0-8])-|(?:1000|9999)-.*Z$)';
const documentedTimestamp = timestamp.meta({
  allOf: [{ pattern: TIMESTAMP_YEARS }],
  description: `ISO 8601 date-time with Z or an offset, between ${EARLIEST_TIMESTAMP} and ${LATEST_TIMESTAMP} once the offset is applied`,
});

/** `properties` stays open to unlisted fields (spec §2.2); the listed ones are typed. */
export const eventProperties = z.looseObject({
  order_id: trimmedText(255).optional(),
  order_value: orderValue.optional(),
  url: z.string().max(2048).optional(),
  product: z.string().max(255).optional(),
  customer_email: z.string().max(320).optional(),
  customer_name: z.string().max(255).optional(),
  timestamp: documentedTimestamp.optional(),
});

/** `device_info` is descriptive telemetry: typed where the spec names a field, open otherwise. */
export const deviceInfo = z.looseObject({
  user_agent: z.string().max(1024).optional(),
  ip: z.string().max(64).optional(),
  language: z.string().max(64).optional(),
  screen_width: z.number().int().nonnegative().optional(),
  screen_height: z.number().int().nonnegative().optional(),
});

/** spec §10.5: a `campaign_id` other than the API key's campaign is a validation error. */
export const CAMPAIGN_MISMATCH = "must be the public id of the API key's campaign";
/** The mismatch names the right id, so a sender sees at once what to send instead. */
export const campaignMismatch = (publicId: string) => `${CAMPAIGN_MISMATCH} ("${publicId}")`;
/** spec §10.11: the SDK endpoint names its campaign per event; an unknown one is invalid. */
export const CAMPAIGN_UNKNOWN = 'must be the public id of an existing campaign';

/**
 * The `campaign_id` of each event of a body as it arrived, valid or not, by index: only those
 * the schema's own rule for the field accepts (a string of 1 to 64 characters), so that the
 * campaign rule can be checked alongside the schema and never repeats its messages.
 */
export function namedCampaigns(body: unknown): { index: number; publicId: string }[] {
  if (typeof body !== 'object' || body === null || !('events' in body)) return [];
  const { events } = body;
  if (!Array.isArray(events) || events.length > MAX_EVENTS_PER_REQUEST) return [];
  return events.flatMap((event: unknown, index) => {
    if (typeof event !== 'object' || event === null || !('campaign_id' in event)) return [];
    const publicId = event.campaign_id;
    return typeof publicId === 'string' && publicId.length >= 1 && publicId.length <= 64 ? [{ index, publicId }] : [];
  });
}

/** What the document says of a conversion, which zod checks in the refinement below. */
const CONVERSIONS_NEED_AN_ORDER = {
  if: { properties: { event_type: { const: 'conversion' } }, required: ['event_type'] },
  then: { required: ['properties'], properties: { properties: { required: ['order_id', 'order_value'] } } },
};
const REQUIRED_FOR_CONVERSIONS = 'is required for conversion events';

export const trackingEventSchema = z
  .strictObject({
    event_type: eventType,
    campaign_id: z
      .string()
      .min(1)
      .max(64)
      // No campaign has any other form of public id, so the document may say so.
      .meta({
        pattern: PUBLIC_ID.source,
        description:
          "The campaign's public id: on /v1/events the API key's campaign, on /v1/sdk/events an existing campaign (a rule of the data, not of the schema)",
      }),
    affiliate_id: z.string().min(1).max(64).meta({
      description: "The affiliate's referral code, matched whatever the case; an unknown one is skipped, not refused",
    }),
    event_id: z.string().min(1).max(128).optional(),
    session_id: z.string().min(1).max(255).optional(),
    click_id: z
      .string()
      .regex(CLICK_ID, { error: 'must be a click id as a referral link hands it to the site (26 letters and digits)' })
      .optional()
      .meta({
        description:
          'The click id a referral link added to the site address (`click_id=`): a lead or sale is attributed to that click within the campaign’s cookieDays (docs/analytics.md)',
      }),
    properties: boundedOpenObject(eventProperties, 'Open object; conversions need order_id and order_value').optional(),
    device_info: boundedOpenObject(deviceInfo, 'Open object').optional(),
  })
  .superRefine(
    (event, ctx) => {
      // spec §4.6.1: conversions need order_id and order_value in properties. Runs even
      // when other fields failed (`when`), so one answer names every missing field (spec §10.6).
      const properties: unknown = event.properties;
      if (properties === undefined) {
        ctx.addIssue({ code: 'custom', path: ['properties'], message: REQUIRED_FOR_CONVERSIONS });
        return;
      }
      if (typeof properties !== 'object' || properties === null) return; // reported as a type error
      for (const field of ['order_id', 'order_value'] as const) {
        if (!(field in properties) || (properties as Record<string, unknown>)[field] === undefined) {
          ctx.addIssue({ code: 'custom', path: ['properties', field], message: REQUIRED_FOR_CONVERSIONS });
        }
      }
    },
    { when: (payload) => isConversion(payload.value) },
  )
  .meta(CONVERSIONS_NEED_AN_ORDER);

function isConversion(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'event_type' in value && value.event_type === 'conversion';
}

export type TrackingEvent = z.infer<typeof trackingEventSchema>;

export const eventsRequestSchema = z.strictObject({
  batch: z.boolean().optional(),
  events: z.array(trackingEventSchema).max(MAX_EVENTS_PER_REQUEST),
});
export type EventsRequest = z.infer<typeof eventsRequestSchema>;

export const SKIP_REASONS = [
  'duplicate_order_id',
  'duplicate_event_id',
  'unknown_affiliate',
  'inactive_affiliate',
  'recurring_limit_reached',
  'attribution_expired',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const eventsResponseSchema = z.object({
  success: z.boolean(),
  received: z.number().int(),
  accepted: z.number().int(),
  skipped: z.array(z.object({ index: z.number().int(), reason: z.enum(SKIP_REASONS) })),
});
export type EventsResponse = z.infer<typeof eventsResponseSchema>;
