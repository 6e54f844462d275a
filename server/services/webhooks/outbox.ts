import { randomBytes } from 'node:crypto';
import { TEST_EVENT_TYPE, type WebhookEventType, type WebhookPayload } from '../../../shared/schemas/webhook.js';
import type { Trx } from '../../db/knex.js';
import { enabledEndpointsOf, type Subscriber } from '../../repositories/webhookEndpoints.js';
import { insertMessages, type NewMessage } from '../../repositories/webhookOutbox.js';

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
   * The campaigns among these with an enabled endpoint for `type`: a change whose data costs a
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

function message(
  event: { campaignId: number; type: string; data: unknown },
  endpointIds: readonly number[],
  at: Date,
): NewMessage {
  const payload: WebhookPayload = { type: event.type, timestamp: at.toISOString(), data: event.data };
  return {
    campaignId: event.campaignId,
    messageId: newMessageId(),
    eventType: event.type,
    payload: JSON.stringify(payload),
    endpointIds,
    createdAt: at,
  };
}

async function subscribersByCampaign(trx: Trx, campaignIds: Iterable<number>): Promise<Map<number, Subscriber[]>> {
  const byCampaign = new Map<number, Subscriber[]>();
  for (const endpoint of await enabledEndpointsOf(trx, [...new Set(campaignIds)])) {
    byCampaign.set(endpoint.campaignId, [...(byCampaign.get(endpoint.campaignId) ?? []), endpoint]);
  }
  return byCampaign;
}

/**
 * The webhook policy (docs/webhooks.md): a change goes to every enabled endpoint of its campaign
 * that subscribes to its type, as one message (its id, its signed payload) with one delivery per
 * endpoint, due at once. A campaign with no such endpoint costs one indexed read and stores nothing.
 */
export function webhookOutbox({ now }: { now: () => Date }): WebhookOutbox {
  return {
    async record(trx, events) {
      if (events.length === 0) return;
      const subscribers = await subscribersByCampaign(
        trx,
        events.map((event) => event.campaignId),
      );
      if (subscribers.size === 0) return;
      const at = now();
      const messages = events.flatMap((event) => {
        const endpointIds = (subscribers.get(event.campaignId) ?? [])
          .filter((endpoint) => endpoint.events.includes(event.type))
          .map((endpoint) => endpoint.id);
        return endpointIds.length === 0 ? [] : [message(event, endpointIds, at)];
      });
      await insertMessages(trx, messages);
    },

    async listening(trx, type, campaignIds) {
      const subscribers = await subscribersByCampaign(trx, campaignIds);
      const heard = [...subscribers].filter(([, endpoints]) => endpoints.some((e) => e.events.includes(type)));
      return new Set(heard.map(([campaignId]) => campaignId));
    },

    async recordTest(trx, campaignId, endpointId) {
      const data = {
        webhookId: endpointId,
        message: 'A test event from affiliated: your endpoint receives and verifies webhooks.',
      };
      const test = message({ campaignId, type: TEST_EVENT_TYPE, data }, [endpointId], now());
      await insertMessages(trx, [test]);
      return test.messageId;
    },
  };
}
