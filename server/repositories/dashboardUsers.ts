import type { Knex } from 'knex';
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

/** A user as lists show them: with how many passkeys they have. */
export type ListedDashboardUser = DashboardUser & { passkeys: number };

/** A campaign's users (every campaign's without one), oldest first. */
export async function listDashboardUsers(db: Db, campaignId?: number): Promise<ListedDashboardUser[]> {
  const query = db('dashboard_users').select('*').orderBy('id');
  if (campaignId !== undefined) query.where({ campaign_id: campaignId });
  const users = (await query).map(toUser);
  const counts = await db('dashboard_passkeys')
    .whereIn(
      'user_id',
      users.map((u) => u.id),
    )
    .groupBy('user_id')
    .select('user_id')
    .count({ n: '*' });
  const passkeys = new Map(counts.map((c) => [Number(c.user_id), Number(c.n)]));
  return users.map((u) => ({ ...u, passkeys: passkeys.get(u.id) ?? 0 }));
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
  const query = trx('dashboard_users').where({ id, campaign_id: campaignId }).whereNot({ role });
  if (role !== 'owner') query.andWhere((q) => keepsAnOwner(q, trx, campaignId, id));
  return (await query.update({ role, updated_at: now })) > 0;
}

/**
 * The row is not an owner, or another owner of the campaign has set a password: so a demotion or
 * removal never leaves a campaign without an owner who can log in, even when two owners act at
 * once (it rests on the UPDATE's or DELETE's own condition). The inner query is wrapped in a
 * derived table because MySQL refuses a subquery on the table it changes.
 */
function keepsAnOwner(q: Knex.QueryBuilder, trx: Db | Trx, campaignId: number, id: number): Knex.QueryBuilder {
  return q
    .whereNot({ role: 'owner' })
    .orWhereExists(
      trx
        .select('o.id')
        .from(
          trx('dashboard_users')
            .select('id')
            .where({ campaign_id: campaignId, role: 'owner' })
            .whereNot({ id })
            .whereNotNull('password_hash')
            .as('o'),
        ),
    );
}

/** Whether the user is the campaign's owner a demotion or removal was refused for (see keepsAnOwner). */
export async function isDashboardOwner(db: Db, campaignId: number, id: number): Promise<boolean> {
  const row = await db('dashboard_users').where({ id, campaign_id: campaignId, role: 'owner' }).first('id');
  return row !== undefined;
}

export async function setDashboardLocale(db: Db, id: number, locale: string): Promise<void> {
  await db('dashboard_users').where({ id }).update({ locale });
}

/**
 * Answers whether a user of the campaign was removed. `keepOwner` (a dashboard owner's removal)
 * removes the campaign's last owner never; the operator's `users remove` may.
 */
export async function deleteDashboardUser(
  trx: Db | Trx,
  id: number,
  campaignId: number,
  keepOwner: boolean,
): Promise<boolean> {
  const query = trx('dashboard_users').where({ id, campaign_id: campaignId });
  if (keepOwner) query.andWhere((q) => keepsAnOwner(q, trx, campaignId, id));
  return (await query.delete()) > 0;
}

/** Enrols a TOTP secret, or clears it (null) with its recovery codes. */
export async function setDashboardTotp(trx: Trx, id: number, secret: string | null, now: Date): Promise<void> {
  await trx('dashboard_users').where({ id }).update({ totp_secret: secret, totp_last_step: null, updated_at: now });
  await trx('dashboard_recovery_codes').where({ user_id: id }).delete();
}

/**
 * Enrols a secret only where no second factor is (no secret, no passkey): false when another
 * enrolment got there first, so a password alone never adds a factor beside one already set.
 */
export async function enrolDashboardTotp(trx: Trx, id: number, secret: string, now: Date): Promise<boolean> {
  const changed = await trx('dashboard_users')
    .where({ id })
    .whereNull('totp_secret')
    .whereNotExists(trx('dashboard_passkeys').select('id').where({ user_id: id }))
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

/**
 * A first factor by passkey (instead of TOTP) at the first log-in: true only while the user has
 * no second factor at all. The update holds the user's row until the transaction ends, so two
 * first enrolments at once are judged one after the other.
 */
export async function claimFirstFactor(trx: Trx, id: number, now: Date): Promise<boolean> {
  const changed = await trx('dashboard_users')
    .where({ id })
    .whereNull('totp_secret')
    .whereNotExists(trx('dashboard_passkeys').select('id').where({ user_id: id }))
    .update({ updated_at: now });
  return changed > 0;
}
