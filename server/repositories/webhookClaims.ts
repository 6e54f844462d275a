import type { Db } from '../db/knex.js';
import { claimItems, dueAndFree, type LeasedTable } from './leasedQueue.js';
import { retiredSecretsOf } from './webhookSecrets.js';

/**
 * Claiming deliveries (docs/webhooks.md#several-daemons-crashes-and-restarts): a delivery is
 * sent by the daemon whose lease token it holds. The lease itself is the job runtime's
 * (leasedQueue.ts); what is webhooks' own is which deliveries a daemon asks for, fairly, and
 * what it reads back to send them.
 */

/** A delivery this daemon holds the lease of, with what it needs to send it. */
export interface ClaimedDelivery {
  id: number;
  endpointId: number;
  campaignId: number;
  attemptCount: number;
  leaseToken: string;
  messageId: string;
  payload: string;
  url: string;
  /** The sealed secrets that sign it: the current one first, then those retired and still signing. */
  secretsEnc: string[];
}

/** An enabled endpoint's oldest delivery that is due and free. */
export interface DueHead {
  endpointId: number;
  campaignId: number;
  deliveryId: number;
}

/** The deliveries' columns as the job runtime's leased queue sees them (leasedQueue.ts). */
export const DELIVERY_QUEUE: LeasedTable = {
  table: 'webhook_deliveries',
  pending: 'pending',
  done: 'succeeded',
  dead: 'failed',
};

/**
 * For each enabled endpoint but those skipped, its oldest due and free delivery: one index seek
 * an endpoint (status, endpoint, due time), so a pile of due deliveries behind a stalled
 * endpoint or campaign is never scanned to reach another's.
 */
export async function dueHeads(
  db: Db,
  options: { now: Date; skipEndpoints: readonly number[]; skipCampaigns: readonly number[] },
): Promise<DueHead[]> {
  const head = dueAndFree(db('webhook_deliveries as d'), DELIVERY_QUEUE, options.now, 'd')
    .where('d.endpoint_id', db.ref('e.id'))
    .orderBy([
      { column: 'd.next_attempt_at', order: 'asc' },
      { column: 'd.id', order: 'asc' },
    ])
    .limit(1)
    .select('d.id');
  const query = db('webhook_endpoints as e')
    .where('e.status', 'enabled')
    .select('e.id as endpoint_id', 'e.campaign_id', head.as('delivery_id'));
  if (options.skipEndpoints.length > 0) query.whereNotIn('e.id', options.skipEndpoints);
  if (options.skipCampaigns.length > 0) query.whereNotIn('e.campaign_id', options.skipCampaigns);
  const rows = (await query) as Array<{ endpoint_id: number; campaign_id: number; delivery_id: number | null }>;
  return rows.flatMap((row) =>
    row.delivery_id === null
      ? []
      : [
          {
            endpointId: Number(row.endpoint_id),
            campaignId: Number(row.campaign_id),
            deliveryId: Number(row.delivery_id),
          },
        ],
  );
}

/** Up to `limit` due and free deliveries of one endpoint, oldest first. */
export async function dueOf(db: Db, endpointId: number, now: Date, limit: number): Promise<number[]> {
  const rows = await dueAndFree(db('webhook_deliveries as d'), DELIVERY_QUEUE, now, 'd')
    .where('d.endpoint_id', endpointId)
    .orderBy([
      { column: 'd.next_attempt_at', order: 'asc' },
      { column: 'd.id', order: 'asc' },
    ])
    .limit(limit)
    .select<{ id: number }[]>('d.id');
  return rows.map((row) => Number(row.id));
}

/**
 * Claims these deliveries where they are still due, free and of an enabled endpoint: one
 * conditional UPDATE sets a fresh token and the lease's expiry; what it took is read back by the
 * token. Another daemon claiming the same rows at once takes none of those this one got.
 */
export async function claimDeliveries(
  db: Db,
  ids: readonly number[],
  options: { now: Date; leaseMs: number },
): Promise<ClaimedDelivery[]> {
  const { now } = options;
  const token = await claimItems(db, DELIVERY_QUEUE, ids, {
    ...options,
    where: (query) => query.whereIn('endpoint_id', db('webhook_endpoints').select('id').where('status', 'enabled')),
  });
  if (token === undefined) return [];
  const rows = await db('webhook_deliveries as d')
    .join('webhook_messages as m', 'm.id', 'd.message_id')
    .join('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .where('d.lease_token', token)
    .orderBy([
      { column: 'd.next_attempt_at', order: 'asc' },
      { column: 'd.id', order: 'asc' },
    ])
    .select<
      {
        id: number;
        endpoint_id: number;
        campaign_id: number;
        attempt_count: number;
        message_id: string;
        payload: string;
        url: string;
        secret_enc: string;
      }[]
    >(
      'd.id',
      'd.endpoint_id',
      'e.campaign_id',
      'd.attempt_count',
      'm.message_id',
      'm.payload',
      'e.url',
      'e.secret_enc',
    );
  const retired = await retiredSecretsOf(db, [...new Set(rows.map((row) => Number(row.endpoint_id)))], now);
  return rows.map((row) => ({
    id: Number(row.id),
    endpointId: Number(row.endpoint_id),
    campaignId: Number(row.campaign_id),
    attemptCount: Number(row.attempt_count),
    leaseToken: token,
    messageId: row.message_id,
    payload: row.payload,
    url: row.url,
    secretsEnc: [row.secret_enc, ...(retired.get(Number(row.endpoint_id)) ?? [])],
  }));
}
