import { insertRows } from '../db/bulk.js';
import { type Db, inTransactionWithoutSync, type Trx } from '../db/knex.js';
import { toDate, type DbDate } from '../db/rows.js';
import type { WebhookDeliveryRow } from '../db/webhookRows.js';

/**
 * The fan-out (docs/webhooks.md#fairness): a recorded message becomes one delivery per endpoint
 * subscribed to its type, written by the worker rather than in the transaction of the change,
 * a campaign at a time and a bounded number of rows at a time.
 */

/** The campaigns with messages still to fan out, in id order after `afterCampaign`, at most `limit`. */
export async function campaignsToFanOut(db: Db, options: { afterCampaign: number; limit: number }): Promise<number[]> {
  const rows = await db('webhook_messages')
    .where('fanout_pending', 1)
    .andWhere('campaign_id', '>', options.afterCampaign)
    .distinct('campaign_id')
    .orderBy('campaign_id')
    .limit(options.limit);
  return rows.map((row: { campaign_id: number }) => Number(row.campaign_id));
}

interface Pending {
  id: number;
  eventType: string;
  createdAt: Date;
  cursor: number;
}

interface Subscriber {
  endpointId: number;
  createdAt: Date;
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

function delivery(endpointId: number, message: Pending): Omit<WebhookDeliveryRow, 'id'> {
  return {
    endpoint_id: endpointId,
    message_id: message.id,
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: message.createdAt,
    lease_token: null,
    lease_until: null,
    created_at: message.createdAt,
    updated_at: message.createdAt,
  };
}

/**
 * The enabled endpoints of the campaign subscribed to `type` past `after`, in id order, with when
 * each was registered: at most `limit` (a chunk never writes more), and whether more may follow.
 */
async function subscribers(
  trx: Trx,
  campaignId: number,
  type: string,
  after: number,
  limit: number,
): Promise<{ list: Subscriber[]; more: boolean }> {
  const rows = await trx('webhook_subscriptions as s')
    .join('webhook_endpoints as e', 'e.id', 's.endpoint_id')
    .where({ 's.campaign_id': campaignId, 's.event_type': type, 'e.status': 'enabled' })
    .andWhere('s.endpoint_id', '>', after)
    .orderBy('s.endpoint_id')
    .limit(limit)
    .select<{ endpoint_id: number; created_at: DbDate }[]>('s.endpoint_id', 'e.created_at');
  const list = rows.map((row) => ({ endpointId: Number(row.endpoint_id), createdAt: toDate(row.created_at) }));
  return { list, more: list.length === limit };
}

/** Thrown to roll a fan-out back: another daemon moved one of its messages first. */
class Overtaken extends Error {}

/**
 * Up to `budget` deliveries of the campaign's oldest pending messages, in one transaction: each
 * message goes to the enabled endpoints subscribed to its type that were registered when the
 * change happened, in endpoint id order past the message's cursor. Each message's cursor (or
 * its end) is moved by a conditional UPDATE that expects the cursor it read: when another daemon
 * moved one first, the whole transaction rolls back and nothing is written. The unique
 * (endpoint, message) pair keeps even a repeated chunk from sending anything twice.
 * Answers how many deliveries it wrote.
 */
export async function fanOutCampaign(db: Db, campaignId: number, budget: number): Promise<number> {
  try {
    // A lost chunk is fanned out again (its cursor did not move either): no fsync of its own.
    return await inTransactionWithoutSync(db, async (trx) => {
      const messages = (
        await trx('webhook_messages')
          .where({ campaign_id: campaignId, fanout_pending: 1 })
          .orderBy('id')
          .limit(budget)
          .select<{ id: number; event_type: string; created_at: DbDate; fanout_cursor: number }[]>(
            'id',
            'event_type',
            'created_at',
            'fanout_cursor',
          )
      ).map((row) => ({
        id: Number(row.id),
        eventType: row.event_type,
        createdAt: toDate(row.created_at),
        cursor: Number(row.fanout_cursor),
      }));
      // Read once per type and cursor (fresh messages share cursor 0), never past what a chunk writes.
      const read = new Map<string, { list: Subscriber[]; more: boolean }>();
      const rows: Array<Omit<WebhookDeliveryRow, 'id'>> = [];
      const done: Pending[] = [];
      let partial: { message: Pending; cursor: number } | undefined;
      for (const message of messages) {
        const key = `${message.eventType} ${message.cursor}`;
        let subscribed = read.get(key);
        if (!subscribed) {
          subscribed = await subscribers(trx, campaignId, message.eventType, message.cursor, budget);
          read.set(key, subscribed);
        }
        const due = subscribed.list.filter((s) => s.createdAt <= message.createdAt);
        const room = budget - rows.length;
        rows.push(...due.slice(0, room).map((s) => delivery(s.endpointId, message)));
        if (due.length > room) {
          partial = { message, cursor: due[room - 1]?.endpointId ?? message.cursor };
          break;
        }
        if (subscribed.more) {
          // Endpoints past those read may still be due: the message goes on from the last one read.
          partial = { message, cursor: subscribed.list.at(-1)?.endpointId ?? message.cursor };
          break;
        }
        done.push(message);
        if (rows.length >= budget) break;
      }
      await moveCursors(trx, done, partial);
      await insertRows(trx, 'webhook_deliveries', DELIVERY_COLUMNS, rows, { ignore: true });
      return rows.length;
    });
  } catch (err) {
    if (err instanceof Overtaken) return 0;
    throw err;
  }
}

/** Marks `done` messages fanned out and moves the `partial` one's cursor, each only from the cursor read. */
async function moveCursors(trx: Trx, done: readonly Pending[], partial?: { message: Pending; cursor: number }) {
  const expect = async (moved: Promise<number>, count: number) => {
    if ((await moved) !== count) throw new Overtaken();
  };
  const fresh = done.filter((message) => message.cursor === 0).map((message) => message.id);
  if (fresh.length > 0) {
    await expect(
      trx('webhook_messages')
        .whereIn('id', fresh)
        .where({ fanout_pending: 1, fanout_cursor: 0 })
        .update({ fanout_pending: 0 }),
      fresh.length,
    );
  }
  for (const message of done.filter((m) => m.cursor !== 0)) {
    await expect(
      trx('webhook_messages')
        .where({ id: message.id, fanout_pending: 1, fanout_cursor: message.cursor })
        .update({ fanout_pending: 0 }),
      1,
    );
  }
  if (partial) {
    await expect(
      trx('webhook_messages')
        .where({ id: partial.message.id, fanout_pending: 1, fanout_cursor: partial.message.cursor })
        .update({ fanout_cursor: partial.cursor }),
      1,
    );
  }
}
