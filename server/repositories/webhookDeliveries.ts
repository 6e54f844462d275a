import { randomBytes } from 'node:crypto';
import type { DeliveryStatus } from '../../shared/schemas/webhook.js';
import type { Knex } from 'knex';
import { type Db, engineOf, type Trx } from '../db/knex.js';
import { type DbDate, toDate } from '../db/rows.js';

/** A delivery this daemon holds the lease of, with what it needs to send it. */
export interface ClaimedDelivery {
  id: number;
  endpointId: number;
  attemptCount: number;
  leaseToken: string;
  messageId: string;
  payload: string;
  url: string;
  secretEnc: string;
  previousSecretEnc: string | null;
  previousSecretExpiresAt: Date | null;
}

function claimable(query: Knex.QueryBuilder, now: Date): Knex.QueryBuilder {
  return query
    .where('status', 'pending')
    .andWhere('next_attempt_at', '<=', now)
    .andWhere((lease) => lease.whereNull('lease_until').orWhere('lease_until', '<=', now));
}

/**
 * Claims up to `limit` due deliveries of enabled endpoints (docs/webhooks.md: exactly one daemon each).
 * On MySQL/MariaDB the candidates are locked with FOR UPDATE SKIP LOCKED, so daemons claiming at
 * once take different rows without waiting; on SQLite (one writer) the conditional UPDATE alone
 * decides. Either way the UPDATE re-checks the lease, and the rows are read back by the token.
 */
export async function claimDueDeliveries(
  db: Db,
  options: { now: Date; leaseMs: number; limit: number; skipEndpoints: readonly number[] },
): Promise<ClaimedDelivery[]> {
  const { now, limit } = options;
  // An idle daemon's poll is this one read, with no transaction around it.
  const enabled = (q: Db | Trx) => q('webhook_endpoints').select('id').where('status', 'enabled');
  const due = await claimable(db('webhook_deliveries'), now).whereIn('endpoint_id', enabled(db)).first('id');
  if (!due) return [];
  const token = randomBytes(12).toString('hex');
  const claimed = await db.transaction(async (trx) => {
    const candidates = claimable(trx('webhook_deliveries'), now)
      .whereIn('endpoint_id', enabled(trx))
      .orderBy([
        { column: 'next_attempt_at', order: 'asc' },
        { column: 'id', order: 'asc' },
      ])
      .limit(limit)
      .select<{ id: number }[]>('id');
    if (options.skipEndpoints.length > 0) candidates.whereNotIn('endpoint_id', options.skipEndpoints);
    if (engineOf(db) === 'mysql') candidates.forUpdate().skipLocked();
    const ids = (await candidates).map((row) => Number(row.id));
    if (ids.length === 0) return 0;
    return claimable(trx('webhook_deliveries'), now)
      .whereIn('id', ids)
      .update({ lease_token: token, lease_until: new Date(now.getTime() + options.leaseMs) });
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
        attempt_count: number;
        message_id: string;
        payload: string;
        url: string;
        secret_enc: string;
        previous_secret_enc: string | null;
        previous_secret_expires_at: DbDate | null;
      }[]
    >(
      'd.id',
      'd.endpoint_id',
      'd.attempt_count',
      'm.message_id',
      'm.payload',
      'e.url',
      'e.secret_enc',
      'e.previous_secret_enc',
      'e.previous_secret_expires_at',
    );
  return rows.map((row) => ({
    id: Number(row.id),
    endpointId: Number(row.endpoint_id),
    attemptCount: Number(row.attempt_count),
    leaseToken: token,
    messageId: row.message_id,
    payload: row.payload,
    url: row.url,
    secretEnc: row.secret_enc,
    previousSecretEnc: row.previous_secret_enc,
    previousSecretExpiresAt: row.previous_secret_expires_at === null ? null : toDate(row.previous_secret_expires_at),
  }));
}

/** Gives claimed deliveries back untouched (this daemon will not send them now). */
export async function releaseDeliveries(db: Db, claimed: readonly ClaimedDelivery[]): Promise<void> {
  for (const delivery of claimed) {
    await db('webhook_deliveries')
      .where({ id: delivery.id, lease_token: delivery.leaseToken })
      .update({ lease_token: null, lease_until: null });
  }
}

export interface AttemptRecord {
  at: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  response: string | null;
}

/**
 * Stores an attempt and the delivery's next state in one transaction. The delivery changes only
 * while this daemon still holds its lease; the attempt is kept either way, since it happened.
 */
export async function recordAttempt(
  trx: Trx,
  delivery: ClaimedDelivery,
  attempt: AttemptRecord,
  next: { status: DeliveryStatus; nextAttemptAt: Date | null },
): Promise<void> {
  await trx('webhook_attempts').insert({
    delivery_id: delivery.id,
    attempted_at: attempt.at,
    status_code: attempt.statusCode,
    error: attempt.error,
    duration_ms: attempt.durationMs,
    response: attempt.response,
  });
  await trx('webhook_deliveries')
    .where({ id: delivery.id, lease_token: delivery.leaseToken })
    .update({
      status: next.status,
      attempt_count: trx.raw('attempt_count + 1'),
      next_attempt_at: next.nextAttemptAt,
      lease_token: null,
      lease_until: null,
      updated_at: new Date(),
    });
}

/** A success ends the endpoint's failing streak. */
export async function markEndpointHealthy(trx: Trx, endpointId: number): Promise<void> {
  await trx('webhook_endpoints').where('id', endpointId).whereNotNull('failing_since').update({ failing_since: null });
}

/**
 * A failure starts the failing streak if none runs; a streak older than `disableBefore` disables
 * the endpoint, with the reason. Answers whether this call disabled it.
 */
export async function markEndpointFailing(
  trx: Trx,
  endpointId: number,
  now: Date,
  disableBefore: Date,
  reason: string,
): Promise<boolean> {
  await trx('webhook_endpoints').where('id', endpointId).whereNull('failing_since').update({ failing_since: now });
  const disabled = await trx('webhook_endpoints')
    .where({ id: endpointId, status: 'enabled' })
    .andWhere('failing_since', '<=', disableBefore)
    .update({ status: 'disabled', disabled_reason: reason, updated_at: now });
  return disabled > 0;
}
