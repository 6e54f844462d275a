import type { Trx } from '../../db/knex.js';
import {
  affiliatesByIds,
  type BillingAffiliate,
  bindCustomer,
  boundAffiliate,
} from '../../repositories/billingLedger.js';
import { couponOwners, couponKey } from '../../repositories/coupons.js';
import { findAffiliatesByReferralKeys } from '../../repositories/events.js';
import type { Attribution, BillingProvider } from './events.js';

/** Who a payment counts for, and how that was decided. */
export type Attributed =
  | { found: true; affiliate: BillingAffiliate; by: 'referral' | 'coupon' | 'customer' }
  | { found: false; reason: 'unknown_affiliate' | 'unattributed' };

/**
 * The contract's order, first match wins (docs/integrations.md): a referral code of the
 * payment, then a coupon of an affiliate, then the affiliate the customer is bound to. A
 * referral code that is no affiliate's of this campaign is passed over, as in `/v1/events`.
 */
export async function attributePayment(
  trx: Trx,
  campaignId: number,
  provider: BillingProvider,
  attribution: Attribution,
): Promise<Attributed> {
  const codes = attribution.referralCodes.map((code) => code.toUpperCase());
  if (codes.length > 0) {
    const targets = await findAffiliatesByReferralKeys(trx, codes);
    for (const code of codes) {
      const affiliate = targets.find((target) => target.referralKey === code && target.campaignId === campaignId);
      if (affiliate) return { found: true, affiliate, by: 'referral' };
    }
  }
  let affiliateId: number | undefined;
  let by: 'coupon' | 'customer' = 'coupon';
  if (attribution.couponCodes.length > 0) {
    const owners = await couponOwners(trx, campaignId, attribution.couponCodes);
    affiliateId = attribution.couponCodes.map((code) => owners.get(couponKey(code))).find((id) => id !== undefined);
  }
  if (affiliateId === undefined && attribution.customerId !== null) {
    affiliateId = await boundAffiliate(trx, campaignId, provider, attribution.customerId);
    by = 'customer';
  }
  const [affiliate] = affiliateId === undefined ? [] : await affiliatesByIds(trx, campaignId, [affiliateId]);
  if (affiliate) return { found: true, affiliate, by };
  return { found: false, reason: codes.length > 0 ? 'unknown_affiliate' : 'unattributed' };
}

/**
 * A payment attributed by its code or coupon binds its customer to that affiliate, unless an
 * earlier event bound it (the first binding wins): that is what lets renewals earn. Answers
 * whether the customer is now bound to this affiliate.
 */
export async function bindAttributedCustomer(
  trx: Trx,
  campaignId: number,
  provider: BillingProvider,
  customerId: string | null,
  attributed: Attributed,
  at: Date,
): Promise<boolean> {
  if (customerId === null || !attributed.found || attributed.by === 'customer') return false;
  return bindCustomer(trx, { campaignId, provider, customerId, affiliateId: attributed.affiliate.id, at });
}
