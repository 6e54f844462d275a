import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { inChunks } from '../db/bulk.js';
import type { Db } from '../db/knex.js';
import { retiredSecretsOf } from './webhookSecrets.js';

/**
 * Claiming deliveries (docs/webhooks.md#several-daemons-crashes-and-restarts): a delivery is
 * sent by the daemon whose lease token it holds. A claim is a conditional UPDATE that sets a
 * token and an expiry only where the lease is free, never a row lock alone, so it holds on a
 * Galera cluster too, where `SELECT … FOR UPDATE` on two nodes can return the same row.
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

function dueAndFree(query: Knex.QueryBuilder, now: Date): Knex.QueryBuilder {
  return query
    .where('d.status', 'pending')
    .andWhere('d.next_attempt_at', '<=', now)
    .andWhere((lease) => lease.whereNull('d.lease_until').orWhere('d.lease_until', '<=', now));
}

/** Whether anything at all is due: an idle daemon's poll is this one indexed read. */
export async function anythingDue(db: Db, now: Date): Promise<boolean> {
  const due = await db('webhook_deliveries')
    .where('status', 'pending')
    .andWhere('next_attempt_at', '<=', now)
    .first('id');
  return due !== undefined;
}

/**
 * For each enabled endpoint but those skipped, its oldest due and free delivery: one index seek
 * an endpoint (status, endpoint, due time), so a pile of due deliveries behind a stalled
 * endpoint or campaign is never scanned to reach another's.
 */
export async function dueHeads(
  db: Db,
  options: { now: Date; skipEndpoints: readonly number[]; skipCampaigns: readonly number[] },
): Promise<DueHead[]> {
  const head = dueAndFree(db('webhook_deliveries as d'), options.now)
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
  const rows = await dueAndFree(db('webhook_deliveries as d'), now)
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
  if (ids.length === 0) return [];
  const { now } = options;
  const token = randomBytes(12).toString('hex');
  const enabled = db('webhook_endpoints').select('id').where('status', 'enabled');
  let claimed = 0;
  await inChunks(ids, async (part) => {
    claimed += await db('webhook_deliveries')
      .whereIn('id', part)
      .andWhere('status', 'pending')
      .andWhere('next_attempt_at', '<=', now)
      .andWhere((lease) => lease.whereNull('lease_until').orWhere('lease_until', '<=', now))
      .whereIn('endpoint_id', enabled.clone())
      .update({ lease_token: token, lease_until: new Date(now.getTime() + options.leaseMs) });
    return [];
  });
  if (claimed === 0) return [];
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

/**
 * Extends the leases of these tokens while their attempts run, so a lease never runs out under
 * an attempt in flight; a daemon that dies stops renewing and its leases run out.
 */
export async function renewLeases(db: Db, tokens: readonly string[], until: Date): Promise<void> {
  await inChunks(tokens, async (part) => {
    await db('webhook_deliveries').whereIn('lease_token', part).update({ lease_until: until });
    return [];
  });
}

/** Gives claimed deliveries back untouched (this daemon will not send them now). */
export async function releaseDeliveries(db: Db, claimed: readonly ClaimedDelivery[]): Promise<void> {
  for (const delivery of claimed) {
    await db('webhook_deliveries')
      .where({ id: delivery.id, lease_token: delivery.leaseToken })
      .update({ lease_token: null, lease_until: null });
  }
}
