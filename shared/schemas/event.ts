import { z } from 'zod';
import { jsonBytes, jsonDepth } from './jsonShape.js';
import { toCents } from '../money.js';

import { EVENT_TYPES, MAX_EVENTS_PER_REQUEST } from '../vocabulary.js';

export { EVENT_TYPES, MAX_EVENTS_PER_REQUEST };
export const eventType = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof eventType>;

/** Largest order value we accept, so that centavos stay exact integers. */
export const MAX_ORDER_VALUE = 10_000_000_000;

const POSITIVE = 'must be a positive number';

/** seed-spec §2.2: positive; product: at least one centavo once rounded to two decimals. */
export const orderValue = z
  .number({ error: POSITIVE })
  // Rounded half up as written (`0.005` is one centavo), as intake stores it (shared/money.ts).
  .refine((value) => Number.isFinite(value) && value > 0 && (value >= 1 || toCents(value) >= 1), {
    error: POSITIVE,
    abort: true,
  })
  .refine((value) => value <= MAX_ORDER_VALUE, { error: `must not be greater than ${MAX_ORDER_VALUE}` });

/** Bounds of the open objects: enough for a cart of items, small enough to store and read back. */
export const OPEN_OBJECT_MAX_DEPTH = 8;
export const OPEN_OBJECT_MAX_BYTES = 32 * 1024;

/**
 * `properties` and `device_info` are kept as JSON text: bounded in depth (stringifying is
 * recursive) and in size, so that what is accepted is always stored and read back whole.
 */
function boundedOpenObject<T extends z.ZodType<object>>(schema: T) {
  return schema.superRefine((value, ctx) => {
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

/** `properties` stays open to unlisted fields (seed-spec §2.2); the listed ones are typed. */
export const eventProperties = z.looseObject({
  order_id: z.string().trim().min(1).max(255).optional(),
  order_value: orderValue.optional(),
  url: z.string().max(2048).optional(),
  product: z.string().max(255).optional(),
  customer_email: z.string().max(320).optional(),
  customer_name: z.string().max(255).optional(),
  timestamp: timestamp.optional(),
});

/** `device_info` is descriptive telemetry: typed where the spec names a field, open otherwise. */
export const deviceInfo = z.looseObject({
  user_agent: z.string().max(1024).optional(),
  ip: z.string().max(64).optional(),
  language: z.string().max(64).optional(),
  screen_width: z.number().int().nonnegative().optional(),
  screen_height: z.number().int().nonnegative().optional(),
});

/** product §3.5: a `campaign_id` other than the API key's campaign is a validation error. */
export const CAMPAIGN_MISMATCH = "must be the public id of the API key's campaign";
/** The mismatch names the right id, so a sender sees at once what to send instead. */
export const campaignMismatch = (publicId: string) => `${CAMPAIGN_MISMATCH} ("${publicId}")`;
/** product §3.11: the SDK endpoint names its campaign per event; an unknown one is invalid. */
export const CAMPAIGN_UNKNOWN = 'must be the public id of an existing campaign';

export const trackingEventSchema = z
  .strictObject({
    event_type: eventType,
    campaign_id: z.string().min(1).max(64),
    affiliate_id: z.string().min(1).max(64),
    event_id: z.string().min(1).max(128).optional(),
    session_id: z.string().min(1).max(255).optional(),
    properties: boundedOpenObject(eventProperties).optional(),
    device_info: boundedOpenObject(deviceInfo).optional(),
  })
  .superRefine(
    (event, ctx) => {
      // seed-spec §4.6.1: conversions need order_id and order_value in properties. Runs even
      // when other fields failed (`when`), so one answer names every missing field (product §3.6).
      const properties: unknown = event.properties;
      if (properties === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['properties'],
          message: 'is required for conversion events',
        });
        return;
      }
      if (typeof properties !== 'object' || properties === null) return; // reported as a type error
      if (!('order_id' in properties) || properties.order_id === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['properties', 'order_id'],
          message: 'is required for conversion events',
        });
      }
      if (!('order_value' in properties) || properties.order_value === undefined) {
        ctx.addIssue({ code: 'custom', path: ['properties', 'order_value'], message: POSITIVE });
      }
    },
    { when: (payload) => isConversion(payload.value) },
  );

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
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const eventsResponseSchema = z.object({
  success: z.boolean(),
  received: z.number().int(),
  accepted: z.number().int(),
  skipped: z.array(z.object({ index: z.number().int(), reason: z.enum(SKIP_REASONS) })),
});
export type EventsResponse = z.infer<typeof eventsResponseSchema>;
