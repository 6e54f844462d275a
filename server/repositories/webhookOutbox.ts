import { randomBytes } from 'node:crypto';
import type { WebhookEventType, WebhookPayload } from '../../shared/schemas/webhook.js';
import type { Trx } from '../db/knex.js';
import { centsToMoney, toIso } from '../db/rows.js';
import type { WebhookDeliveryRow } from '../db/webhookRows.js';
import { enabledEndpointsOf, eventsOf } from './webhookEndpoints.js';

/**
 * The durable outbox (issue 11). Every function here takes the transaction of the change it
 * reports: the message and one delivery per subscribed, enabled endpoint commit with the change
 * or roll back with it. A campaign with no subscribed endpoint costs one indexed read.
 */
export interface OutboxEvent {
  campaignId: number;
  type: WebhookEventType | 'webhook.test';
  data: unknown;
}

const CHUNK = 500;

/** The `webhook-id` header: Standard Webhooks ids are opaque strings; ours are `msg_` + 128 random bits. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/** A delivery due now: the worker picks it up at its next poll. */
function newDelivery(endpointId: number, messageId: number, now: Date): Omit<WebhookDeliveryRow, 'id'> {
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

function payloadOf(event: OutboxEvent, now: Date): string {
  const payload: WebhookPayload = { type: event.type, timestamp: now.toISOString(), data: event.data };
  return JSON.stringify(payload);
}

/** Writes messages for explicit endpoints (`targets[i]` for `events[i]`); deliveries are due now. */
async function insertMessages(
  trx: Trx,
  events: readonly OutboxEvent[],
  targets: readonly number[][],
  now: Date,
): Promise<void> {
  const rows = events.map((event) => ({
    campaign_id: event.campaignId,
    message_id: newMessageId(),
    event_type: event.type,
    payload: payloadOf(event, now),
    created_at: now,
  }));
  for (let start = 0; start < rows.length; start += CHUNK) {
    const part = rows.slice(start, start + CHUNK);
    await trx('webhook_messages').insert(part);
    // Ids by message id: a multi-row insert reports only one id on MySQL.
    const stored = await trx('webhook_messages')
      .whereIn(
        'message_id',
        part.map((row) => row.message_id),
      )
      .select<{ id: number; message_id: string }[]>('id', 'message_id');
    const idOf = new Map(stored.map((row) => [row.message_id, Number(row.id)]));
    const deliveries = part.flatMap((row, i) => {
      const messageId = idOf.get(row.message_id);
      if (messageId === undefined) throw new Error('a message just inserted was not found');
      return (targets[start + i] ?? []).map((endpointId) => newDelivery(endpointId, messageId, now));
    });
    for (let d = 0; d < deliveries.length; d += CHUNK) {
      await trx('webhook_deliveries').insert(deliveries.slice(d, d + CHUNK));
    }
  }
}

/** Records events for every enabled endpoint of their campaign that subscribes to their type. */
export async function enqueueWebhookEvents(trx: Trx, events: readonly OutboxEvent[], now = new Date()): Promise<void> {
  if (events.length === 0) return;
  const endpoints = await enabledEndpointsOf(trx, [...new Set(events.map((event) => event.campaignId))]);
  if (endpoints.length === 0) return;
  const subscribed = endpoints.map((row) => ({ ...row, events: new Set<string>(eventsOf(row)) }));
  const wanted: OutboxEvent[] = [];
  const targets: number[][] = [];
  for (const event of events) {
    const ids = subscribed
      .filter((row) => Number(row.campaign_id) === event.campaignId && row.events.has(event.type))
      .map((row) => Number(row.id));
    if (ids.length === 0) continue;
    wanted.push(event);
    targets.push(ids);
  }
  await insertMessages(trx, wanted, targets, now);
}

export async function enqueueWebhookEvent(
  trx: Trx,
  campaignId: number,
  type: WebhookEventType,
  data: unknown,
  now = new Date(),
): Promise<void> {
  await enqueueWebhookEvents(trx, [{ campaignId, type, data }], now);
}

/** `webhook.test` to one endpoint, whatever it subscribes to; answers the delivery's id. */
export async function enqueueTestMessage(
  trx: Trx,
  campaignId: number,
  endpointId: number,
  data: unknown,
  now = new Date(),
): Promise<number> {
  const event: OutboxEvent = { campaignId, type: 'webhook.test', data };
  const [messageId] = await trx('webhook_messages').insert({
    campaign_id: campaignId,
    message_id: newMessageId(),
    event_type: event.type,
    payload: payloadOf(event, now),
    created_at: now,
  });
  const [deliveryId] = await trx('webhook_deliveries').insert(newDelivery(endpointId, Number(messageId), now));
  return Number(deliveryId);
}

interface StoredConversion {
  id: number;
  campaign_id: number;
  affiliate_id: number;
  referral_id: string;
  order_id: string;
  order_value_cents: number | string;
  commission_cents: number | string;
  status: string;
  payout_id: number | null;
  properties: string | null;
  occurred_at: Date | number | string;
  created_at: Date | number | string;
}

/**
 * `conversion.created` for conversions just inserted in this transaction, found by their
 * (campaign, order id) unique key. Event intake calls this once per flush with the rows it
 * inserted; `data` is the conversion as the conversions API returns it.
 */
export async function enqueueConversionsCreated(
  trx: Trx,
  conversions: readonly { campaignId: number; orderId: string }[],
  now = new Date(),
): Promise<void> {
  if (conversions.length === 0) return;
  const campaignIds = [...new Set(conversions.map((row) => row.campaignId))];
  const endpoints = await enabledEndpointsOf(trx, campaignIds);
  const listening = new Set(
    endpoints.filter((row) => eventsOf(row).includes('conversion.created')).map((row) => Number(row.campaign_id)),
  );
  if (listening.size === 0) return;
  const events: OutboxEvent[] = [];
  for (const campaignId of listening) {
    const orderIds = conversions.filter((row) => row.campaignId === campaignId).map((row) => row.orderId);
    for (let start = 0; start < orderIds.length; start += CHUNK) {
      const rows = await trx('conversions as c')
        .join('affiliates as a', 'a.id', 'c.affiliate_id')
        .where('c.campaign_id', campaignId)
        .whereIn('c.order_id', orderIds.slice(start, start + CHUNK))
        .orderBy('c.id')
        .select<StoredConversion[]>('c.*', 'a.referral_id');
      for (const row of rows) events.push({ campaignId, type: 'conversion.created', data: conversionData(row) });
    }
  }
  await enqueueWebhookEvents(trx, events, now);
}

function conversionData(row: StoredConversion) {
  return {
    id: Number(row.id),
    affiliateId: Number(row.affiliate_id),
    referralId: row.referral_id,
    orderId: row.order_id,
    orderValue: centsToMoney(row.order_value_cents),
    commission: centsToMoney(row.commission_cents),
    status: row.status,
    payoutId: row.payout_id === null ? null : Number(row.payout_id),
    occurredAt: toIso(row.occurred_at),
    createdAt: toIso(row.created_at),
    refundedAt: null,
    refundReason: null,
    properties: row.properties === null ? null : (JSON.parse(row.properties) as Record<string, unknown>),
  };
}

/**
 * A change of the conversion and payout lifecycle (`conversion.approved`, `payout.paid`, …), as
 * its services report it from inside their transaction: pass this as their recorder and the
 * webhook message commits with the change. `data` is the conversion or payout as the API answers it.
 */
export async function recordLifecycleWebhook(
  trx: Trx,
  event: { type: WebhookEventType; campaignId: number } & ({ conversion: unknown } | { payout: unknown }),
): Promise<void> {
  const data = 'conversion' in event ? event.conversion : event.payout;
  await enqueueWebhookEvent(trx, event.campaignId, event.type, data);
}
