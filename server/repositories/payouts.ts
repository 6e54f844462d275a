import type { PayoutMethod } from '../../shared/payoutDetails.js';
import { fromCents } from '../../shared/money.js';
import type { Payout, PayoutStatus } from '../../shared/schemas/payout.js';
import { inChunks } from '../db/bulk.js';
import type { Db, Trx } from '../db/knex.js';
import { countRows, newestFirstPage } from '../db/pages.js';
import { type DbDate, type PayoutRow, toIso } from '../db/rows.js';

/** A payout with its affiliate's name and e-mail: what the API shows. */
type PayoutView = PayoutRow & {
  affiliate_name: string | null;
  affiliate_email: string;
  payout_method: PayoutMethod | null;
  pix_key_type: 'cpf' | 'cnpj' | 'email' | 'phone' | 'random' | null;
  payout_account: string | null;
  currency: string;
};

const COLUMNS = [
  'p.id',
  'p.campaign_id',
  'p.affiliate_id',
  'a.name as affiliate_name',
  'a.email as affiliate_email',
  'a.payout_method',
  'a.pix_key_type',
  'a.payout_account',
  'p.amount_cents',
  'p.commission_cents',
  'p.clawback_cents',
  'p.status',
  'p.created_at',
  'p.paid_at',
  'p.failed_at',
  'p.rail',
  'p.reference',
  'p.receipt',
  'p.failure_reason',
  'c.currency',
];

function toPayout(row: PayoutView, conversionIds: number[]): Payout {
  const at = (value: DbDate | null) => (value === null ? null : toIso(value));
  return {
    id: Number(row.id),
    affiliateId: Number(row.affiliate_id),
    affiliateName: row.affiliate_name,
    affiliateEmail: row.affiliate_email,
    payoutMethod: row.payout_method,
    pixKeyType: row.payout_method === 'pix' ? row.pix_key_type : null,
    payoutAccount: row.payout_account,
    amount: fromCents(row.amount_cents),
    commissionAmount: fromCents(row.commission_cents),
    clawbackAmount: fromCents(row.clawback_cents),
    currency: row.currency,
    status: row.status,
    conversionIds,
    createdAt: toIso(row.created_at),
    paidAt: at(row.paid_at),
    failedAt: at(row.failed_at),
    rail: row.rail ?? null,
    reference: row.reference ?? null,
    receipt: row.receipt ?? null,
    failureReason: row.failure_reason ?? null,
  };
}

function withAffiliate(db: Db | Trx) {
  return db('payouts as p')
    .join('affiliates as a', 'a.id', 'p.affiliate_id')
    .join('campaigns as c', 'c.id', 'p.campaign_id');
}

/** The payout with the conversions it covers, as the API shows it. */
export async function findPayout(db: Db | Trx, campaignId: number, id: number): Promise<Payout | undefined> {
  const row = await withAffiliate(db)
    .where({ 'p.campaign_id': campaignId, 'p.id': id })
    .first<PayoutView | undefined>(COLUMNS);
  return row && toPayout(row, (await conversionIdsOf(db, [id])).get(id) ?? []);
}

export async function listPayouts(
  db: Db,
  campaignId: number,
  filter: { affiliateId?: number; status?: PayoutStatus; page: number; limit: number },
): Promise<{ payouts: Payout[]; total: number }> {
  const base = db('payouts as p').where('p.campaign_id', campaignId);
  if (filter.affiliateId !== undefined) base.andWhere('p.affiliate_id', filter.affiliateId);
  if (filter.status) base.andWhere('p.status', filter.status);
  const page = base
    .clone()
    .join('affiliates as a', 'a.id', 'p.affiliate_id')
    .join('campaigns as c', 'c.id', 'p.campaign_id');
  const [total, rows] = await Promise.all([
    countRows(base.clone()),
    newestFirstPage(page, 'p.', filter).select<PayoutView[]>(COLUMNS),
  ]);
  const ids = await conversionIdsOf(
    db,
    rows.map((row) => Number(row.id)),
  );
  return { payouts: rows.map((row) => toPayout(row, ids.get(Number(row.id)) ?? [])), total };
}

/** The conversions each payout covered (kept after a failed payout released them), ascending. */
async function conversionIdsOf(db: Db | Trx, payoutIds: readonly number[]): Promise<Map<number, number[]>> {
  const ids = new Map<number, number[]>(payoutIds.map((id) => [id, []]));
  const rows = await inChunks(payoutIds, (part) =>
    db('payout_conversions')
      .whereIn('payout_id', part)
      .orderBy(['payout_id', 'conversion_id'])
      .select<{ payout_id: number; conversion_id: number }[]>('payout_id', 'conversion_id'),
  );
  for (const row of rows) ids.get(Number(row.payout_id))?.push(Number(row.conversion_id));
  return ids;
}

/** A payout of nothing yet: `takeApprovedConversions` and `setPayoutAmounts` fill it. */
export async function insertPendingPayout(
  trx: Trx,
  payout: { campaignId: number; affiliateId: number; createdAt: Date; payoutRunId?: number },
): Promise<number> {
  const [id] = await trx('payouts').insert({
    ...(payout.payoutRunId === undefined ? {} : { payout_run_id: payout.payoutRunId }),
    campaign_id: payout.campaignId,
    affiliate_id: payout.affiliateId,
    created_at: payout.createdAt,
    amount_cents: 0,
    commission_cents: 0,
    clawback_cents: 0,
    status: 'pending',
    paid_at: null,
    failed_at: null,
  });
  return Number(id);
}

