import { MESSAGES } from '../errors.js';
import { eventsRequestSchema, eventsResponseSchema, MAX_EVENTS_PER_REQUEST } from '../schemas/event.js';
import { type BodyGuard, defineRoute } from './route.js';

/**
 * product §3.11: sales are reported by the merchant's backend, so a conversion anywhere in a
 * browser's body is refused with 403, whatever else the body holds (even before validation).
 */
const noConversionsFromBrowsers: BodyGuard = (body) => {
  if (typeof body !== 'object' || body === null || !('events' in body)) return undefined;
  const { events } = body;
  if (!Array.isArray(events) || events.length > MAX_EVENTS_PER_REQUEST) return undefined;
  const conversion = events.some(
    (event: unknown) =>
      typeof event === 'object' && event !== null && (event as Record<string, unknown>).event_type === 'conversion',
  );
  return conversion ? { status: 403, message: MESSAGES.sdkConversionForbidden } : undefined;
};

/** spec 4.6 and 4.7. */
export const eventRoutes = {
  send: defineRoute({
    operationId: 'sendEvents',
    method: 'post',
    path: '/v1/events',
    tag: 'Events',
    summary: 'Send tracking events (conversions, leads, page views)',
    description:
      'A batch that breaks any rule is refused whole (400) and nothing is stored. Duplicates and events for unknown or inactive affiliates are reported in `skipped`.',
    auth: 'apiKeyEvents',
    rateLimit: 'events',
    body: eventsRequestSchema,
    responses: { 200: eventsResponseSchema },
    errors: [400, 401, 403, 413, 415],
  }),
  sendFromBrowser: defineRoute({
    operationId: 'sendBrowserEvents',
    method: 'post',
    path: '/v1/sdk/events',
    tag: 'Browser SDK',
    summary: 'Send page views and leads from a browser (no API key)',
    description:
      'Each event names its campaign in `campaign_id`. Conversions are refused with 403: report them from your backend.',
    auth: 'none',
    rateLimit: 'sdk',
    cors: true,
    body: eventsRequestSchema,
    guard: noConversionsFromBrowsers,
    responses: { 200: eventsResponseSchema },
    errors: [400, 403, 413, 415],
  }),
};
