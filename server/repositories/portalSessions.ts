import type { PayoutMethod } from '../../shared/payoutDetails.js';
import type { AffiliateStatus } from '../../shared/schemas/affiliate.js';
import type { Db, Trx } from '../db/knex.js';
import { toDate } from '../db/rows.js';

/** A live session and the affiliate it belongs to, as the portal needs them on every page. */
export interface SessionAffiliate {
  sessionId: number;
  affiliateId: number;
  campaignId: number;
  status: AffiliateStatus;
  email: string;
  name: string | null;
  phone: string | null;
  referralId: string;
  locale: string | null;
  notifyPayouts: boolean;
  payoutMethod: PayoutMethod | null;
  pixKeyType: 'cpf' | 'cnpj' | 'email' | 'phone' | 'random' | null;
  payoutAccount: string | null;
  passwordHash: string;
  lastSeenAt: Date;
  createdAt: Date;
}

/** Stores a session by the hash of its id (the cookie holds the id itself, nobody else). */
export async function insertSession(
  trx: Db | Trx,
  session: { tokenHash: string; campaignId: number; affiliateId: number; now: Date; expiresAt: Date },
): Promise<void> {
  await trx('portal_sessions').insert({
    token_hash: session.tokenHash,
    campaign_id: session.campaignId,
    affiliate_id: session.affiliateId,
    created_at: session.now,
    last_seen_at: session.now,
    expires_at: session.expiresAt,
  });
}

/** The unexpired session of this hash in this campaign, with its affiliate; undefined otherwise. */
export async function findSession(
  db: Db,
  campaignId: number,
  tokenHash: string,
  now: Date,
): Promise<SessionAffiliate | undefined> {
  const row = await db('portal_sessions as s')
    .join('affiliates as a', 'a.id', 's.affiliate_id')
    .where({ 's.token_hash': tokenHash, 's.campaign_id': campaignId })
    .andWhere('s.expires_at', '>', now)
    .first<
      | {
          session_id: number;
          affiliate_id: number;
          campaign_id: number;
          status: AffiliateStatus;
          email: string;
          name: string | null;
          phone: string | null;
          referral_id: string;
          locale: string | null;
          notify_payouts: number | boolean;
          payout_method: PayoutMethod | null;
          pix_key_type: 'cpf' | 'cnpj' | 'email' | 'phone' | 'random' | null;
          payout_account: string | null;
          password_hash: string;
          last_seen_at: Date | number;
          created_at: Date | number;
        }
      | undefined
    >(
      's.id as session_id',
      'a.id as affiliate_id',
      'a.campaign_id',
      'a.status',
      'a.email',
      'a.name',
      'a.phone',
      'a.referral_id',
      'a.locale',
      'a.notify_payouts',
      'a.payout_method',
      'a.pix_key_type',
      'a.payout_account',
      'a.password_hash',
      's.last_seen_at',
      's.created_at',
    );
  if (!row) return undefined;
  return {
    sessionId: Number(row.session_id),
    affiliateId: Number(row.affiliate_id),
    campaignId: Number(row.campaign_id),
    status: row.status,
    email: row.email,
    name: row.name,
    phone: row.phone,
    referralId: row.referral_id,
    locale: row.locale,
    notifyPayouts: Boolean(row.notify_payouts),
    payoutMethod: row.payout_method,
    pixKeyType: row.pix_key_type,
    payoutAccount: row.payout_account,
    passwordHash: row.password_hash,
    lastSeenAt: toDate(row.last_seen_at),
    createdAt: toDate(row.created_at),
  };
}

/** Slides an idle session's expiry forward (written at most once in a while, by the caller's rule). */
export async function touchSession(db: Db, sessionId: number, now: Date, expiresAt: Date): Promise<void> {
  await db('portal_sessions').where('id', sessionId).update({ last_seen_at: now, expires_at: expiresAt });
}

export async function deleteSession(db: Db | Trx, tokenHash: string): Promise<void> {
  await db('portal_sessions').where('token_hash', tokenHash).delete();
}

/** Every session of the affiliate: a password change or reset, `inactive`. */
export async function deleteSessionsOf(db: Db | Trx, affiliateId: number): Promise<number> {
  return db('portal_sessions').where('affiliate_id', affiliateId).delete();
}

export async function deleteExpiredSessions(db: Db, now: Date): Promise<void> {
  await db('portal_sessions').where('expires_at', '<=', now).delete();
}

/** A reset token by its hash; the mail holds the token itself. */
export async function insertResetToken(
  db: Db | Trx,
  token: { tokenHash: string; affiliateId: number; now: Date; expiresAt: Date },
): Promise<void> {
  await db('portal_reset_tokens').insert({
    token_hash: token.tokenHash,
    affiliate_id: token.affiliateId,
    created_at: token.now,
    expires_at: token.expiresAt,
    used_at: null,
  });
}

/** The affiliate of an unused, unexpired token of this campaign (only looks). */
export async function findUsableResetToken(
  db: Db | Trx,
  campaignId: number,
  tokenHash: string,
  now: Date,
): Promise<{ affiliateId: number } | { state: 'used' | 'unknown' } | { state: 'expired'; lifetimeMs: number }> {
  const row = await db('portal_reset_tokens as r')
    .join('affiliates as a', 'a.id', 'r.affiliate_id')
    .where({ 'r.token_hash': tokenHash, 'a.campaign_id': campaignId })
    .first<
      | {
          affiliate_id: number;
          used_at: Date | number | null;
          created_at: Date | number;
          expires_at: Date | number;
        }
      | undefined
    >('r.affiliate_id', 'r.used_at', 'r.created_at', 'r.expires_at');
  if (!row) return { state: 'unknown' };
  if (row.used_at !== null) return { state: 'used' };
  const expiresAt = toDate(row.expires_at);
  // How long the link was made to last tells an invitation's (7 days) from a reset's (an hour).
  if (expiresAt <= now) return { state: 'expired', lifetimeMs: expiresAt.getTime() - toDate(row.created_at).getTime() };
  return { affiliateId: Number(row.affiliate_id) };
}

/**
 * Uses the token: one conditional update, so a link clicked twice at once resets once. Every
 * other token of the affiliate is spent with it (an older mail's link stops working).
 */
export async function spendResetToken(trx: Trx, tokenHash: string, affiliateId: number, now: Date): Promise<boolean> {
  const spent = await trx('portal_reset_tokens')
    .where({ token_hash: tokenHash, affiliate_id: affiliateId })
    .whereNull('used_at')
    .andWhere('expires_at', '>', now)
    .update({ used_at: now });
  if (spent !== 1) return false;
  await trx('portal_reset_tokens').where('affiliate_id', affiliateId).whereNull('used_at').update({ used_at: now });
  return true;
}

export async function deleteOldResetTokens(db: Db, before: Date): Promise<void> {
  await db('portal_reset_tokens').where('expires_at', '<', before).delete();
}
