import { chunks, inChunks, insertRows } from '../db/bulk.js';
import type { Trx } from '../db/knex.js';
import type { WebhookDeliveryRow, WebhookMessageRow } from '../db/webhookRows.js';

/**
 * The outbox's rows (docs/webhooks.md): a message per change and a delivery per endpoint it goes
 * to, written in the transaction of the change they report. Which endpoints, what the payload
 * says and the message's id are the outbox's policy (services/webhooks/outbox.ts); this file
 * only stores what it is given.
 */

/** A message to store and the endpoints it goes to: one delivery each, due at `createdAt`. */
export interface NewMessage {
  campaignId: number;
  messageId: string;
  eventType: string;
  payload: string;
  endpointIds: readonly number[];
  createdAt: Date;
}

const MESSAGE_COLUMNS = ['campaign_id', 'message_id', 'event_type', 'payload', 'created_at'] as const;
const DELIVERY_COLUMNS = [
  'endpoint_id',
  'message_id',
  'status',
  'attempt_count',
  'next_attempt_at',
  'lease_token',
  'lease_until',
  'created_at',
  'updated_at',
] as const;

function messageRow(message: NewMessage): Omit<WebhookMessageRow, 'id'> {
  return {
    campaign_id: message.campaignId,
    message_id: message.messageId,
    event_type: message.eventType,
    payload: message.payload,
    created_at: message.createdAt,
  };
}

/** A delivery due now: a worker picks it up at its next poll. */
function deliveryRow(endpointId: number, messageId: number, now: Date): Omit<WebhookDeliveryRow, 'id'> {
  return {
    endpoint_id: endpointId,
    message_id: messageId,
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: now,
    lease_token: null,
    lease_until: null,
    created_at: now,
    updated_at: now,
  };
}

/** Stores the messages and their deliveries: multi-row inserts, a chunk of messages at a time. */
export async function insertMessages(trx: Trx, messages: readonly NewMessage[]): Promise<void> {
  for (const part of chunks(messages)) {
    await insertRows(trx, 'webhook_messages', MESSAGE_COLUMNS, part.map(messageRow));
    // Row ids by message id: a multi-row insert reports only one id on MySQL.
    const stored = await inChunks(
      part.map((message) => message.messageId),
      (ids) =>
        trx('webhook_messages')
          .whereIn('message_id', ids)
          .select<{ id: number; message_id: string }[]>('id', 'message_id'),
    );
    const rowIdOf = new Map(stored.map((row) => [row.message_id, Number(row.id)]));
    const deliveries = part.flatMap((message) => {
      const rowId = rowIdOf.get(message.messageId);
      if (rowId === undefined) throw new Error('a message just inserted was not found');
      return message.endpointIds.map((endpointId) => deliveryRow(endpointId, rowId, message.createdAt));
    });
    await insertRows(trx, 'webhook_deliveries', DELIVERY_COLUMNS, deliveries);
  }
}
