import type { PayoutMethod, PixKeyType } from '../../shared/payoutDetails.js';
import { inChunks } from '../db/bulk.js';
import type { Db, Trx } from '../db/knex.js';
import { type DbDate, type PayoutRunRow, toIso } from '../db/rows.js';

/** An affiliate with approved commission in no payout: what a run would pay it, before the minimum. */
export interface PayableBalance {
  affiliateId: number;
  affiliateName: string | null;
  affiliateEmail: string;
  payoutMethod: PayoutMethod | null;
  pixKeyType: PixKeyType | null;
  payoutAccount: string | null;
  commissionCents: number;
  /** Clawbacks of paid payouts not yet netted: the next payout nets them (services/payouts.ts). */
  clawbackCents: number;
}

/**
 * Every affiliate of the campaign with approved commission in no payout, with its payout
 * details and the clawbacks its next payout would net: two grouped reads, not one per affiliate.
 */
export async function payableBalances(db: Db | Trx, campaignId: number): Promise<PayableBalance[]> {
  const rows = await db('conversions as v')
    .join('affiliates as a', 'a.id', 'v.affiliate_id')
    .where({ 'v.campaign_id': campaignId, 'v.status': 'approved' })
    .whereNull('v.payout_id')
    .groupBy('v.affiliate_id', 'a.name', 'a.email', 'a.payout_method', 'a.pix_key_type', 'a.payout_account')
    .orderBy('v.affiliate_id')
    .select<
      {
        affiliate_id: number;
        name: string | null;
        email: string;
        payout_method: PayoutMethod | null;
        pix_key_type: PixKeyType | null;
        payout_account: string | null;
        cents: number | string;
      }[]
    >(
      'v.affiliate_id',
      'a.name',
      'a.email',
      'a.payout_method',
      'a.pix_key_type',
      'a.payout_account',
      db.raw('SUM(v.commission_cents) as cents'),
    );
  const ids = rows.map((row) => Number(row.affiliate_id));
  const clawbacks = await inChunks(ids, (part) =>
    db('clawbacks as k')
      .join('payouts as source', 'source.id', 'k.source_payout_id')
      .whereIn('k.affiliate_id', part)
      .where('source.status', 'paid')
      .whereNull('k.netted_payout_id')
      .groupBy('k.affiliate_id')
      .select<{ affiliate_id: number; cents: number | string }[]>(
        'k.affiliate_id',
        db.raw('SUM(k.amount_cents) as cents'),
      ),
  );
  const owed = new Map(clawbacks.map((row) => [Number(row.affiliate_id), Number(row.cents)]));
  return rows.map((row) => ({
    affiliateId: Number(row.affiliate_id),
    affiliateName: row.name,
    affiliateEmail: row.email,
    payoutMethod: row.payout_method ?? null,
    pixKeyType: row.payout_method === 'pix' ? (row.pix_key_type ?? null) : null,
    payoutAccount: row.payout_account ?? null,
    commissionCents: Number(row.cents),
    clawbackCents: owed.get(Number(row.affiliate_id)) ?? 0,
  }));
}

export interface StoredPayoutRun {
  id: number;
  campaignId: number;
  status: PayoutRunRow['status'];
  rail: PayoutRunRow['rail'];
  totalCents: number;
  payoutCount: number;
  startedBy: { type: PayoutRunRow['started_by_type']; id: string | null };
  approvedByUserId: number | null;
  createdAt: string;
  approvedAt: string | null;
}

function toRun(row: PayoutRunRow): StoredPayoutRun {
  const at = (value: DbDate | null) => (value === null ? null : toIso(value));
  return {
    id: Number(row.id),
    campaignId: Number(row.campaign_id),
    status: row.status,
    rail: row.rail,
    totalCents: Number(row.total_cents),
    payoutCount: Number(row.payout_count),
    startedBy: { type: row.started_by_type, id: row.started_by_id },
    approvedByUserId: row.approved_by_user_id === null ? null : Number(row.approved_by_user_id),
    createdAt: toIso(row.created_at),
    approvedAt: at(row.approved_at),
  };
}

