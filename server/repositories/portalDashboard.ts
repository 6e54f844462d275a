import type { ConversionStatus } from '../../shared/schemas/conversion.js';
import type { PayoutStatus } from '../../shared/schemas/payout.js';
import type { Db } from '../db/knex.js';
import { toDate } from '../db/rows.js';

/** One affiliate's numbers over a period: what the dashboard's figures show. Money in centavos. */
export interface AffiliateFigures {
  visits: number;
  leads: number;
  /** The affiliate's own sales (spec §2.1's totalConversions). */
  conversions: number;
  /** Rows the conversion list shows: the sales and the second-tier conversions on its children's sales. */
  listed: number;
  commissionCents: Record<'pending' | 'approved' | 'paid', number>;
}

/** `YYYY-MM-DD` of a UTC instant: the daily counters' key. */
const dayOf = (at: Date) => at.toISOString().slice(0, 10);

type Sales = Pick<AffiliateFigures, 'conversions' | 'listed' | 'commissionCents'>;

/** Counts a sale (source_key 0), not a parent's second-tier conversion, which only earns. */
const OWN_SALE = 'SUM(CASE WHEN source_key = 0 THEN 1 ELSE 0 END)';

/**
 * Conversions over a period, in one pass over the (affiliate_id, created_at, id, status,
 * commission_cents, source_key) index's range: the sums by status are CASEs rather than a GROUP
 * BY, which would tempt MySQL into the (affiliate_id, status, …) index and a row lookup per
 * conversion.
 */
async function salesSince(db: Db, affiliateId: number, since: Date): Promise<Sales> {
  const sum = (status: string) =>
    db.raw(`SUM(CASE WHEN status = ? THEN commission_cents ELSE 0 END) as ??`, [status, status]);
  const [row] = await db('conversions')
    .where('affiliate_id', affiliateId)
    .andWhere('created_at', '>=', since)
    .select<Record<string, number | string | null>[]>(
      db.raw('COUNT(*) as n'),
      db.raw(`${OWN_SALE} as sales`),
      sum('pending'),
      sum('approved'),
      sum('paid'),
    );
  return {
    conversions: Number(row?.sales ?? 0),
    listed: Number(row?.n ?? 0),
    commissionCents: {
      pending: Number(row?.pending ?? 0),
      approved: Number(row?.approved ?? 0),
      paid: Number(row?.paid ?? 0),
    },
  };
}

/** Every conversion of the affiliate, through (affiliate_id, status, source_key, commission_cents) alone. */
async function allSales(db: Db, affiliateId: number): Promise<Sales> {
  const rows = await db('conversions')
    .where('affiliate_id', affiliateId)
    .groupBy('status')
    .select<
      { status: ConversionStatus; n: number | string; sales: number | string | null; cents: number | string | null }[]
    >('status', db.raw('COUNT(*) as n'), db.raw(`${OWN_SALE} as sales`), db.raw('SUM(commission_cents) as cents'));
  const sales: Sales = { conversions: 0, listed: 0, commissionCents: { pending: 0, approved: 0, paid: 0 } };
  for (const row of rows) {
    sales.conversions += Number(row.sales ?? 0);
    sales.listed += Number(row.n);
    if (row.status !== 'rejected') sales.commissionCents[row.status] = Number(row.cents ?? 0);
  }
  return sales;
}

/**
 * Visits and leads from the daily counters (one row a day at most), conversions and their
 * commissions by status from indexes that hold what is summed, so no conversion row is read.
 */
export async function affiliateFigures(db: Db, affiliateId: number, since?: Date): Promise<AffiliateFigures> {
  const counters = db('affiliate_daily_stats').where('affiliate_id', affiliateId);
  if (since) counters.andWhere('day', '>=', dayOf(since));
  const [[counted], sales] = await Promise.all([
    counters.select<{ visits: number | string | null; leads: number | string | null }[]>(
      db.raw('SUM(page_views) as visits'),
      db.raw('SUM(leads) as leads'),
    ),
    since ? salesSince(db, affiliateId, since) : allSales(db, affiliateId),
  ]);
  return { visits: Number(counted?.visits ?? 0), leads: Number(counted?.leads ?? 0), ...sales };
}

export interface PortalConversion {
  id: number;
  orderId: string;
  orderValueCents: number;
  commissionCents: number;
  status: ConversionStatus;
  payoutId: number | null;
  /** A parent's share of a child's sale (the commission rules' second tier), not a sale of its own. */
  secondTier: boolean;
  createdAt: Date;
}