/**
 * Puts every approved conversion of the affiliate that is in no payout into this one: one
 * conditional UPDATE, so two payouts made at once can never both take a conversion, and a
 * concurrent reject either happens first (the conversion is not taken) or fails (it is taken).
 * Answers the sum of the commissions taken, in centavos.
 */
export async function takeApprovedConversions(
  trx: Trx,
  campaignId: number,
  affiliateId: number,
  payoutId: number,
  now: Date,
): Promise<{ count: number; commissionCents: number }> {
  const count = await trx('conversions')
    .where({ campaign_id: campaignId, affiliate_id: affiliateId, status: 'approved' })
    .whereNull('payout_id')
    .update({ payout_id: payoutId, updated_at: now });
  if (count === 0) return { count, commissionCents: 0 };
  await trx.raw(
    'INSERT INTO payout_conversions (payout_id, conversion_id) SELECT ?, id FROM conversions WHERE payout_id = ?',
    [payoutId, payoutId],
  );
  const [row] = await trx('conversions')
    .where('payout_id', payoutId)
    .sum<{ cents: number | string | null }[]>({ cents: 'commission_cents' });
  return { count, commissionCents: Number(row?.cents ?? 0) };
}

export async function setPayoutAmounts(
  trx: Trx,
  payoutId: number,
  cents: { commission: number; clawback: number },
): Promise<void> {
  await trx('payouts')
    .where('id', payoutId)
    .update({
      commission_cents: cents.commission,
      clawback_cents: cents.clawback,
      amount_cents: cents.commission - cents.clawback,
    });
}

/** `pending → paid | failed`, one conditional UPDATE (docs/payouts.md). */
export async function settlePayout(
  trx: Trx,
  campaignId: number,
  id: number,
  to: 'paid' | 'failed',
  now: Date,
): Promise<boolean> {
  const changed = await trx('payouts')
    .where({ campaign_id: campaignId, id, status: 'pending' })
    .update({ status: to, ...(to === 'paid' ? { paid_at: now } : { failed_at: now }) });
  return changed > 0;
}

/** A paid payout: its conversions still approved become paid (a refunded one stays rejected). */
export async function markConversionsPaid(trx: Trx, payoutId: number, now: Date): Promise<number[]> {
  await trx('conversions')
    .where({ payout_id: payoutId, status: 'approved' })
    .update({ status: 'paid', updated_at: now });
  const rows = await trx('conversions').where({ payout_id: payoutId, status: 'paid' }).select<{ id: number }[]>('id');
  return rows.map((row) => Number(row.id));
}

/** A failed payout lets its conversions go, for a later payout. */
export async function releaseConversions(trx: Trx, payoutId: number, now: Date): Promise<void> {
  await trx('conversions').where('payout_id', payoutId).update({ payout_id: null, updated_at: now });
}

/** Affiliates with approved commission in no payout: who `payouts create --all` pays. */
export async function payableAffiliateIds(db: Db, campaignId: number): Promise<number[]> {
  const rows = await db('conversions')
    .where({ campaign_id: campaignId, status: 'approved' })
    .whereNull('payout_id')
    .distinct<{ affiliate_id: number }[]>('affiliate_id')
    .orderBy('affiliate_id');
  return rows.map((row) => Number(row.affiliate_id));
}

/**
 * `pending → processing`: the intent to send, one conditional UPDATE, so two sends of one payout
 * (two daemons, a double click) commit one intent; the loser changes nothing.
 */
export async function startProcessing(
  trx: Trx,
  campaignId: number,
  id: number,
  sent: { rail: 'pix' | 'paypal' | 'stripe'; reference: string; now: Date },
): Promise<boolean> {
  const changed = await trx('payouts')
    .where({ campaign_id: campaignId, id, status: 'pending' })
    .update({ status: 'processing', rail: sent.rail, reference: sent.reference, sent_at: sent.now });
  return changed > 0;
}

/**
 * `processing → paid | failed` on the provider's word: one conditional UPDATE, so a callback and
 * a poll (or two daemons) that learn the same outcome settle it once; the later one changes nothing.
 */
export async function settleSentPayout(
  trx: Trx,
  campaignId: number,
  id: number,
  outcome: { to: 'paid'; receipt: string } | { to: 'failed'; reason: string },
  now: Date,
): Promise<boolean> {
  const changed = await trx('payouts')
    .where({ campaign_id: campaignId, id, status: 'processing' })
    .update(
      outcome.to === 'paid'
        ? { status: 'paid', paid_at: now, receipt: outcome.receipt.slice(0, 255) }
        : { status: 'failed', failed_at: now, failure_reason: outcome.reason.slice(0, 500) },
    );
  return changed > 0;
}

/** The payout a provider's reference names, in its campaign. */
export async function payoutIdByReference(
  db: Db | Trx,
  campaignId: number,
  reference: string,
): Promise<number | undefined> {
  const row = await db('payouts').where({ campaign_id: campaignId, reference }).first<{ id: number } | undefined>('id');
  return row && Number(row.id);
}

/** A payout's status alone (undefined when there is no such payout in the campaign). */
export async function payoutStatusOf(db: Db | Trx, campaignId: number, id: number): Promise<PayoutStatus | undefined> {
  const row = await db('payouts')
    .where({ campaign_id: campaignId, id })
    .first<{ status: PayoutStatus } | undefined>('status');
  return row?.status;
}
