import type { Knex } from 'knex';
import { fromCents, toCents } from '../../shared/money.js';
import type { CommissionRule } from '../../shared/schemas/commission.js';
import type {
  Conversion,
  ConversionFlag,
  ConversionKind,
  ConversionStatus,
  SettableConversionStatus,
} from '../../shared/schemas/conversion.js';
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
  | 'source_key'
  | 'source_conversion_id'
  | 'commission_rule'
  | 'flags'
  | 'refunded_value_cents'
> & { referral_id: string };

/**
 * Enough of a conversion to judge a transition, to lower its commission on a partial refund
 * (docs/commissions.md#partial-refunds) and to claw its commission back.
 */
export interface ConversionState {
  id: number;
  affiliateId: number;
  orderId: string;
  status: ConversionRow['status'];
  payoutId: number | null;
  commissionCents: number;
  orderValueCents: number;
  intakeCommissionCents: number;
  refundedValueCents: number;
  /** Set on a second-tier conversion whose sale still exists: it follows that sale. */
  sourceConversionId: number | null;
  /** The rule's value in hundredths: a second-tier conversion's percent of its sale's commission. */
  ruleHundredths: number;
}

const STATE_COLUMNS = [
  'id',
  'affiliate_id',
  'order_id',
  'status',
  'payout_id',
  'commission_cents',
  'order_value_cents',
  'intake_commission_cents',
  'refunded_value_cents',
  'source_conversion_id',
  'commission_rule',
] as const;
type StateRow = Pick<ConversionRow, (typeof STATE_COLUMNS)[number]>;

function toState(row: StateRow): ConversionState {
  return {
    id: Number(row.id),
    affiliateId: Number(row.affiliate_id),
    orderId: row.order_id,
    status: row.status,
    payoutId: row.payout_id === null ? null : Number(row.payout_id),
    commissionCents: Number(row.commission_cents),
    orderValueCents: Number(row.order_value_cents),
    intakeCommissionCents: Number(row.intake_commission_cents),
    refundedValueCents: Number(row.refunded_value_cents),
    sourceConversionId: row.source_conversion_id === null ? null : Number(row.source_conversion_id),
    ruleHundredths: toCents(ruleOf(row.commission_rule, 0).commissionValue),
  };
}

