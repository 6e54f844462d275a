import type { Knex } from 'knex';
import { fromCents } from '../../shared/money.js';
import type { Conversion, ConversionStatus, SettableConversionStatus } from '../../shared/schemas/conversion.js';
import { chunks, inChunks } from '../db/bulk.js';
import { type Db, engineOf, type Trx } from '../db/knex.js';
import { countRows, newestFirstPage } from '../db/pages.js';
import { type ConversionRow, toIso } from '../db/rows.js';

/** A conversion with its affiliate's referral code: what the API shows. */
type ConversionView = Pick<
  ConversionRow,
  | 'id'
  | 'campaign_id'
  | 'affiliate_id'
  | 'order_id'
  | 'order_value_cents'
  | 'commission_cents'
  | 'status'
  | 'payout_id'
  | 'properties'
  | 'occurred_at'
  | 'created_at'
  | 'refunded_at'
  | 'refund_reason'
> & { referral_id: string };

/** Enough of a conversion to judge a transition, and to claw its commission back. */
export interface ConversionState {
  id: number;
  affiliateId: number;
  status: ConversionRow['status'];
  payoutId: number | null;
  commissionCents: number;
}

const STATE_COLUMNS = ['id', 'affiliate_id', 'status', 'payout_id', 'commission_cents'] as const;
type StateRow = Pick<ConversionRow, (typeof STATE_COLUMNS)[number]>;

function toState(row: StateRow): ConversionState {
  return {
    id: Number(row.id),
    affiliateId: Number(row.affiliate_id),
    status: row.status,
    payoutId: row.payout_id === null ? null : Number(row.payout_id),
    commissionCents: Number(row.commission_cents),
  };
}

const COLUMNS = [
  'c.id',
  'c.campaign_id',
  'c.affiliate_id',
  'a.referral_id',
  'c.order_id',
  'c.order_value_cents',
  'c.commission_cents',
  'c.status',
  'c.payout_id',
  'c.properties',
  'c.occurred_at',
  'c.created_at',
  'c.refunded_at',
  'c.refund_reason',
];

/** The one mapping of a stored conversion to the API's (answers and webhooks alike). */
function toConversion(row: ConversionView): Conversion {
  return {
    id: Number(row.id),
    affiliateId: Number(row.affiliate_id),
    referralId: row.referral_id,
    orderId: row.order_id,
    orderValue: fromCents(row.order_value_cents),
    commission: fromCents(row.commission_cents),
    status: row.status,
    payoutId: row.payout_id === null ? null : Number(row.payout_id),
    occurredAt: toIso(row.occurred_at),
    createdAt: toIso(row.created_at),
    refundedAt: row.refunded_at === null ? null : toIso(row.refunded_at),
    refundReason: row.refund_reason,
    properties: row.properties === null ? null : (JSON.parse(row.properties) as Record<string, unknown>),
  };
}

function withAffiliate(db: Db | Trx) {
  return db('conversions as c').join('affiliates as a', 'a.id', 'c.affiliate_id');
}

/**
 * The statuses a conversion may leave for `to` by hand (spec §10.9): `pending → approved`,
 * `pending → rejected`, `approved → rejected` while in no payout. The services judge the same
 * rule in code (conversionRules.ts); this is its SQL, the condition of every conditional update.
 */
function whereMayBecome(query: Knex.QueryBuilder, to: SettableConversionStatus): Knex.QueryBuilder {
  if (to === 'approved') return query.where('status', 'pending');
  return query.where((q) =>
    q.where('status', 'pending').orWhere((approved) => approved.where('status', 'approved').whereNull('payout_id')),
  );
}

export async function findConversion(db: Db | Trx, campaignId: number, id: number): Promise<Conversion | undefined> {
  const row = await withAffiliate(db)
    .where({ 'c.campaign_id': campaignId, 'c.id': id })
    .first<ConversionView | undefined>(COLUMNS);
  return row && toConversion(row);
}

export async function findConversions(db: Db | Trx, campaignId: number, ids: readonly number[]): Promise<Conversion[]> {
  const rows = await inChunks(ids, (part) =>
    withAffiliate(db).where('c.campaign_id', campaignId).whereIn('c.id', part).select<ConversionView[]>(COLUMNS),
  );
  return rows.map(toConversion);
}

/** Conversions of a campaign by order id (unique per campaign), in id order. */
export async function findConversionsByOrderIds(
  db: Db | Trx,
  campaignId: number,
  orderIds: readonly string[],
): Promise<Conversion[]> {
  const rows = await inChunks(orderIds, (part) =>
    withAffiliate(db).where('c.campaign_id', campaignId).whereIn('c.order_id', part).select<ConversionView[]>(COLUMNS),
  );
  return rows.map(toConversion).sort((a, b) => a.id - b.id);
}

