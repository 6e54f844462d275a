import { z } from 'zod';

export const EVENT_TYPES = ['conversion', 'lead', 'page_view'] as const;
export const eventType = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof eventType>;

/** At most this many events a request (product §3.6). */
export const MAX_EVENTS_PER_REQUEST = 1000;
/** Largest order value we accept, so that centavos stay exact integers. */
export const MAX_ORDER_VALUE = 10_000_000_000;

const POSITIVE = 'must be a positive number';

/** seed-spec §2.2: positive; product: at least one centavo once rounded to two decimals. */
export const orderValue = z
  .number({ error: POSITIVE })
  .refine((value) => Math.round(value * 100) >= 1, { error: POSITIVE, abort: true })
  .refine((value) => value <= MAX_ORDER_VALUE, { error: `must not be greater than ${MAX_ORDER_VALUE}` });

/** `properties` stays open to unlisted fields (seed-spec §2.2); the listed ones are typed. */
export const eventProperties = z.looseObject({
  order_id: z.string().trim().min(1).max(255).optional(),
  order_value: orderValue.optional(),
  url: z.string().max(2048).optional(),
  product: z.string().max(255).optional(),
  customer_email: z.string().max(320).optional(),
  customer_name: z.string().max(255).optional(),
  timestamp: z.iso.datetime({ offset: true, error: 'must be a valid ISO 8601 date-time' }).optional(),
});

/** `device_info` is descriptive telemetry: typed where the spec names a field, open otherwise. */
export const deviceInfo = z.looseObject({
  user_agent: z.string().max(1024).optional(),
  ip: z.string().max(64).optional(),
  language: z.string().max(64).optional(),
  screen_width: z.number().int().nonnegative().optional(),
  screen_height: z.number().int().nonnegative().optional(),
});

export const trackingEventSchema = z
  .strictObject({
    event_type: eventType,
    campaign_id: z.string().min(1).max(64),
    affiliate_id: z.string().min(1).max(64),
    event_id: z.string().min(1).max(128).optional(),
    session_id: z.string().min(1).max(255).optional(),
    properties: eventProperties.optional(),
    device_info: deviceInfo.optional(),
  })
  .superRefine((event, ctx) => {
    // seed-spec §4.6.1: conversions need order_id and order_value in properties.
    if (event.event_type !== 'conversion') return;
    if (event.properties === undefined) {
      ctx.addIssue({ code: 'custom', path: ['properties'], message: 'is required for conversion events' });
      return;
    }
    if (event.properties.order_id === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['properties', 'order_id'],
        message: 'is required for conversion events',
      });
    }
    if (event.properties.order_value === undefined) {
      ctx.addIssue({ code: 'custom', path: ['properties', 'order_value'], message: POSITIVE });
    }
  });
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
