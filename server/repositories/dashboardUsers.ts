import type { Db, Trx } from '../db/knex.js';
import type { DashboardUserRow } from '../db/dashboardRows.js';
import { toDate } from '../db/rows.js';
import { conflictsAs } from './uniqueConflict.js';

/** The merchant dashboard's people (docs/dashboard.md#users-and-roles). */

export type DashboardRole = DashboardUserRow['role'];

export interface DashboardUser {
  id: number;
  campaignId: number;
  email: string;
  role: DashboardRole;
  passwordHash: string | null;
  totpSecret: string | null;
  locale: string | null;
  createdAt: Date;
}

function toUser(row: DashboardUserRow): DashboardUser {
  return {
    id: Number(row.id),
    campaignId: Number(row.campaign_id),
    email: row.email,
    role: row.role,
    passwordHash: row.password_hash,
    totpSecret: row.totp_secret,
    locale: row.locale,
    createdAt: toDate(row.created_at),
  };
}

/** Stores a new user; an e-mail the campaign already has is a UniqueConflict `email`. */
export async function insertDashboardUser(
  trx: Db | Trx,
  user: { campaignId: number; email: string; role: DashboardRole; now: Date },
): Promise<DashboardUser> {
  const row: Omit<DashboardUserRow, 'id'> = {
    campaign_id: user.campaignId,
    email: user.email,
    email_key: user.email.toLowerCase(),
    role: user.role,
    password_hash: null,
    totp_secret: null,
    totp_last_step: null,
    locale: null,
    created_at: user.now,
    updated_at: user.now,
  };
  const [id] = await conflictsAs({ email_key: 'email' }, () => trx('dashboard_users').insert(row));
  return toUser({ id: Number(id), ...row });
}

export async function findDashboardUser(db: Db | Trx, id: number): Promise<DashboardUser | undefined> {
  const row = await db('dashboard_users').where({ id }).first();
  return row && toUser(row);
}

export async function findDashboardUserByEmail(
  db: Db,
  campaignId: number,
  email: string,
): Promise<DashboardUser | undefined> {
  const row = await db('dashboard_users').where({ campaign_id: campaignId, email_key: email.toLowerCase() }).first();
  return row && toUser(row);
}

/** A campaign's users (every campaign's without one), oldest first. */
export async function listDashboardUsers(db: Db, campaignId?: number): Promise<DashboardUser[]> {
  const query = db('dashboard_users').select('*').orderBy('id');
  if (campaignId !== undefined) query.where({ campaign_id: campaignId });
  return (await query).map(toUser);
}

export async function setDashboardPassword(trx: Trx, id: number, passwordHash: string, now: Date): Promise<void> {
  await trx('dashboard_users').where({ id }).update({ password_hash: passwordHash, updated_at: now });
}

/** Answers whether the user's role changed (false: no such user in the campaign, or the same role). */
export async function setDashboardRole(
  trx: Trx,
  campaignId: number,
  id: number,
  role: DashboardRole,
  now: Date,
): Promise<boolean> {
  const changed = await trx('dashboard_users')
    .where({ id, campaign_id: campaignId })
    .whereNot({ role })
    .update({ role, updated_at: now });
  return changed > 0;
}

export async function setDashboardLocale(db: Db, id: number, locale: string): Promise<void> {
  await db('dashboard_users').where({ id }).update({ locale });
}

/** Answers whether a user of the campaign was removed (any, without a campaign). */
export async function deleteDashboardUser(trx: Db | Trx, id: number, campaignId?: number): Promise<boolean> {
  const query = trx('dashboard_users').where({ id });
  if (campaignId !== undefined) query.andWhere({ campaign_id: campaignId });
  return (await query.delete()) > 0;
}

/** Enrols a TOTP secret, or clears it (null) with its recovery codes. */
export async function setDashboardTotp(trx: Trx, id: number, secret: string | null, now: Date): Promise<void> {
  await trx('dashboard_users').where({ id }).update({ totp_secret: secret, totp_last_step: null, updated_at: now });
  await trx('dashboard_recovery_codes').where({ user_id: id }).delete();
}

/** Enrols a secret only where none is: false when another enrolment got there first. */
export async function enrolDashboardTotp(trx: Trx, id: number, secret: string, now: Date): Promise<boolean> {
  const changed = await trx('dashboard_users')
    .where({ id })
    .whereNull('totp_secret')
    .update({ totp_secret: secret, totp_last_step: null, updated_at: now });
  return changed > 0;
}

/**
 * Takes a TOTP step for the user: true only when it is later than every step taken before, so
 * a code is accepted once, whichever daemon sees it (one conditional update).
 */
export async function takeTotpStep(db: Db, id: number, step: number): Promise<boolean> {
  const changed = await db('dashboard_users')
    .where({ id })
    .whereNotNull('totp_secret')
    .andWhere((q) => q.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
    .update({ totp_last_step: step });
  return changed > 0;
}

export async function insertRecoveryCodes(trx: Trx, userId: number, hashes: readonly string[]): Promise<void> {
  await trx('dashboard_recovery_codes').where({ user_id: userId }).delete();
  await trx('dashboard_recovery_codes').insert(
    hashes.map((hash) => ({ user_id: userId, code_hash: hash, used_at: null })),
  );
}

/** Spends a recovery code: true once per code (a conditional update). */
export async function spendRecoveryCode(db: Db, userId: number, hash: string, now: Date): Promise<boolean> {
  const changed = await db('dashboard_recovery_codes')
    .where({ user_id: userId, code_hash: hash })
    .whereNull('used_at')
    .update({ used_at: now });
  return changed > 0;
}

export async function unusedRecoveryCodes(db: Db, userId: number): Promise<number> {
  const row = await db('dashboard_recovery_codes')
    .where({ user_id: userId })
    .whereNull('used_at')
    .count({ n: '*' })
    .first();
  return Number(row?.n ?? 0);
}
