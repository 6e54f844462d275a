import type { PayoutRailName } from '../../shared/schemas/payoutRail.js';
import type { PixKeyType } from '../../shared/payoutDetails.js';
import type { Db, Trx } from '../db/knex.js';
import { type PayoutSendRow, toDate } from '../db/rows.js';
import { claimItems, type Held, type LeasedTable, retryDeadItem, settleItem } from './leasedQueue.js';

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
  /** When a call may have left: a later attempt asks the provider before sending again. */
  calledAt: Date | null;
  attemptCount: number;
}

export interface NewSend extends SendIntent {
  now: Date;
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
    next_attempt_at: send.now,
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
  calledAt: row.called_at === null ? null : toDate(row.called_at),
  attemptCount: Number(row.attempt_count),
});

export async function claimSends(
  db: Db,
  ids: readonly number[],
  options: { now: Date; leaseMs: number },
): Promise<ClaimedSend[]> {
  const token = await claimItems(db, PAYOUT_SEND_QUEUE, ids, options);
  if (token === undefined) return [];
  const rows = await db<PayoutSendRow>('payout_sends').where('lease_token', token).orderBy('id');
  return rows.map((row) => toClaimed(row, token));
}

/**
 * Written before a call leaves, while the lease is held: from then on every attempt asks the
 * provider first. False: the lease was lost (another daemon has the send), so nothing is called.
 */
export async function markCalled(db: Db, send: Held, now: Date): Promise<boolean> {
  const changed = await db('payout_sends')
    .where({ id: send.id, lease_token: send.leaseToken })
    .update({ called_at: db.raw('COALESCE(called_at, ?)', [now]), updated_at: now });
  return Number(changed) > 0;
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

/** A callback that names a batch: its sends are looked up at the next poll, now. */
export async function dueNow(db: Db, campaignId: number, reference: string, now: Date): Promise<number> {
  return db('payout_sends')
    .where({ campaign_id: campaignId, reference, status: PAYOUT_SEND_QUEUE.pending })
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
