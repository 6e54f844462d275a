import { insertRows } from '../db/bulk.js';
import type { Trx } from '../db/knex.js';
import type { WebhookDeliveryRow, WebhookMessageRow } from '../db/webhookRows.js';

/**
 * The outbox's rows (docs/webhooks.md): one message per change, written in the transaction of
 * the change it reports, whatever the number of endpoints; the worker fans it out later
 * (repositories/webhookFanout.ts). Which changes are recorded, what the payload says and the
 * message's id are the outbox's policy (services/webhooks/outbox.ts); this file only stores
 * what it is given.
 */

/** A message to store, due at `createdAt`. */
export interface NewMessage {
  campaignId: number;
  messageId: string;
  eventType: string;
  payload: string;
  createdAt: Date;
}

const MESSAGE_COLUMNS = [
  'campaign_id',
  'message_id',
  'event_type',
  'payload',
  'created_at',
  'fanout_pending',
  'fanout_cursor',
] as const;

function messageRow(message: NewMessage, fanOut: boolean): Omit<WebhookMessageRow, 'id'> {
  return {
    campaign_id: message.campaignId,
    message_id: message.messageId,
    event_type: message.eventType,
    payload: message.payload,
    created_at: message.createdAt,
    fanout_pending: fanOut ? 1 : 0,
    fanout_cursor: 0,
  };
}

/** Stores messages for the worker to fan out: multi-row inserts, one row a change. */
export async function insertMessages(trx: Trx, messages: readonly NewMessage[]): Promise<void> {
  await insertRows(
    trx,
    'webhook_messages',
    MESSAGE_COLUMNS,
    messages.map((message) => messageRow(message, true)),
  );
}

/** A message to one endpoint only (a test message): stored with its delivery, due at once. */
export async function insertMessageTo(trx: Trx, message: NewMessage, endpointId: number): Promise<void> {
  const [id] = await trx('webhook_messages').insert(messageRow(message, false));
  const delivery: Omit<WebhookDeliveryRow, 'id'> = {
    endpoint_id: endpointId,
    message_id: Number(id),
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: message.createdAt,
    lease_token: null,
    lease_until: null,
    created_at: message.createdAt,
    updated_at: message.createdAt,
  };
  await trx('webhook_deliveries').insert(delivery);
}

/**
 * The campaigns among these with an endpoint subscribed to `type`: one primary-key seek a
 * campaign, however many endpoints it has (an endpoint disabled since still counts; the fan-out
 * skips it, at the cost of one message row).
 */
export async function campaignsSubscribedTo(
  trx: Trx,
  type: string,
  campaignIds: Iterable<number>,
): Promise<Set<number>> {
  const heard = new Set<number>();
  for (const campaignId of new Set(campaignIds)) {
    const row = await trx('webhook_subscriptions')
      .where({ campaign_id: campaignId, event_type: type })
      .first('endpoint_id');
    if (row) heard.add(campaignId);
  }
  return heard;
}
