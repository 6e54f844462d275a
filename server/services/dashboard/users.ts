import { randomBytes } from 'node:crypto';
import { inTransaction, type Db } from '../../db/knex.js';
import { findCampaign } from '../../repositories/campaigns.js';
import { deleteDashboardPasskeysOf } from '../../repositories/dashboardPasskeys.js';
import { insertDashboardToken } from '../../repositories/dashboardSessions.js';
import {
  type DashboardUser,
  type ListedDashboardUser,
  deleteDashboardUser,
  findDashboardUser,
  insertDashboardUser,
  isDashboardOwner,
  listDashboardUsers,
  setDashboardRole,
  setDashboardTotp,
} from '../../repositories/dashboardUsers.js';
import { UniqueConflict } from '../../repositories/uniqueConflict.js';
import { NotFoundError } from '../../errors.js';
import type { MailOutbox } from '../mail/outbox.js';
import { recordAudit } from '../audit.js';
import { emailProblem } from '../portal/forms.js';
import { hashSecret } from '../secretHash.js';
import type { Site } from '../site.js';
import type { DashboardSessions } from './sessions.js';
import { DASHBOARD_ROLES, type DashboardRole } from './types.js';

/** docs/dashboard.md: a set-up link (the first owner's, an invitation's) works once, for 24 hours. */
export const SETUP_LINK_MS = 24 * 60 * 60 * 1000;

export interface UserDeps {
  db: Db;
  now: () => Date;
  site: Site;
  mail: MailOutbox;
  sessions: DashboardSessions;
}

/** Why a new user was refused: a key of the dashboard's texts and of the CLI's messages. */
export type NewUserProblem = 'email' | 'role' | 'taken';

export type NewUserResult =
  | { state: 'created'; user: DashboardUser; publicId: string; link: string | undefined }
  | { state: 'invalid'; problem: NewUserProblem };

const isRole = (role: string): role is DashboardRole => (DASHBOARD_ROLES as readonly string[]).includes(role);

/** The set-up page's address with a new token (its hash is stored). */
export const setupAddress = (site: Site, publicId: string, token: string) =>
  `${site.url()}/dashboard/${encodeURIComponent(publicId)}/setup?token=${token}`;

/**
 * A new user of a campaign (by id or public id). `invite` is how the link reaches the person: the
 * operator's `users create` prints it (`link`), an owner's invitation mails it when the daemon has
 * SMTP (the token is then made at send time, as the portal's reset links) and shows it otherwise.
 */
export async function createUser(
  deps: UserDeps,
  input: { campaign: string | number; email: string; role: string; invite: 'print' | 'mail'; locale?: string },
): Promise<NewUserResult> {
  const found = await findCampaign(deps.db, input.campaign);
  if (!found) throw new NotFoundError(`Campaign ${input.campaign} not found: see \`affiliated campaigns list\``);
  const { campaign } = found;
  const email = input.email.trim();
  if (emailProblem(email)) return { state: 'invalid', problem: 'email' };
  if (!isRole(input.role)) return { state: 'invalid', problem: 'role' };
  const role = input.role;
  const mailed = input.invite === 'mail' && deps.mail.enabled;
  try {
    return await inTransaction(deps.db, async (trx) => {
      const now = deps.now();
      const user = await insertDashboardUser(trx, { campaignId: campaign.id, email, role, now });
      // The user's id and that a role was set: never the e-mail (docs/audit.md).
      const action = input.invite === 'mail' ? 'user.invite' : 'user.create';
      await recordAudit(trx, now, [{ campaignId: campaign.id, action, targetId: user.id, fields: ['role'] }]);
      if (mailed) {
        await deps.mail.record(trx, [
          {
            kind: 'dashboard_invitation',
            campaignId: campaign.id,
            userId: user.id,
            campaignName: campaign.name,
            publicId: campaign.publicId,
            to: email,
            role,
            locale: input.locale ?? 'en',
          },
        ]);
        return { state: 'created' as const, user, publicId: campaign.publicId, link: undefined };
      }
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(now.getTime() + SETUP_LINK_MS);
      await insertDashboardToken(trx, { tokenHash: hashSecret(token), userId: user.id, now, expiresAt });
      return {
        state: 'created' as const,
        user,
        publicId: campaign.publicId,
        link: setupAddress(deps.site, campaign.publicId, token),
      };
    });
  } catch (err) {
    if (err instanceof UniqueConflict) return { state: 'invalid', problem: 'taken' };
    throw err;
  }
}