/** The columns a dashboard's conversion is read from, and their row. */
const CONVERSION_COLUMNS = [
  'id',
  'order_id',
  'order_value_cents',
  'commission_cents',
  'status',
  'payout_id',
  'source_key',
  'created_at',
] as const;

interface ConversionRow {
  id: number;
  order_id: string;
  order_value_cents: number | string;
  commission_cents: number | string;
  status: ConversionStatus;
  payout_id: number | null;
  source_key: number | string;
  created_at: Date | number;
}

function conversionOf(row: ConversionRow): PortalConversion {
  return {
    id: Number(row.id),
    orderId: row.order_id,
    orderValueCents: Number(row.order_value_cents),
    commissionCents: Number(row.commission_cents),
    status: row.status,
    payoutId: row.payout_id === null ? null : Number(row.payout_id),
    secondTier: Number(row.source_key) > 0,
    createdAt: toDate(row.created_at),
  };
}

/** A page of the affiliate's conversions, newest first (the figures already counted them all). */
export async function affiliateConversions(
  db: Db,
  affiliateId: number,
  page: { limit: number; offset: number },
): Promise<PortalConversion[]> {
  const rows = await db('conversions')
    .where('affiliate_id', affiliateId)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(page.limit)
    .offset(page.offset)
    .select<ConversionRow[]>(...CONVERSION_COLUMNS);
  return rows.map(conversionOf);
}

export interface PortalPayout {
  id: number;
  amountCents: number;
  commissionCents: number;
  clawbackCents: number;
  status: PayoutStatus;
  createdAt: Date;
  paidAt: Date | null;
  /** The rail a payout was sent on, the provider's receipt once paid, its reason once failed (docs/payouts.md#payout-rails). */
  rail: string | null;
  receipt: string | null;
  failureReason: string | null;
}

type PayoutRowRead = {
  id: number;
  amount_cents: number | string;
  commission_cents: number | string;
  clawback_cents: number | string;
  status: PayoutStatus;
  created_at: Date | number;
  paid_at: Date | number | null;
  rail: string | null;
  receipt: string | null;
  failure_reason: string | null;
};

const PAYOUT_COLUMNS = [
  'id',
  'amount_cents',
  'commission_cents',
  'clawback_cents',
  'status',
  'created_at',
  'paid_at',
  'rail',
  'receipt',
  'failure_reason',
];

function payoutOf(row: PayoutRowRead): PortalPayout {
  return {
    id: Number(row.id),
    amountCents: Number(row.amount_cents),
    commissionCents: Number(row.commission_cents),
    clawbackCents: Number(row.clawback_cents),
    status: row.status,
    createdAt: toDate(row.created_at),
    paidAt: row.paid_at === null ? null : toDate(row.paid_at),
    rail: row.rail ?? null,
    receipt: row.receipt ?? null,
    failureReason: row.failure_reason ?? null,
  };
}

/** The affiliate's latest payouts, newest first. */
export async function affiliatePayouts(db: Db, affiliateId: number, limit: number): Promise<PortalPayout[]> {
  const rows = await db('payouts')
    .where('affiliate_id', affiliateId)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit)
    .select<PayoutRowRead[]>(PAYOUT_COLUMNS);
  return rows.map(payoutOf);
}

/**
 * One payout of this affiliate (another's is not found), how many conversions it covered, and a
 * page of them (`page` may be past the last: the service clamps it once it knows the count).
 */
export async function affiliatePayout(
  db: Db,
  affiliateId: number,
  payoutId: number,
  page: (covered: number) => { limit: number; offset: number },
): Promise<{ payout: PortalPayout; covered: number; conversions: PortalConversion[] } | undefined> {
  const row = await db('payouts')
    .where({ id: payoutId, affiliate_id: affiliateId })
    .first<PayoutRowRead | undefined>(PAYOUT_COLUMNS);
  if (!row) return undefined;
  const coveredBy = () =>
    db('payout_conversions as pc')
      .join('conversions as c', 'c.id', 'pc.conversion_id')
      .where('pc.payout_id', payoutId)
      .andWhere('c.affiliate_id', affiliateId);
  const counted = await coveredBy().count<{ n: number | string }[]>({ n: '*' });
  const covered = Number(counted[0]?.n ?? 0);
  const { limit, offset } = page(covered);
  const rows = await coveredBy()
    .orderBy('c.id')
    .limit(limit)
    .offset(offset)
    .select<ConversionRow[]>(...CONVERSION_COLUMNS.map((column) => `c.${column}`));
  return { payout: payoutOf(row), covered, conversions: rows.map(conversionOf) };
}
