import type { Trx } from '../db/knex.js';
import { type Held, settleItem } from './leasedQueue.js';
import { DELIVERY_QUEUE } from './webhookClaims.js';

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
  delivery: Held,
  attempt: AttemptRecord,
  next: { outcome: 'succeeded' | 'retried' | 'dead'; nextAttemptAt: Date | null },
): Promise<void> {
  await trx('webhook_attempts').insert({
    delivery_id: delivery.id,
    attempted_at: attempt.at,
    status_code: attempt.statusCode,
    error: attempt.error,
    duration_ms: attempt.durationMs,
    response: attempt.response,
  });
  await settleItem(trx, DELIVERY_QUEUE, delivery, next, { updated_at: new Date() });
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
