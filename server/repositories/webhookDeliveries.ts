import type { DeliveryStatus } from '../../shared/schemas/webhook.js';
import type { Trx } from '../db/knex.js';

/** What an attempt's record needs of the delivery: the row, and the lease this daemon holds on it. */
export interface HeldDelivery {
  id: number;
  leaseToken: string;
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
  delivery: HeldDelivery,
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
