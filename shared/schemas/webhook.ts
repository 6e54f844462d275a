import { z } from 'zod';
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, WEBHOOK_STATUSES } from '../vocabulary.js';
import { isoDate, paginationFields, paginationQuery } from './common.js';

export { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, WEBHOOK_STATUSES };

export const webhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof webhookEventType>;
export const TEST_EVENT_TYPE = 'webhook.test';

export const webhookStatus = z.enum(WEBHOOK_STATUSES);
export type WebhookStatus = z.infer<typeof webhookStatus>;

export const deliveryStatus = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof deliveryStatus>;

/** Where a merchant's receiver listens. The address itself is checked by the server (private ranges). */
export const webhookUrl = z
  .string()
  .trim()
  .max(2048)
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
      } catch {
        return false;
      }
    },
    { error: 'must be an http:// or https:// URL' },
  );

const events = z
  .array(webhookEventType)
  .min(1)
  .refine((list) => new Set(list).size === list.length, { error: 'must not repeat an event type' });
const description = z.string().trim().max(500);

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
export type DeliveryAttempt = z.infer<typeof deliveryAttemptSchema>;

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