export async function listConversions(
  db: Db,
  campaignId: number,
  filter: {
    status?: ConversionStatus;
    affiliateId?: number;
    orderId?: string;
    /** createdAt on or after. */
    from?: Date;
    /** createdAt before (the end of the range, exclusive). */
    before?: Date;
    page: number;
    limit: number;
  },
): Promise<{ conversions: Conversion[]; total: number }> {
  const base = db('conversions as c').where('c.campaign_id', campaignId);
  if (filter.status) base.andWhere('c.status', filter.status);
  if (filter.affiliateId !== undefined) base.andWhere('c.affiliate_id', filter.affiliateId);
  if (filter.orderId !== undefined) base.andWhere('c.order_id', filter.orderId);
  if (filter.from) base.andWhere('c.created_at', '>=', filter.from);
  if (filter.before) base.andWhere('c.created_at', '<', filter.before);
  const page = base.clone().join('affiliates as a', 'a.id', 'c.affiliate_id');
  const [total, rows] = await Promise.all([
    countRows(base.clone()),
    newestFirstPage(page, 'c.', filter).select<ConversionView[]>(COLUMNS),
  ]);
  return { conversions: rows.map(toConversion), total };
}

/** Row locks (MySQL; SQLite has one writer at a time) on the campaign's conversions among `ids`. */
export async function lockConversions(
  trx: Trx,
  campaignId: number,
  ids: readonly number[],
): Promise<ConversionState[]> {
  const rows = await inChunks(ids, (part) =>
    trx('conversions')
      .where('campaign_id', campaignId)
      .whereIn('id', part)
      .forUpdate()
      .select<StateRow[]>(...STATE_COLUMNS),
  );
  return rows.map(toState);
}

export async function lockConversionByOrder(
  trx: Trx,
  campaignId: number,
  orderId: string,
): Promise<ConversionState | undefined> {
  const row = await trx('conversions')
    .where({ campaign_id: campaignId, order_id: orderId })
    .forUpdate()
    .first<StateRow | undefined>(...STATE_COLUMNS);
  return row && toState(row);
}

/** A conditional UPDATE (one per CHUNK ids): only rows that may still make the move change (spec §10.9). */
export async function moveConversions(
  trx: Trx,
  campaignId: number,
  ids: readonly number[],
  to: SettableConversionStatus,
  now: Date,
): Promise<number> {
  let changed = 0;
  for (const part of chunks(ids)) {
    const query = trx('conversions').where('campaign_id', campaignId).whereIn('id', part);
    changed += await whereMayBecome(query, to).update({ status: to, updated_at: now });
  }
  return changed;
}

/**
 * A refund: the conversion becomes rejected, on condition that it is still as it was read
 * under the row lock (status and payout), so even an engine without row locks changes it once.
 */
export async function markRefunded(
  trx: Trx,
  conversion: ConversionState,
  refund: { at: Date; reason: string | null },
): Promise<number> {
  const query = trx('conversions').where({ id: conversion.id, status: conversion.status });
  if (conversion.payoutId === null) query.whereNull('payout_id');
  else query.where('payout_id', conversion.payoutId);
  return query.update({
    status: 'rejected',
    refunded_at: refund.at,
    refund_reason: refund.reason,
    updated_at: refund.at,
  });
}

/**
 * Pending conversions of a campaign that arrived before `cutoff`, oldest first, locked. On MySQL
 * SKIP LOCKED lets several daemons share the work without waiting on one another.
 */
export async function lockPendingBefore(
  trx: Trx,
  campaignId: number,
  options: { before?: Date; affiliateId?: number; limit: number },
): Promise<number[]> {
  const query = trx('conversions').where({ campaign_id: campaignId, status: 'pending' });
  if (options.before) query.andWhere('created_at', '<', options.before);
  if (options.affiliateId !== undefined) query.andWhere('affiliate_id', options.affiliateId);
  query
    .orderBy([
      { column: 'created_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .limit(options.limit)
    .forUpdate();
  if (engineOf(trx) === 'mysql') query.skipLocked();
  const rows = await query.select<{ id: number }[]>('id');
  return rows.map((row) => Number(row.id));
}

export async function countPendingBefore(
  db: Db | Trx,
  campaignId: number,
  options: { before?: Date; affiliateId?: number },
): Promise<number> {
  const query = db('conversions').where({ campaign_id: campaignId, status: 'pending' });
  if (options.before) query.andWhere('created_at', '<', options.before);
  if (options.affiliateId !== undefined) query.andWhere('affiliate_id', options.affiliateId);
  const [row] = await query.count<{ n: number | string }[]>({ n: '*' });
  return Number(row?.n ?? 0);
}