export async function listUsers(db: Db, campaign?: string | number): Promise<ListedDashboardUser[]> {
  if (campaign === undefined) return listDashboardUsers(db);
  const found = await findCampaign(db, campaign);
  if (!found) throw new NotFoundError(`Campaign ${campaign} not found: see \`affiliated campaigns list\``);
  return listDashboardUsers(db, found.campaign.id);
}

const userNotFound = (id: number) => new NotFoundError(`User ${id} not found: see \`affiliated users list\``);

/** Why a removal or a role change was refused: the campaign would have no owner left who can log in. */
export const LAST_OWNER = 'lastOwner';

/**
 * Removes a user; its sessions and links go with it. With `campaignId` (an owner in the
 * dashboard) the user must be of that campaign, and the campaign's last owner stays.
 */
export async function removeUser(
  deps: UserDeps,
  id: number,
  campaignId?: number,
): Promise<DashboardUser | typeof LAST_OWNER> {
  return inTransaction(deps.db, async (trx) => {
    const user = await findDashboardUser(trx, id);
    if (!user || (campaignId !== undefined && user.campaignId !== campaignId)) throw userNotFound(id);
    if (!(await deleteDashboardUser(trx, id, user.campaignId, campaignId !== undefined))) {
      // The delete's own condition refused it: the last owner, whose sessions stay.
      if (campaignId !== undefined && user.role === 'owner') return LAST_OWNER;
      throw userNotFound(id);
    }
    await deps.sessions.closeAll(trx, id);
    await recordAudit(trx, deps.now(), [{ campaignId: user.campaignId, action: 'user.remove', targetId: id }]);
    return user;
  });
}

/**
 * Clears the user's second factor (TOTP secret, recovery codes and every passkey) and ends its
 * sessions: the next log-in enrols again. Answers the user and how many passkeys went.
 */
export async function resetTwoFactor(deps: UserDeps, id: number): Promise<{ user: DashboardUser; passkeys: number }> {
  return inTransaction(deps.db, async (trx) => {
    const user = await findDashboardUser(trx, id);
    if (!user) throw userNotFound(id);
    await setDashboardTotp(trx, id, null, deps.now());
    const passkeys = await deleteDashboardPasskeysOf(trx, id);
    await deps.sessions.closeAll(trx, id);
    await recordAudit(trx, deps.now(), [
      { campaignId: user.campaignId, action: 'user.reset_2fa', targetId: id, figures: { passkeys } },
    ]);
    return { user, passkeys };
  });
}

/**
 * A new role ends the user's sessions: what it may do is decided again at its next log-in. The
 * campaign's last owner keeps its role (LAST_OWNER); false when nothing changed.
 */
export async function changeRole(
  deps: UserDeps,
  campaignId: number,
  id: number,
  role: string,
): Promise<boolean | typeof LAST_OWNER> {
  if (!isRole(role)) return false;
  const changed = await inTransaction(deps.db, async (trx) => {
    const changed = await setDashboardRole(trx, campaignId, id, role, deps.now());
    if (changed) {
      await deps.sessions.closeAll(trx, id);
      await recordAudit(trx, deps.now(), [{ campaignId, action: 'user.change_role', targetId: id, fields: ['role'] }]);
    }
    return changed;
  });
  // Only to explain a refusal: the update's own condition decided it.
  if (!changed && role !== 'owner' && (await isDashboardOwner(deps.db, campaignId, id))) return LAST_OWNER;
  return changed;
}
