import { randomBytes } from 'node:crypto';
import { TEST_EVENT_TYPE, type WebhookEventType, type WebhookPayload } from '../../../shared/schemas/webhook.js';
import type { Trx } from '../../db/knex.js';
import {
  campaignsSubscribedTo,
  insertMessages,
  insertMessageTo,
  type NewMessage,
} from '../../repositories/webhookOutbox.js';

/** A change to report: `data` is the changed resource as the API answers it. */
export interface OutboxEvent {
  campaignId: number;
  type: WebhookEventType;
  data: unknown;
}

/**
 * How a service reports its changes: from inside the transaction that makes them, so that what
 * reports them commits or rolls back with the change itself (a transactional outbox). One is
 * built in `createServices` and handed to every service that records a change.
 */
export interface Outbox {
  record(trx: Trx, events: readonly OutboxEvent[]): Promise<void>;
}

/** The webhook outbox, and what only webhooks ask of it. */
export interface WebhookOutbox extends Outbox {
  /**
   * The campaigns among these with an endpoint subscribed to `type`: a change whose data costs a
   * read (the conversions a flush of intake stored) is read only for them.
   */
  listening(trx: Trx, type: WebhookEventType, campaignIds: readonly number[]): Promise<ReadonlySet<number>>;
  /** `webhook.test` to one endpoint, whatever it subscribes to; answers the message's id. */
  recordTest(trx: Trx, campaignId: number, endpointId: number): Promise<string>;
}

/** The `webhook-id` header: Standard Webhooks ids are opaque strings; ours are `msg_` + 128 random bits. */
function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

function message(event: { campaignId: number; type: string; data: unknown }, at: Date): NewMessage {
  const payload: WebhookPayload = { type: event.type, timestamp: at.toISOString(), data: event.data };
  return {
    campaignId: event.campaignId,
    messageId: newMessageId(),
    eventType: event.type,
    payload: JSON.stringify(payload),
    createdAt: at,
  };
}

/** The campaigns of these events subscribed to each type, by type. */
async function subscribedByType(trx: Trx, events: readonly OutboxEvent[]): Promise<Map<string, Set<number>>> {
  const byType = new Map<string, Set<number>>();
  for (const type of new Set(events.map((event) => event.type))) {
    const campaigns = events.filter((event) => event.type === type).map((event) => event.campaignId);
    byType.set(type, await campaignsSubscribedTo(trx, type, campaigns));
  }
  return byType;
}

/**
 * The webhook policy (docs/webhooks.md): a change is recorded as one message (its id, its signed
 * payload) when some endpoint of its campaign subscribes to its type, and the worker fans it out
 * to those endpoints later. So the transaction of a change costs one indexed read per campaign
 * and type, and one row per change, however many endpoints listen; a change nobody listens to
 * stores nothing.
 */
export function webhookOutbox({ now }: { now: () => Date }): WebhookOutbox {
  return {
    async record(trx, events) {
      if (events.length === 0) return;
      const subscribed = await subscribedByType(trx, events);
      const at = now();
      const heard = events.filter((event) => subscribed.get(event.type)?.has(event.campaignId) ?? false);
      await insertMessages(
        trx,
        heard.map((event) => message(event, at)),
      );
    },

    listening(trx, type, campaignIds) {
      return campaignsSubscribedTo(trx, type, campaignIds);
    },

    async recordTest(trx, campaignId, endpointId) {
      const data = {
        webhookId: endpointId,
        message: 'A test event from affiliated: your endpoint receives and verifies webhooks.',
      };
      const test = message({ campaignId, type: TEST_EVENT_TYPE, data }, now());
      await insertMessageTo(trx, test, endpointId);
      return test.messageId;
    },
  };
}
