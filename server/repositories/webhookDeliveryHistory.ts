import type { Delivery, ListDeliveriesQuery } from '../../shared/schemas/webhook.js';
import type { Db } from '../db/knex.js';
import { countRows, newestFirstPage } from '../db/pages.js';
import { toIso } from '../db/rows.js';
import type { WebhookAttemptRow, WebhookDeliveryRow } from '../db/webhookRows.js';

/** What the API shows of deliveries: each with its attempts, and the merchant's retry. */
type DeliveryListRow = Pick<WebhookDeliveryRow, 'id' | 'status' | 'next_attempt_at' | 'created_at'> & {
  message_id: string;
  event_type: string;
};

function toDelivery(row: DeliveryListRow, attempts: readonly WebhookAttemptRow[]): Delivery {
  return {
    id: Number(row.id),
    messageId: row.message_id,
    eventType: row.event_type,
    status: row.status,
    attempts: attempts.map((a) => ({
      at: toIso(a.attempted_at),
      statusCode: a.status_code === null ? null : Number(a.status_code),
      error: a.error,
      durationMs: Number(a.duration_ms),
      response: a.response,
    })),
    nextAttemptAt: row.status === 'pending' && row.next_attempt_at !== null ? toIso(row.next_attempt_at) : null,
    createdAt: toIso(row.created_at),
  };
}

function deliveriesOf(db: Db, endpointId: number) {
  return db('webhook_deliveries as d')
    .join('webhook_messages as m', 'm.id', 'd.message_id')
    .where('d.endpoint_id', endpointId);
}

async function withAttempts(db: Db, rows: readonly DeliveryListRow[]): Promise<Delivery[]> {
  if (rows.length === 0) return [];
  const attempts = await db<WebhookAttemptRow>('webhook_attempts')
    .whereIn(
      'delivery_id',
      rows.map((row) => row.id),
    )
    .orderBy([
      { column: 'attempted_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .select('*');
  return rows.map((row) =>
    toDelivery(
      row,
      attempts.filter((a) => Number(a.delivery_id) === Number(row.id)),
    ),
  );
}

const LIST_COLUMNS = ['d.id', 'd.status', 'd.next_attempt_at', 'd.created_at', 'm.message_id', 'm.event_type'];

/** Newest first (docs/webhooks.md), each with its attempts in the order they happened. */
export async function listDeliveries(
  db: Db,
  endpointId: number,
  query: ListDeliveriesQuery,
): Promise<{ deliveries: Delivery[]; total: number }> {
  const base = db('webhook_deliveries').where('endpoint_id', endpointId);
  const page = deliveriesOf(db, endpointId);
  if (query.status) {
    base.andWhere('status', query.status);
    page.andWhere('d.status', query.status);
  }
  const [total, rows] = await Promise.all([
    countRows(base),
    newestFirstPage(page, 'd.', query).select<DeliveryListRow[]>(LIST_COLUMNS),
  ]);
  return { deliveries: await withAttempts(db, rows), total };
}

/** An endpoint's delivery, by its id or by the id of the message it carries. */
export async function findDelivery(
  db: Db,
  endpointId: number,
  which: { id: number } | { messageId: string },
): Promise<Delivery | undefined> {
  const query = deliveriesOf(db, endpointId);
  if ('id' in which) query.andWhere('d.id', which.id);
  else query.andWhere('m.message_id', which.messageId);
  const rows = await query.select<DeliveryListRow[]>(LIST_COLUMNS);
  const [delivery] = await withAttempts(db, rows);
  return delivery;
}

/** `retry`: due now, pending again, whatever it was; a failed delivery gets one more attempt. */
export async function retryDelivery(db: Db, endpointId: number, deliveryId: number, now: Date): Promise<number> {
  return db('webhook_deliveries')
    .where({ id: deliveryId, endpoint_id: endpointId })
    .update({ status: 'pending', next_attempt_at: now, updated_at: now });
}
