import type { Db, Trx } from '../db/knex.js';
import type { DashboardSessionRow, DashboardUserRow } from '../db/dashboardRows.js';
import { toDate } from '../db/rows.js';
import type { DashboardRole } from './dashboardUsers.js';

/** The dashboard's sessions and set-up links, kept by the SHA-256 of their secrets. */

export interface DashboardSession {
  sessionId: number;
  userId: number;
  campaignId: number;
  email: string;
  role: DashboardRole;
  passwordHash: string | null;
  totpEnrolled: boolean;
  factorPending: boolean;
  createdAt: Date;
  lastSeenAt: Date;
}

export async function insertDashboardSession(
  trx: Db | Trx,
  session: { tokenHash: string; userId: number; factorPending: boolean; now: Date; expiresAt: Date },
): Promise<void> {
  await trx('dashboard_sessions').insert({
    token_hash: session.tokenHash,
    user_id: session.userId,
    factor_pending: session.factorPending,
    created_at: session.now,
    last_seen_at: session.now,
    expires_at: session.expiresAt,
  });
}

type Joined = Pick<DashboardSessionRow, 'factor_pending' | 'created_at' | 'last_seen_at'> &
  Pick<DashboardUserRow, 'campaign_id' | 'email' | 'role' | 'password_hash' | 'totp_secret'> & {
    session_id: number;
    user_id: number;
  };

/** The unexpired session of this hash, of a user of this campaign; undefined otherwise. */
export async function findDashboardSession(
  db: Db,
  campaignId: number,
  tokenHash: string,
  now: Date,
): Promise<DashboardSession | undefined> {
  const row = await db('dashboard_sessions as s')
    .join('dashboard_users as u', 'u.id', 's.user_id')
    .where({ 's.token_hash': tokenHash, 'u.campaign_id': campaignId })
    .andWhere('s.expires_at', '>', now)
    .first<Joined | undefined>(
      's.id as session_id',
      'u.id as user_id',
      'u.campaign_id',
      'u.email',
      'u.role',
      'u.password_hash',
      'u.totp_secret',
      's.factor_pending',
      's.created_at',
      's.last_seen_at',
    );
  if (!row) return undefined;
  return {
    sessionId: Number(row.session_id),
    userId: Number(row.user_id),
    campaignId: Number(row.campaign_id),
    email: row.email,
    role: row.role,
    passwordHash: row.password_hash,
    totpEnrolled: row.totp_secret !== null,
    factorPending: Boolean(row.factor_pending),
    createdAt: toDate(row.created_at),
    lastSeenAt: toDate(row.last_seen_at),
  };
}

export async function touchDashboardSession(db: Db, id: number, now: Date, expiresAt: Date): Promise<void> {
  await db('dashboard_sessions').where({ id }).update({ last_seen_at: now, expires_at: expiresAt });
}

export async function deleteDashboardSession(db: Db, tokenHash: string): Promise<void> {
  await db('dashboard_sessions').where({ token_hash: tokenHash }).delete();
}

export async function deleteDashboardSessionsOf(trx: Db | Trx, userId: number): Promise<void> {
  await trx('dashboard_sessions').where({ user_id: userId }).delete();
}

/** Set-up and invitation links: a token's hash, valid until `expiresAt`, spent once. */
export async function insertDashboardToken(
  trx: Db | Trx,
  token: { tokenHash: string; userId: number; now: Date; expiresAt: Date },
): Promise<void> {
  await trx('dashboard_tokens').insert({
    token_hash: token.tokenHash,
    user_id: token.userId,
    created_at: token.now,
    expires_at: token.expiresAt,
    used_at: null,
  });
}

export interface DashboardToken {
  userId: number;
  campaignId: number;
  email: string;
  expiresAt: Date;
  usedAt: Date | null;
}

export async function findDashboardToken(
  db: Db | Trx,
  campaignId: number,
  tokenHash: string,
): Promise<DashboardToken | undefined> {
  const row = await db('dashboard_tokens as k')
    .join('dashboard_users as u', 'u.id', 'k.user_id')
    .where({ 'k.token_hash': tokenHash, 'u.campaign_id': campaignId })
    .first<
      | {
          user_id: number;
          campaign_id: number;
          email: string;
          expires_at: Date | string;
          used_at: Date | string | null;
        }
      | undefined
    >('u.id as user_id', 'u.campaign_id', 'u.email', 'k.expires_at', 'k.used_at');
  if (!row) return undefined;
  return {
    userId: Number(row.user_id),
    campaignId: Number(row.campaign_id),
    email: row.email,
    expiresAt: toDate(row.expires_at),
    usedAt: row.used_at === null ? null : toDate(row.used_at),
  };
}

/** Spends a live token and every other link of its user: true only for the one use that wins. */
export async function spendDashboardToken(trx: Trx, tokenHash: string, userId: number, now: Date): Promise<boolean> {
  const changed = await trx('dashboard_tokens')
    .where({ token_hash: tokenHash, user_id: userId })
    .whereNull('used_at')
    .andWhere('expires_at', '>', now)
    .update({ used_at: now });
  if (changed === 0) return false;
  await trx('dashboard_tokens').where({ user_id: userId }).whereNull('used_at').update({ used_at: now });
  return true;
}

/** Housekeeping: expired sessions and links past their use. */
export async function deleteExpiredDashboardRows(db: Db, now: Date): Promise<void> {
  await db('dashboard_sessions').where('expires_at', '<', now).delete();
  await db('dashboard_tokens').where('expires_at', '<', now).delete();
}

/** Holds recovery codes (sealed) on a session until its next page shows them. */
export async function holdSessionCodes(db: Db, tokenHash: string, sealed: string): Promise<void> {
  await db('dashboard_sessions').where({ token_hash: tokenHash }).update({ recovery_codes: sealed });
}

/** Takes the codes a session holds: once, by a conditional update on the value read. */
export async function takeSessionCodes(db: Db, tokenHash: string): Promise<string | undefined> {
  const row = await db('dashboard_sessions')
    .where({ token_hash: tokenHash })
    .first<Pick<DashboardSessionRow, 'recovery_codes'> | undefined>('recovery_codes');
  const held = row?.recovery_codes;
  if (!held) return undefined;
  const taken = await db('dashboard_sessions')
    .where({ token_hash: tokenHash, recovery_codes: held })
    .update({ recovery_codes: null });
  return taken > 0 ? held : undefined;
}