/** The stored explanation; a row from before it was kept says what its commission was. */
function ruleOf(text: string | null, commissionCents: number): CommissionRule {
  if (text !== null) return JSON.parse(text) as CommissionRule;
  return { source: 'campaign', commissionType: 'fixed', commissionValue: fromCents(commissionCents) };
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
  'c.source_key',
  'c.source_conversion_id',
  'c.commission_rule',
  'c.flags',
  'c.refunded_value_cents',
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
    kind: Number(row.source_key) === 0 ? 'sale' : 'second_tier',
    sourceConversionId: row.source_conversion_id === null ? null : Number(row.source_conversion_id),
    commissionRule: ruleOf(row.commission_rule, Number(row.commission_cents)),
    flags: row.flags === null ? [] : (JSON.parse(row.flags) as ConversionFlag[]),
    refundedAmount: fromCents(row.refunded_value_cents),
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
  // A second-tier conversion follows its sale, never a request of its own (docs/commissions.md).
  query.whereNull('source_conversion_id');
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

/** The sale of an order, as the API shows it (its second-tier conversion shares the order id). */
export async function findConversionByOrder(
  db: Db | Trx,
  campaignId: number,
  orderId: string,
): Promise<Conversion | undefined> {
  const row = await withAffiliate(db)
    .where({ 'c.campaign_id': campaignId, 'c.order_id': orderId, 'c.source_key': 0 })
    .first<ConversionView | undefined>(COLUMNS);
  return row && toConversion(row);
}

/** Conversions of a campaign by order id: each sale with its second-tier conversion, in id order. */
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
    payoutId?: number;
    /** createdAt on or after. */
    from?: Date;
    /** createdAt before (the end of the range, exclusive). */
    before?: Date;
    kind?: ConversionKind;
    flagged?: boolean;
    page: number;
    limit: number;
  },
): Promise<{ conversions: Conversion[]; total: number }> {
  const base = db('conversions as c').where('c.campaign_id', campaignId);
  if (filter.status) base.andWhere('c.status', filter.status);
  if (filter.affiliateId !== undefined) base.andWhere('c.affiliate_id', filter.affiliateId);
  if (filter.orderId !== undefined) base.andWhere('c.order_id', filter.orderId);
  if (filter.payoutId !== undefined) base.andWhere('c.payout_id', filter.payoutId);
  if (filter.from) base.andWhere('c.created_at', '>=', filter.from);
  if (filter.before) base.andWhere('c.created_at', '<', filter.before);
  if (filter.kind === 'sale') base.andWhere('c.source_key', 0);
  if (filter.kind === 'second_tier') base.andWhere('c.source_key', '>', 0);
  if (filter.flagged === true) base.whereNotNull('c.flags');
  if (filter.flagged === false) base.whereNull('c.flags');
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

/** The sale of an order (never its second-tier conversion, which carries the same order id), locked. */
export async function lockConversionByOrder(
  trx: Trx,
  campaignId: number,
  orderId: string,
): Promise<ConversionState | undefined> {
  const row = await trx('conversions')
    .where({ campaign_id: campaignId, order_id: orderId, source_key: 0 })
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

/** What a refund (or a change of its sale) makes of a conversion. */
export interface ConversionChange {
  status: ConversionRow['status'];
  commissionCents: number;
  refundedValueCents: number;
  at: Date;
  /** Set by a refund: when and why, kept on the conversion. */
  refund?: { reason: string | null };
}

/**
 * A conditional UPDATE: the conversion changes only if it is still as it was read (status,
 * payout, commission and refunded value), so two refunds at once never both lower it from the
 * same value, and a refund never overtakes a payout unseen. False when it had changed.
 */
export async function changeConversion(trx: Trx, state: ConversionState, change: ConversionChange): Promise<boolean> {
  const query = trx('conversions').where({
    id: state.id,
    status: state.status,
    commission_cents: state.commissionCents,
    refunded_value_cents: state.refundedValueCents,
  });
  if (state.payoutId === null) query.whereNull('payout_id');
  else query.where('payout_id', state.payoutId);
  const changed = await query.update({
    status: change.status,
    commission_cents: change.commissionCents,
    refunded_value_cents: change.refundedValueCents,
    updated_at: change.at,
    ...(change.refund && { refunded_at: change.at, refund_reason: change.refund.reason }),
  });
  return changed > 0;
}

/** The second-tier conversions that follow these sales, locked (MySQL) like the sales themselves. */
export async function lockFollowers(trx: Trx, sourceIds: readonly number[]): Promise<ConversionState[]> {
  const rows = await inChunks(sourceIds, (part) =>
    trx('conversions')
      .whereIn('source_conversion_id', part)
      .forUpdate()
      .select<StateRow[]>(...STATE_COLUMNS),
  );
  return rows.map(toState);
}

/** Followers still pending become approved with their sale (one conditional UPDATE per chunk). */
export async function approveFollowers(trx: Trx, ids: readonly number[], now: Date): Promise<number[]> {
  const moved: number[] = [];
  for (const part of chunks(ids)) {
    await trx('conversions')
      .whereIn('id', part)
      .where('status', 'pending')
      .update({ status: 'approved', updated_at: now });
    const rows = await trx('conversions')
      .whereIn('id', part)
      .where('status', 'approved')
      .select<{ id: number }[]>('id');
    moved.push(...rows.map((row) => Number(row.id)));
  }
  return moved;
}

/**
 * Pending conversions of a campaign that arrived before `cutoff`, oldest first, locked. On MySQL
 * SKIP LOCKED lets several daemons share the work without waiting on one another.
 */
export async function lockPendingBefore(
  trx: Trx,
  campaignId: number,
  options: { before?: Date; affiliateId?: number; unflagged?: boolean; limit: number },
): Promise<number[]> {
  // Sales only: a second-tier conversion moves with its sale.
  const query = trx('conversions').where({ campaign_id: campaignId, status: 'pending', source_key: 0 });
  if (options.unflagged) query.whereNull('flags');
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
  const query = db('conversions').where({ campaign_id: campaignId, status: 'pending', source_key: 0 });
  if (options.before) query.andWhere('created_at', '<', options.before);
  if (options.affiliateId !== undefined) query.andWhere('affiliate_id', options.affiliateId);
  const [row] = await query.count<{ n: number | string }[]>({ n: '*' });
  return Number(row?.n ?? 0);
}
