import { MESSAGES } from '../errors.js';
import { eventsRequestSchema, eventsResponseSchema, MAX_EVENTS_PER_REQUEST } from '../schemas/event.js';
import { type BodyGuard, defineRoute } from './route.js';
import { EXAMPLE_ANA, EXAMPLE_CAMPAIGN, EXAMPLE_TIMES } from './examples.js';

/**
 * spec §10.11: sales are reported by the merchant's backend, so a conversion anywhere in a
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

/** A visit through Ana's link, as the tracking script reports it. */
const PAGE_VIEW = {
  event_type: 'page_view',
  campaign_id: EXAMPLE_CAMPAIGN.publicId,
  affiliate_id: EXAMPLE_ANA.referralId,
  session_id: 'sess-63d0',
  properties: { url: 'https://shop.example.com/pricing?ref=ANA2026' },
  device_info: {
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36',
    language: 'pt-BR',
    screen_width: 1440,
    screen_height: 900,
  },
};

/** spec §4.6 and §4.7. */
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
    examples: {
      body: {
        batch: true,
        events: [
          PAGE_VIEW,
          {
            event_type: 'conversion',
            campaign_id: EXAMPLE_CAMPAIGN.publicId,
            affiliate_id: EXAMPLE_ANA.referralId,
            event_id: 'evt-ORDER-1004',
            session_id: PAGE_VIEW.session_id,
            properties: {
              order_id: 'ORDER-1004',
              order_value: 129.9,
              url: 'https://shop.example.com/checkout/done',
              product: 'Starter plan',
              customer_email: 'joao@example.net',
              customer_name: 'João Pereira',
              timestamp: EXAMPLE_TIMES.november(5, '10:15:00.000'),
            },
          },
        ],
      },
      response: { success: true, received: 2, accepted: 2, skipped: [] },
    },
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
    examples: {
      body: { events: [PAGE_VIEW] },
      response: { success: true, received: 1, accepted: 1, skipped: [] },
    },
  }),
};
