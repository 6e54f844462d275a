import type { AffiliateCouponRow } from '../db/billingRows.js';
import { inChunks } from '../db/bulk.js';
import type { Db, Trx } from '../db/knex.js';
import { toIso } from '../db/rows.js';
import { conflictsAs } from './uniqueConflict.js';

export interface Coupon {
  code: string;
  createdAt: string;
}

/** The form codes are unique and matched on: upper case. */
export const couponKey = (code: string) => code.toUpperCase();

/** A foreign key that names no row: the affiliate was deleted meanwhile. */
const isMissingParent = (err: unknown) => {
  const code = (err as { code?: string } | undefined)?.code;
  return code === 'ER_NO_REFERENCED_ROW_2' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
};

/**
 * A new coupon of an affiliate; UniqueConflict `couponCode` when the campaign has it already (any
 * case); undefined when the affiliate is gone.
 */
export async function insertCoupon(
  db: Db | Trx,
  coupon: { campaignId: number; affiliateId: number; code: string; createdAt: Date },
): Promise<Coupon | undefined> {
  try {
    await conflictsAs({ code_key: 'couponCode' }, () =>
      db('affiliate_coupons').insert({
        campaign_id: coupon.campaignId,
        affiliate_id: coupon.affiliateId,
        code: coupon.code,
        code_key: couponKey(coupon.code),
        created_at: coupon.createdAt,
      }),
    );
  } catch (err) {
    if (isMissingParent(err)) return undefined;
    throw err;
  }
  return { code: coupon.code, createdAt: coupon.createdAt.toISOString() };
}

export async function listCoupons(db: Db | Trx, campaignId: number, affiliateId: number): Promise<Coupon[]> {
  const rows = await db<AffiliateCouponRow>('affiliate_coupons')
    .where({ campaign_id: campaignId, affiliate_id: affiliateId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select('code', 'created_at');
  return rows.map((row) => ({ code: row.code, createdAt: toIso(row.created_at) }));
}

export async function deleteCoupon(
  db: Db | Trx,
  campaignId: number,
  affiliateId: number,
  code: string,
): Promise<number> {
  return db('affiliate_coupons')
    .where({ campaign_id: campaignId, affiliate_id: affiliateId, code_key: couponKey(code) })
    .delete();
}

/** The affiliate of each of these codes that the campaign has, by upper-cased code. */
export async function couponOwners(
  trx: Trx,
  campaignId: number,
  codes: readonly string[],
): Promise<Map<string, number>> {
  const rows = await inChunks(codes.map(couponKey), (part) =>
    trx<AffiliateCouponRow>('affiliate_coupons')
      .where('campaign_id', campaignId)
      .whereIn('code_key', part)
      .select('code_key', 'affiliate_id'),
  );
  return new Map(rows.map((row) => [row.code_key, Number(row.affiliate_id)]));
}
