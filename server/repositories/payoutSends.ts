import type { Knex } from 'knex';
import type { PayoutRailName } from '../../shared/schemas/payoutRail.js';
import type { PixKeyType } from '../../shared/payoutDetails.js';
import { inChunks } from '../db/bulk.js';
import type { Db, Trx } from '../db/knex.js';
import { type PayoutSendRow, toDate } from '../db/rows.js';
import { claimItems, dueItems, type Held, type LeasedTable, retryDeadItem, settleItem } from './leasedQueue.js';

/**
 * The send queue of the job runtime (docs/payouts.md): one row per sent payout, claimed with the
 * shared lease SQL, so two daemons never hold one payout's send at once.
 */
export const PAYOUT_SEND_QUEUE: LeasedTable = { table: 'payout_sends', pending: 'pending', done: 'done', dead: 'dead' };

/** The intent as committed: where the money goes and how much, in the currency's minor units. */
export interface SendIntent {
  campaignId: number;
  payoutId: number;
  rail: PayoutRailName;
  reference: string;
  amountMinor: number;
  currency: string;
  payeeAccount: string;
  pixKeyType: PixKeyType | null;
  description: string;
}

/** A claimed send: the intent and what the provider said of it so far. */
export interface ClaimedSend extends Held, SendIntent {
  providerId: string | null;
  providerBatchId: string | null;
  /** The PayPal batch (`sender_batch_id`) it left in, written with `called_at`; null before. */
  batchReference: string | null;
  /** When a call may have left: a later attempt asks the provider before sending again. */
  calledAt: Date | null;
  attemptCount: number;
}

export interface NewSend extends SendIntent {
  now: Date;
  /** When the queue may take it: now, or later for a run's intents until its last is committed. */
  dueAt?: Date;
}

/** The intent, in the transaction that moves the payout to `processing`: due at once. */
export async function insertSend(trx: Trx, send: NewSend): Promise<void> {
  await trx('payout_sends').insert({
    campaign_id: send.campaignId,
    payout_id: send.payoutId,
    rail: send.rail,
    reference: send.reference,
    amount_minor: send.amountMinor,
    currency: send.currency,
    payee_account: send.payeeAccount,
    pix_key_type: send.pixKeyType,
    description: send.description,
    provider_id: null,
    provider_batch_id: null,
    called_at: null,
    status: PAYOUT_SEND_QUEUE.pending,
    attempt_count: 0,
    next_attempt_at: send.dueAt ?? send.now,
    lease_token: null,
    lease_until: null,
    last_error: null,
    created_at: send.now,
    updated_at: send.now,
  });
}

const toClaimed = (row: PayoutSendRow, leaseToken: string): ClaimedSend => ({
  id: Number(row.id),
  leaseToken,
  payoutId: Number(row.payout_id),
  campaignId: Number(row.campaign_id),
  rail: row.rail,
  reference: row.reference,
  amountMinor: Number(row.amount_minor),
  currency: row.currency,
  payeeAccount: row.payee_account,
  pixKeyType: row.pix_key_type,
  description: row.description,
  providerId: row.provider_id,
  providerBatchId: row.provider_batch_id,
  batchReference: row.batch_reference,
  calledAt: row.called_at === null ? null : toDate(row.called_at),
  attemptCount: Number(row.attempt_count),
});

export async function claimSends(
  db: Db,
  ids: readonly number[],
  options: { now: Date; leaseMs: number },
): Promise<{ token: string; sends: ClaimedSend[] } | undefined> {
  const token = await claimItems(db, PAYOUT_SEND_QUEUE, ids, options);
  return token === undefined ? undefined : { token, sends: await heldSends(db, token) };
}

/** The sends one claim holds, by its token. */
export async function heldSends(db: Db, token: string): Promise<ClaimedSend[]> {
  const rows = await db<PayoutSendRow>('payout_sends').where('lease_token', token).orderBy('id');
  return rows.map((row) => toClaimed(row, token));
}

/**
 * Claims, under a token already held, the sends that leave with a PayPal batch: with
 * `batchReference`, every waiting send of that batch whose lease is free (due or not: the batch
 * goes again whole); without, up to `limit` due and free PayPal sends of the campaign that no
 * call has carried yet. Answers how many joined.
 */
export async function joinBatch(
  db: Db,
  token: string,
  batch: { campaignId: number; batchReference: string | null },
  options: { now: Date; leaseMs: number; limit: number },
): Promise<number> {
  const until = new Date(options.now.getTime() + options.leaseMs);
  if (batch.batchReference !== null) {
    const changed = await db('payout_sends')
      .where({
        campaign_id: batch.campaignId,
        batch_reference: batch.batchReference,
        status: PAYOUT_SEND_QUEUE.pending,
      })
      .andWhere((lease) => lease.whereNull('lease_until').orWhere('lease_until', '<=', options.now))
      .update({ lease_token: token, lease_until: until });
    return Number(changed);
  }
  if (options.limit <= 0) return 0;
  const fresh = (query: Knex.QueryBuilder) =>
    query.where({ campaign_id: batch.campaignId, rail: 'paypal' }).whereNull('called_at').whereNull('batch_reference');
  const ids = await dueItems(db, PAYOUT_SEND_QUEUE, { now: options.now, limit: options.limit, where: fresh });
  if (ids.length === 0) return 0;
  const joined = await claimItems(db, PAYOUT_SEND_QUEUE, ids, { ...options, where: fresh, token });
  return joined === undefined ? 0 : ids.length;
}

