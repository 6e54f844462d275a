import type { Trx } from '../db/knex.js';

/** What deleting an affiliate erases with it (spec §4.5 cascades), as figures without personal data. */
export interface AffiliateErasure {
  conversions: number;
  paidPayouts: number;
  /** Hundredths of the campaign's currency. */
  paidPayoutsTotal: number;
}

/** Read in the deletion's transaction, after the affiliate's row is locked, so it is what goes. */
export async function erasureOf(trx: Trx, campaignId: number, affiliateId: number): Promise<AffiliateErasure> {
  // One after the other: a transaction is one connection.
  const conversions = await trx('conversions')
    .where({ campaign_id: campaignId, affiliate_id: affiliateId })
    .count<{ n: number | string }[]>({ n: '*' });
  const paid = await trx('payouts')
    .where({ campaign_id: campaignId, affiliate_id: affiliateId, status: 'paid' })
    .select<{ n: number | string; total: number | string | null }[]>(
      trx.raw('COUNT(*) AS n'),
      trx.raw('COALESCE(SUM(amount_cents), 0) AS total'),
    );
  return {
    conversions: Number(conversions[0]?.n ?? 0),
    paidPayouts: Number(paid[0]?.n ?? 0),
    paidPayoutsTotal: Number(paid[0]?.total ?? 0),
  };
}
