import { z } from 'zod';
import { MESSAGES } from '../errors.js';
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, WEBHOOK_STATUSES } from '../vocabulary.js';
import { isoDate, paginationFields, paginationQuery, trimmed } from './common.js';

export { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, WEBHOOK_STATUSES };

export const webhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof webhookEventType>;
export const TEST_EVENT_TYPE = 'webhook.test';

export const webhookStatus = z.enum(WEBHOOK_STATUSES);
export type WebhookStatus = z.infer<typeof webhookStatus>;

export const deliveryStatus = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof deliveryStatus>;

/**
 * The URLs the check below accepts, as a pattern the document can carry (with `format: uri`):
 * http or https, a host name whose last label starts with a letter or a dotted IPv4 address,
 * a port up to 65535, then anything without spaces. Stricter than the check (no IPv6 literal),
 * never looser: whatever it allows, the WHATWG URL parser reads with a host.
 */
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const PORT = '(?::(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|[1-9]\\d{0,3}))?';
const HTTP_URL_PATTERN =
  `^https?://(?:(?:${LABEL}\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?|${OCTET}(?:\\.${OCTET}){3})` +
  `${PORT}(?:[/?#]\\S*)?$`;

function parsedUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/**
 * Where a merchant's receiver listens. The address itself is checked by the server (private
 * ranges). No user name or password (they would be stored and listed, and never sent) and no
 * port 0 (nothing listens there), which the pattern below refuses as well.
 */
/** RFC 3986's characters, `%` only before two hex digits: what the document's `uri` format allows. */
const URI_CHARACTERS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;

export const webhookUrl = trimmed(
  z
    .string()
    .max(2048)
    .superRefine((value, ctx) => {
      const url = parsedUrl(value);
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
        ctx.addIssue({ code: 'custom', message: 'must be an http:// or https:// URL' });
      } else if (url.username !== '' || url.password !== '') {
        ctx.addIssue({ code: 'custom', message: MESSAGES.webhookUrlCredentials });
      } else if (url.port === '0') {
        ctx.addIssue({ code: 'custom', message: MESSAGES.webhookUrlPortZero });
      } else if (!URI_CHARACTERS.test(value)) {
        // The document's `uri` format is RFC 3986, which the URL parser would stretch (it encodes a space).
        ctx.addIssue({ code: 'custom', message: MESSAGES.webhookUrlCharacters });
      }
    })
    .meta({
      format: 'uri',
      pattern: HTTP_URL_PATTERN,
      description:
        'An http:// or https:// URL. Private, loopback and link-local addresses are refused unless the daemon allows them (a rule of its configuration, not of the schema).',
    }),
);

const events = z
  .array(webhookEventType)
  .min(1)
  .refine((list) => new Set(list).size === list.length, { error: 'must not repeat an event type' })
  .meta({ uniqueItems: true });
const description = trimmed(z.string().max(500));

export const createWebhookSchema = z.strictObject({
  url: webhookUrl,
  events,
  description: description.optional(),
});
export type CreateWebhookInput = z.infer<typeof createWebhookSchema>;

/** Every field optional; `description: null` clears it; `status: enabled` re-enables a disabled endpoint. */
export const updateWebhookSchema = z.strictObject({
  url: webhookUrl.optional(),
  events: events.optional(),
  description: description.nullable().optional(),
  status: webhookStatus.optional(),
});
export type UpdateWebhookInput = z.infer<typeof updateWebhookSchema>;

export const listWebhooksQuerySchema = z.strictObject({ ...paginationQuery });
export type ListWebhooksQuery = z.infer<typeof listWebhooksQuerySchema>;

export const listDeliveriesQuerySchema = z.strictObject({
  status: deliveryStatus.optional(),
  ...paginationQuery,
});
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuerySchema>;

export const webhookSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  events: z.array(webhookEventType),
  description: z.string().nullable(),
  status: webhookStatus,
  /** Why the endpoint is disabled, when the daemon disabled it (five days of failures). */
  disabledReason: z.string().nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type Webhook = z.infer<typeof webhookSchema>;

/** On creation and after a rotation only: the signing secret, `whsec_` + base64 of 24 random bytes. */
export const webhookWithSecretSchema = webhookSchema.extend({ secret: z.string() });
export type WebhookWithSecret = z.infer<typeof webhookWithSecretSchema>;

export const webhookListSchema = z.object({ webhooks: z.array(webhookSchema), ...paginationFields });
export type WebhookList = z.infer<typeof webhookListSchema>;

export const deliveryAttemptSchema = z.object({
  at: isoDate,
  /** null when no HTTP answer came (network error, timeout, refused address). */
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().int(),
  /** The first 1 KB of the answer's body. */
  response: z.string().nullable(),
});

export const deliverySchema = z.object({
  id: z.number().int(),
  /** The `webhook-id` header: the same on every attempt. */
  messageId: z.string(),
  eventType: z.string(),
  status: deliveryStatus,
  attempts: z.array(deliveryAttemptSchema),
  nextAttemptAt: isoDate.nullable(),
  createdAt: isoDate,
});
export type Delivery = z.infer<typeof deliverySchema>;

export const deliveryListSchema = z.object({ deliveries: z.array(deliverySchema), ...paginationFields });
export type DeliveryList = z.infer<typeof deliveryListSchema>;

/** What every event carries: `data` is the resource as the API returns it. */
export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: unknown;
}
