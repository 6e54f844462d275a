import { insertRows } from '../db/bulk.js';
import { inTransaction, type Db } from '../db/knex.js';
import { toDate, type DbDate } from '../db/rows.js';
import type { WebhookDeliveryRow } from '../db/webhookRows.js';

/**
 * The fan-out (docs/webhooks.md#fairness): a recorded message becomes one delivery per endpoint
 * subscribed to its type, in chunks, by the worker rather than in the transaction of the change.
 */

/** A message still to fan out, past the endpoint id `cursor`. */
export interface PendingFanout {
  id: number;
  campaignId: number;
  eventType: string;
  createdAt: Date;
  cursor: number;
}

/**
 * Each campaign's oldest message still to fan out, for at most `campaigns` campaigns: one
 * campaign's thousand messages wait behind its own first, never in front of another's.
 */
export async function oldestPendingFanouts(db: Db, campaigns: number): Promise<PendingFanout[]> {
  const heads = await db('webhook_messages')
    .where('fanout_pending', 1)
    .groupBy('campaign_id')
    .limit(campaigns)
    .select<{ id: number }[]>(db.raw('MIN(id) AS id'));
  if (heads.length === 0) return [];
  const rows = await db('webhook_messages')
    .whereIn(
      'id',
      heads.map((head) => Number(head.id)),
    )
    .orderBy('id')
    .select<{ id: number; campaign_id: number; event_type: string; created_at: DbDate; fanout_cursor: number }[]>(
      'id',
      'campaign_id',
      'event_type',
      'created_at',
      'fanout_cursor',
    );
  return rows.map((row) => ({
    id: Number(row.id),
    campaignId: Number(row.campaign_id),
    eventType: row.event_type,
    createdAt: toDate(row.created_at),
    cursor: Number(row.fanout_cursor),
  }));
}

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

/**
 * Up to `size` deliveries of the message: to the enabled endpoints subscribed to its type that
 * existed when the change happened, in endpoint id order past the cursor. The cursor moves
 * first, by a conditional UPDATE: when another daemon moved it already, nothing is written. The
 * unique (endpoint, message) pair keeps even a repeated chunk from sending anything twice.
 * Answers how many deliveries it wrote, and whether the message is done.
 */
export async function fanOutChunk(
  db: Db,
  message: PendingFanout,
  size: number,
): Promise<{ written: number; done: boolean }> {
  return inTransaction(db, async (trx) => {
    const endpointIds = (
      await trx('webhook_subscriptions as s')
        .join('webhook_endpoints as e', 'e.id', 's.endpoint_id')
        .where({ 's.campaign_id': message.campaignId, 's.event_type': message.eventType, 'e.status': 'enabled' })
        .andWhere('s.endpoint_id', '>', message.cursor)
        .andWhere('e.created_at', '<=', message.createdAt)
        .orderBy('s.endpoint_id')
        .limit(size)
        .pluck('s.endpoint_id')
    ).map(Number);
    const done = endpointIds.length < size;
    const moved = await trx('webhook_messages')
      .where({ id: message.id, fanout_pending: 1, fanout_cursor: message.cursor })
      .update({ fanout_cursor: endpointIds.at(-1) ?? message.cursor, fanout_pending: done ? 0 : 1 });
    if (moved === 0) return { written: 0, done: true };
    const rows = endpointIds.map((endpointId): Omit<WebhookDeliveryRow, 'id'> => ({
      endpoint_id: endpointId,
      message_id: message.id,
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: message.createdAt,
      lease_token: null,
      lease_until: null,
      created_at: message.createdAt,
      updated_at: message.createdAt,
    }));
    await insertRows(trx, 'webhook_deliveries', DELIVERY_COLUMNS, rows, { ignore: true });
    return { written: rows.length, done };
  });
}
