import { MESSAGES } from '../../shared/errors.js';
import type { CouponList, CreateCouponInput } from '../../shared/schemas/integration.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { findAffiliate } from '../repositories/affiliates.js';
import { type Coupon, deleteCoupon, insertCoupon, listCoupons } from '../repositories/coupons.js';
import { UniqueConflict } from '../repositories/uniqueConflict.js';
import { inTransaction } from '../db/knex.js';
import { type AuditChange, recordAudit } from './audit.js';
import type { ServiceDeps } from './deps.js';

export interface CouponService {
  list(campaignId: number, affiliateId: number): Promise<CouponList>;
  create(campaignId: number, affiliateId: number, input: CreateCouponInput): Promise<Coupon>;
  remove(campaignId: number, affiliateId: number, code: string): Promise<void>;
}

/**
 * An affiliate's coupons (docs/integrations.md): a payment that used one is the affiliate's.
 * Codes are unique per campaign whatever the case (a unique index decides), and go with their
 * affiliate when it is deleted (spec §4.5.1).
 */
/** A coupon's code may be a person's name (an influencer's): the audit log names its affiliate instead. */
function couponChange(campaignId: number, action: 'coupon.create' | 'coupon.delete', affiliateId: number): AuditChange {
  return { campaignId, action, targetId: null, fields: ['code'], figures: { affiliateId } };
}

export function couponService({ db, now }: ServiceDeps): CouponService {
  async function affiliateOf(campaignId: number, affiliateId: number): Promise<void> {
    if (!(await findAffiliate(db, campaignId, affiliateId))) throw new NotFoundError(MESSAGES.affiliateNotFound);
  }

  return {
    async list(campaignId, affiliateId) {
      await affiliateOf(campaignId, affiliateId);
      return { coupons: await listCoupons(db, campaignId, affiliateId) };
    },

    async create(campaignId, affiliateId, input) {
      await affiliateOf(campaignId, affiliateId);
      try {
        return await inTransaction(db, async (trx) => {
          const coupon = await insertCoupon(trx, { campaignId, affiliateId, code: input.code, createdAt: now() });
          // Deleted between the check and the insert: as if it never existed.
          if (!coupon) throw new NotFoundError(MESSAGES.affiliateNotFound);
          await recordAudit(trx, now(), [couponChange(campaignId, 'coupon.create', affiliateId)]);
          return coupon;
        });
      } catch (err) {
        if (err instanceof UniqueConflict) throw new ConflictError(MESSAGES.couponTaken);
        throw err;
      }
    },

    async remove(campaignId, affiliateId, code) {
      await affiliateOf(campaignId, affiliateId);
      await inTransaction(db, async (trx) => {
        if ((await deleteCoupon(trx, campaignId, affiliateId, code)) === 0) {
          throw new NotFoundError(MESSAGES.couponNotFound);
        }
        await recordAudit(trx, now(), [couponChange(campaignId, 'coupon.delete', affiliateId)]);
      });
    },
  };
}
