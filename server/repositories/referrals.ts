import type { Db, Trx } from '../db/knex.js';
import type { AffiliateRow } from '../db/rows.js';

export interface ReferralInCampaign {
  cookieDays: number;
  /** Null when no affiliate of the campaign has the code. */
  referralId: string | null;
  status: AffiliateRow['status'] | null;
}

interface ReferralRow {
  cookie_days: number;
  referral_id: string | null;
  status: AffiliateRow['status'] | null;
}

/**
 * A campaign by public id, with the affiliate of that campaign holding the code (upper-cased:
 * codes are unique on that form, spec §10.3). Undefined when the campaign does not exist.
 * One query: the unique indexes on `public_id` and `referral_key` serve both sides.
 */
export async function findReferralInCampaign(
  db: Db | Trx,
  publicId: string,
  referralKey: string,
): Promise<ReferralInCampaign | undefined> {
  const row = await db('campaigns as c')
    .leftJoin('affiliates as a', (join) => {
      join.on('a.campaign_id', '=', 'c.id').andOn('a.referral_key', '=', db.raw('?', [referralKey]));
    })
    .where('c.public_id', publicId)
    .first<ReferralRow | undefined>('c.cookie_days', 'a.referral_id', 'a.status');
  return row && { cookieDays: Number(row.cookie_days), referralId: row.referral_id, status: row.status };
}
