import type { ReferralLookup } from '../../shared/schemas/sdk.js';
import { CAMPAIGN_UNKNOWN } from '../../shared/schemas/event.js';
import type { Db } from '../db/knex.js';
import { ValidationError } from '../errors.js';
import { findReferralInCampaign } from '../repositories/referrals.js';

/** What a referral code can look like (product §3.3); anything else is no code at all. */
const REFERRAL_CODE = /^[A-Za-z0-9]{2,32}$/;

/**
 * `GET /v1/sdk/referrals/{code}?campaign=PUBLIC_ID`, asked by the tracking script before it
 * stores a code: only an active affiliate's code is kept in the visitor's cookie, for the
 * campaign's `cookieDays`. Unknown and inactive codes get the same answer, so the key-less
 * route says no more about an affiliate than "this link does not count".
 */
export async function lookUpReferral(db: Db, code: string, publicId: string): Promise<ReferralLookup> {
  const key = REFERRAL_CODE.test(code) ? code.toUpperCase() : '';
  const found = await findReferralInCampaign(db, publicId, key);
  if (!found) throw new ValidationError([`campaign ${CAMPAIGN_UNKNOWN}`]);
  const active = found.status === 'active' && found.referral_id !== null;
  return { referralId: active ? found.referral_id : null, active, cookieDays: found.cookie_days };
}
