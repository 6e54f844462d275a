import type { AffiliateStatus } from '../../shared/schemas/affiliate.js';
import type { PayoutDetails } from '../../shared/payoutDetails.js';
import type { Db, Trx } from '../db/knex.js';

/** What a log-in needs of an affiliate, found by e-mail within its campaign. */
export interface LoginAccount {
  id: number;
  status: AffiliateStatus;
  passwordHash: string;
}

/** spec §10.4: e-mails compare trimmed and case-insensitively, through `email_key`. */
export async function findLoginAccount(db: Db, campaignId: number, email: string): Promise<LoginAccount | undefined> {
  const row = await db('affiliates')
    .where({ campaign_id: campaignId, email_key: email.trim().toLowerCase() })
    .first<{ id: number; status: AffiliateStatus; password_hash: string } | undefined>('id', 'status', 'password_hash');
  return row && { id: Number(row.id), status: row.status, passwordHash: row.password_hash };
}

/** The affiliate of a referral code within a campaign (a sign-up's `?ref=`), whatever the case. */
export async function findAffiliateIdByCode(db: Db, campaignId: number, code: string): Promise<number | undefined> {
  const row = await db('affiliates')
    .where({ campaign_id: campaignId, referral_key: code.toUpperCase() })
    .first<{ id: number } | undefined>('id');
  return row && Number(row.id);
}

export async function setLocale(db: Db | Trx, affiliateId: number, locale: string): Promise<void> {
  // Written only when it changed: a log-in in the same language writes nothing.
  await db('affiliates')
    .where('id', affiliateId)
    .andWhere((q) => q.whereNull('locale').orWhereNot('locale', locale))
    .update({ locale });
}

/** Where the affiliate is paid; `identity` is what the duplicate flag compares. */
export async function setPayoutDetails(
  trx: Trx,
  affiliateId: number,
  details: PayoutDetails | null,
  identity: string | null,
  now: Date,
): Promise<void> {
  await trx('affiliates')
    .where('id', affiliateId)
    .update({
      payout_method: details?.method ?? null,
      pix_key_type: details?.pixKeyType ?? null,
      payout_account: details?.account ?? null,
      payout_identity: identity,
      updated_at: now,
    });
}

export async function setNotifyPayouts(db: Db, affiliateId: number, notify: boolean, now: Date): Promise<void> {
  await db('affiliates').where('id', affiliateId).update({ notify_payouts: notify, updated_at: now });
}

/** `pending → active` by one conditional update: answers whether this call made the change. */
export async function activatePending(trx: Trx, campaignId: number, affiliateId: number, now: Date): Promise<boolean> {
  const changed = await trx('affiliates')
    .where({ campaign_id: campaignId, id: affiliateId, status: 'pending' })
    .update({ status: 'active', updated_at: now });
  return changed === 1;
}

/** The oldest pending affiliates of a campaign, for `affiliates approve --all-pending`. */
export async function pendingAffiliateIds(db: Db, campaignId: number, limit: number): Promise<number[]> {
  const rows = await db('affiliates')
    .where({ campaign_id: campaignId, status: 'pending' })
    .orderBy([
      { column: 'created_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .limit(limit)
    .select<{ id: number }[]>('id');
  return rows.map((row) => Number(row.id));
}

/** How many affiliates of a campaign await approval. */
export async function countPending(db: Db, campaignId: number): Promise<number> {
  const [row] = await db('affiliates')
    .where({ campaign_id: campaignId, status: 'pending' })
    .count<{ n: number | string }[]>({ n: '*' });
  return Number(row?.n ?? 0);
}

/** What a mail needs to know of its affiliate and campaign. */
export interface MailAddressee {
  affiliateId: number;
  campaignId: number;
  email: string;
  name: string | null;
  locale: string | null;
  notifyPayouts: boolean;
  campaignName: string;
  campaignPublicId: string;
  /** ISO 4217 code of the campaign's money. */
  campaignCurrency: string;
  portalEnabled: boolean;
  contactEmail: string | null;
}

export async function mailAddressees(trx: Trx, affiliateIds: readonly number[]): Promise<Map<number, MailAddressee>> {
  if (affiliateIds.length === 0) return new Map();
  const rows = await trx('affiliates as a')
    .join('campaigns as c', 'c.id', 'a.campaign_id')
    .whereIn('a.id', [...new Set(affiliateIds)])
    .select<
      {
        id: number;
        campaign_id: number;
        email: string;
        name: string | null;
        locale: string | null;
        notify_payouts: number | boolean;
        campaign_name: string;
        public_id: string;
        currency: string;
        portal_enabled: number | boolean;
        contact_email: string | null;
      }[]
    >(
      'a.id',
      'a.campaign_id',
      'a.email',
      'a.name',
      'a.locale',
      'a.notify_payouts',
      'c.name as campaign_name',
      'c.public_id',
      'c.currency',
      'c.portal_enabled',
      'c.contact_email',
    );
  return new Map(
    rows.map((row) => [
      Number(row.id),
      {
        affiliateId: Number(row.id),
        campaignId: Number(row.campaign_id),
        email: row.email,
        name: row.name,
        locale: row.locale,
        notifyPayouts: Boolean(row.notify_payouts),
        campaignName: row.campaign_name,
        campaignPublicId: row.public_id,
        campaignCurrency: row.currency,
        portalEnabled: Boolean(row.portal_enabled),
        contactEmail: row.contact_email,
      },
    ]),
  );
}

/** A new password hash (a reset): the caller ends the affiliate's sessions in the same transaction. */
export async function setPasswordHash(trx: Trx, affiliateId: number, passwordHash: string, now: Date): Promise<void> {
  await trx('affiliates').where('id', affiliateId).update({ password_hash: passwordHash, updated_at: now });
}