/**
 * Written before a call leaves, while the lease is held: from then on every attempt asks the
 * provider first. With a batch reference, every send of the call keeps it (a PayPal batch is
 * sent again whole, under the same `sender_batch_id`). Answers how many were still held: the
 * caller's transaction calls nothing unless all of them were.
 */
export async function markCalled(
  trx: Trx,
  sends: readonly Held[],
  now: Date,
  batchReference: string | null = null,
): Promise<number> {
  let changed = 0;
  await inChunks(sends, async (part) => {
    const query = trx('payout_sends')
      .whereIn(
        'id',
        part.map((send) => send.id),
      )
      .andWhere('lease_token', part[0]?.leaseToken ?? '');
    changed += Number(
      await query.update({
        called_at: trx.raw('COALESCE(called_at, ?)', [now]),
        ...(batchReference === null
          ? {}
          : { batch_reference: trx.raw('COALESCE(batch_reference, ?)', [batchReference]) }),
        updated_at: now,
      }),
    );
    return [];
  });
  return changed;
}

/** Gives these sends back untouched, where this daemon still holds them. */
export async function releaseSends(db: Db, sends: readonly Held[]): Promise<void> {
  await inChunks(sends, async (part) => {
    await db('payout_sends')
      .whereIn(
        'id',
        part.map((send) => send.id),
      )
      .andWhere('lease_token', part[0]?.leaseToken ?? '')
      .update({ lease_token: null, lease_until: null });
    return [];
  });
}

/** An attempt's outcome, written only under the lease (false: lost, the caller rolls back). */
export function settleSend(
  trx: Trx,
  send: Held,
  next: { outcome: 'succeeded' | 'retried' | 'dead'; nextAttemptAt: Date | null },
  seen: { providerId?: string; providerBatchId?: string; error: string | null; now: Date },
): Promise<boolean> {
  return settleItem(trx, PAYOUT_SEND_QUEUE, send, next, {
    ...(seen.providerId === undefined ? {} : { provider_id: seen.providerId.slice(0, 255) }),
    ...(seen.providerBatchId === undefined ? {} : { provider_batch_id: seen.providerBatchId.slice(0, 255) }),
    last_error: seen.error === null ? null : seen.error.slice(0, 500),
    updated_at: seen.now,
  });
}

/** A callback settled the payout: its send is done, whoever holds the lease. */
export async function finishSend(trx: Trx, payoutId: number, now: Date): Promise<void> {
  await trx('payout_sends')
    .where({ payout_id: payoutId })
    .whereNot('status', PAYOUT_SEND_QUEUE.done)
    .update({ status: PAYOUT_SEND_QUEUE.done, next_attempt_at: null, updated_at: now });
}

/** A run's intents, held back until its last was committed, are due now (those not yet taken). */
export async function releaseRunSends(db: Db, payoutIds: readonly number[], now: Date): Promise<void> {
  await inChunks(payoutIds, async (part) => {
    await db('payout_sends')
      .whereIn('payout_id', part)
      .where({ status: PAYOUT_SEND_QUEUE.pending })
      .whereNull('called_at')
      .andWhere('next_attempt_at', '>', now)
      .update({ next_attempt_at: now });
    return [];
  });
}

/** A callback that names a batch: its sends are looked up at the next poll, now. */
export async function dueNow(db: Db, campaignId: number, reference: string, now: Date): Promise<number> {
  return db('payout_sends')
    .where({ campaign_id: campaignId, status: PAYOUT_SEND_QUEUE.pending })
    .andWhere((named) => named.where('batch_reference', reference).orWhere('reference', reference))
    .update({ next_attempt_at: now, updated_at: now });
}

/** An operator's resend of a send that gave up (`payouts send ID` of a payout stuck processing). */
export function rearmSend(db: Db, payoutId: number, now: Date): Promise<boolean> {
  return db('payout_sends')
    .where({ payout_id: payoutId })
    .first<{ id: number } | undefined>('id')
    .then((row) => (row ? retryDeadItem(db, PAYOUT_SEND_QUEUE, Number(row.id), now, { updated_at: now }) : false));
}

/** What `GET /v1/payouts/{id}` does not show: the send's state, for the operator's recovery. */
export async function sendStateOf(
  db: Db,
  payoutId: number,
): Promise<{ status: string; attempts: number; lastError: string | null; nextAttemptAt: Date | null } | undefined> {
  const row = await db<PayoutSendRow>('payout_sends').where({ payout_id: payoutId }).first();
  if (!row) return undefined;
  return {
    status: row.status,
    attempts: Number(row.attempt_count),
    lastError: row.last_error,
    nextAttemptAt: row.next_attempt_at === null ? null : toDate(row.next_attempt_at),
  };
}
