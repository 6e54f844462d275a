import type { Knex } from 'knex';
import { fromCents } from '../../shared/money.js';
import type { Clawback, ClawbackStatus } from '../../shared/schemas/clawback.js';
import { chunks } from '../db/bulk.js';
import type { Db, Trx } from '../db/knex.js';
import { countRows, newestFirstPage } from '../db/pages.js';
import { type ClawbackRow, type DbDate, toIso } from '../db/rows.js';

/** A refunded conversion's commission, owed back once the payout it sat in is paid. */
export interface NewClawback {
  campaignId: number;
  affiliateId: number;
  conversionId: number;
  /** The payout the conversion sat in. */
  sourcePayoutId: number;
  amountCents: number;
  reason: string | null;
  /** The refund that removed the commission; null when its sale was rejected by hand. */
  refundId: number | null;
  createdAt: Date;
}

/**
 * One clawback per refund and conversion (a unique index), whatever races: a refund claws back
 * what it removed of each conversion it changed (its sale's and the second-tier one).
 */
export async function insertClawback(trx: Trx, clawback: NewClawback): Promise<void> {
  const row: Omit<ClawbackRow, 'id'> = {
    campaign_id: clawback.campaignId,
    affiliate_id: clawback.affiliateId,
    conversion_id: clawback.conversionId,
    source_payout_id: clawback.sourcePayoutId,
    netted_payout_id: null,
    amount_cents: clawback.amountCents,
    reason: clawback.reason,
    refund_id: clawback.refundId,
    created_at: clawback.createdAt,
  };
  await trx('clawbacks').insert(row).onConflict(['refund_id', 'conversion_id']).ignore();
}

/**
 * Ids of the affiliate's clawbacks a new payout may net off: not netted by a live payout, and
 * owed, which means the payout that held the refunded conversion was paid (docs/payouts.md).
 * A plain read; `markNetted` is the conditional update that decides.
 */
export async function nettableClawbackIds(trx: Trx, affiliateId: number): Promise<number[]> {
  const rows = await trx('clawbacks as k')
    .join('payouts as source', 'source.id', 'k.source_payout_id')
    .where({ 'k.affiliate_id': affiliateId, 'source.status': 'paid' })
    .whereNull('k.netted_payout_id')
    .select<{ id: number }[]>('k.id');
  return rows.map((row) => Number(row.id));
}

/** Nets the clawbacks no other payout took meanwhile; answers the sum this payout took. */
export async function markNetted(trx: Trx, ids: readonly number[], payoutId: number): Promise<number> {
  for (const part of chunks(ids)) {
    await trx('clawbacks').whereIn('id', part).whereNull('netted_payout_id').update({ netted_payout_id: payoutId });
  }
  const [row] = await trx('clawbacks')
    .where('netted_payout_id', payoutId)
    .sum<{ cents: number | string | null }[]>({ cents: 'amount_cents' });
  return Number(row?.cents ?? 0);
}

/** A failed payout nets nothing: its clawbacks are unsettled again. */
export async function releaseNetted(trx: Trx, payoutId: number): Promise<void> {
  await trx('clawbacks').where('netted_payout_id', payoutId).update({ netted_payout_id: null });
}

/** The status of a clawback row, from the payout that held its commission and the one netting it. */
const STATUS_SQL = `CASE
  WHEN source.status = 'failed' THEN 'void'
  WHEN source.status = 'pending' THEN 'waiting'
  WHEN netted.status = 'paid' THEN 'settled'
  WHEN netted.status = 'pending' THEN 'netting'
  ELSE 'owed' END`;

/** Those of each status, as `STATUS_SQL` decides it. */
function whereStatus(query: Knex.QueryBuilder, status: ClawbackStatus): void {
  const wheres: Record<ClawbackStatus, () => void> = {
    void: () => query.where('source.status', 'failed'),
    waiting: () => query.where('source.status', 'pending'),
    settled: () => query.where('source.status', 'paid').where('netted.status', 'paid'),
    netting: () => query.where('source.status', 'paid').where('netted.status', 'pending'),
    owed: () => query.where('source.status', 'paid').whereNull('k.netted_payout_id'),
  };
  wheres[status]();
}

interface ClawbackView {
  id: number;
  affiliate_id: number;
  conversion_id: number;
  order_id: string;
  amount_cents: number | string;
  source_payout_id: number;
  netted_payout_id: number | null;
  status: ClawbackStatus;
  reason: string | null;
  created_at: DbDate;
}

const toClawback = (row: ClawbackView): Clawback => ({
  id: Number(row.id),
  affiliateId: Number(row.affiliate_id),
  conversionId: Number(row.conversion_id),
  orderId: row.order_id,
  amount: fromCents(Number(row.amount_cents)),
  currency: 'BRL',
  payoutId: Number(row.source_payout_id),
  nettedPayoutId: row.netted_payout_id === null ? null : Number(row.netted_payout_id),
  status: row.status,
  reason: row.reason,
  createdAt: toIso(row.created_at),
});

/**
 * The campaign's clawbacks, newest first (docs/payouts.md#refunds-and-clawbacks): every refund's,
 * full or partial, and those of the second-tier conversions that followed. `owedCents` sums the
 * filtered ones still owed back (not settled, not void), over every page.
 */
export async function listClawbacks(
  db: Db,
  campaignId: number,
  filter: { affiliateId?: number; conversionId?: number; status?: ClawbackStatus; page: number; limit: number },
): Promise<{ clawbacks: Clawback[]; total: number; owedCents: number }> {
  const base = db('clawbacks as k')
    .join('payouts as source', 'source.id', 'k.source_payout_id')
    .leftJoin('payouts as netted', 'netted.id', 'k.netted_payout_id')
    .where('k.campaign_id', campaignId);
  if (filter.affiliateId !== undefined) base.andWhere('k.affiliate_id', filter.affiliateId);
  if (filter.conversionId !== undefined) base.andWhere('k.conversion_id', filter.conversionId);
  if (filter.status !== undefined) whereStatus(base, filter.status);
  const owed = base
    .clone()
    .whereNot('source.status', 'failed')
    .where((q) => q.whereNull('netted.status').orWhereNot('netted.status', 'paid'))
    .sum<{ cents: number | string | null }[]>({ cents: 'k.amount_cents' });
  const page = newestFirstPage(base.clone().join('conversions as c', 'c.id', 'k.conversion_id'), 'k.', filter).select<
    ClawbackView[]
  >(
    'k.id',
    'k.affiliate_id',
    'k.conversion_id',
    'c.order_id',
    'k.amount_cents',
    'k.source_payout_id',
    'k.netted_payout_id',
    db.raw(`${STATUS_SQL} as status`),
    'k.reason',
    'k.created_at',
  );
  const [total, rows, [sum]] = await Promise.all([countRows(base.clone()), page, owed]);
  return { clawbacks: rows.map(toClawback), total, owedCents: Number(sum?.cents ?? 0) };
}