/** A run that is creating its payouts (`creating`), before its total decides what it becomes. */
export async function insertPayoutRun(
  db: Db | Trx,
  run: {
    campaignId: number;
    rail: PayoutRunRow['rail'];
    startedBy: { type: PayoutRunRow['started_by_type']; id: string | null };
    now: Date;
  },
): Promise<number> {
  const [id] = await db('payout_runs').insert({
    campaign_id: run.campaignId,
    status: 'creating',
    rail: run.rail,
    total_cents: 0,
    payout_count: 0,
    started_by_type: run.startedBy.type,
    started_by_id: run.startedBy.id,
    approved_by_user_id: null,
    created_at: run.now,
    approved_at: null,
  });
  return Number(id);
}

/** `creating → sending | awaiting_approval`, with the payouts it made. */
export async function closeCreating(
  db: Db | Trx,
  id: number,
  to: 'sending' | 'awaiting_approval',
  totals: { cents: number; count: number },
): Promise<boolean> {
  const changed = await db('payout_runs')
    .where({ id, status: 'creating' })
    .update({ status: to, total_cents: totals.cents, payout_count: totals.count });
  return changed > 0;
}

/**
 * `awaiting_approval → sending` by a dashboard user who did not start the run: one conditional
 * UPDATE, so two approvals (two admins, a double click, two daemons) approve it once.
 */
export async function approvePayoutRun(
  db: Db | Trx,
  campaignId: number,
  id: number,
  userId: number,
  now: Date,
): Promise<boolean> {
  const changed = await db('payout_runs')
    .where({ id, campaign_id: campaignId, status: 'awaiting_approval' })
    .andWhere((q) =>
      q.whereNot('started_by_type', 'user').orWhereNull('started_by_id').orWhereNot('started_by_id', String(userId)),
    )
    .update({ status: 'sending', approved_by_user_id: userId, approved_at: now });
  return changed > 0;
}

/** `sending → sent`, once every payout of the run was handed to the send queue. */
export async function markRunSent(db: Db | Trx, id: number): Promise<void> {
  await db('payout_runs').where({ id, status: 'sending' }).update({ status: 'sent' });
}

export async function findPayoutRun(
  db: Db | Trx,
  campaignId: number,
  id: number,
): Promise<StoredPayoutRun | undefined> {
  const row = await db('payout_runs').where({ id, campaign_id: campaignId }).first<PayoutRunRow | undefined>('*');
  return row && toRun(row);
}

/** A campaign's runs of a status, newest first (the dashboard's runs awaiting approval). */
export async function payoutRunsWithStatus(
  db: Db | Trx,
  campaignId: number,
  status: PayoutRunRow['status'],
  limit: number,
): Promise<StoredPayoutRun[]> {
  const rows = await db('payout_runs')
    .where({ campaign_id: campaignId, status })
    .orderBy('id', 'desc')
    .limit(limit)
    .select<PayoutRunRow[]>('*');
  return rows.map(toRun);
}

/** The ids of a run's payouts still `pending`, ascending: what approving it sends. */
export async function pendingPayoutIdsOfRun(db: Db | Trx, campaignId: number, runId: number): Promise<number[]> {
  const rows = await db('payouts')
    .where({ campaign_id: campaignId, payout_run_id: runId, status: 'pending' })
    .orderBy('id')
    .select<{ id: number }[]>('id');
  return rows.map((row) => Number(row.id));
}

/** Runs still `creating` or `sending` that began before `before`: stopped, most likely, by a crash. */
export async function stalledPayoutRuns(db: Db | Trx, before: Date, limit: number): Promise<StoredPayoutRun[]> {
  const rows = await db('payout_runs')
    .whereIn('status', ['creating', 'sending'])
    .andWhere('created_at', '<', before)
    .orderBy('id')
    .limit(limit)
    .select<PayoutRunRow[]>('*');
  return rows.map(toRun);
}

/** What a run made: its payouts' total and count (the figures `closeCreating` records). */
export async function payoutTotalsOfRun(db: Db | Trx, runId: number): Promise<{ cents: number; count: number }> {
  const [row] = await db('payouts')
    .where({ payout_run_id: runId })
    .select<{ cents: number | string | null; n: number | string }[]>(
      db.raw('SUM(amount_cents) AS cents'),
      db.raw('COUNT(*) AS n'),
    );
  return { cents: Number(row?.cents ?? 0), count: Number(row?.n ?? 0) };
}
