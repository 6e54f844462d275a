import { inTransaction, type Db } from '../../db/knex.js';
import { findLoginAccount, setPasswordHash } from '../../repositories/portalAccounts.js';
import { deleteSessionsOf, findUsableResetToken, spendResetToken } from '../../repositories/portalSessions.js';
import { RESET_LINK_MS } from '../mail/links.js';
import type { MailOutbox } from '../mail/outbox.js';
import type { PasswordHasher } from '../passwordHasher.js';
import { hashSecret } from '../secretHash.js';
import { emailProblem, type FieldProblems, type FormFields, passwordProblem } from './forms.js';
import type { PortalThrottle } from './throttle.js';
import type { Asker, PortalCampaign, ResetLink } from './types.js';

export interface ResetDeps {
  db: Db;
  now: () => Date;
  mail: MailOutbox;
  hasher: PasswordHasher;
  throttle: PortalThrottle;
  /** Looks for the mail at once rather than at the next poll. */
  wake: () => void;
}

/** A token as the mailed link carries it (256 bits, base64url); anything else is no token. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * docs/portal.md#password-reset: the page says the same whether the address has an account or
 * not; a mail goes only to an account that may log in, at most three an hour per address.
 */
export async function requestReset(
  deps: ResetDeps,
  campaign: PortalCampaign,
  fields: FormFields,
  asker: Asker,
): Promise<{ state: 'unavailable' } | { state: 'invalid'; problems: FieldProblems } | { state: 'sent' }> {
  if (!deps.mail.enabled) return { state: 'unavailable' };
  const problem = emailProblem(fields.email);
  if (problem || !fields.email) return { state: 'invalid', problems: { email: problem ?? 'required' } };
  await deps.throttle.ipPost(asker.ip, deps.now());
  const account = await findLoginAccount(deps.db, campaign.id, fields.email);
  const email = fields.email.trim().toLowerCase();
  if (
    account &&
    account.status !== 'inactive' &&
    (await deps.throttle.resetMailAllowed(campaign.id, email, deps.now()))
  ) {
    await inTransaction(deps.db, (trx) => deps.mail.record(trx, [{ kind: 'password_reset', affiliateId: account.id }]));
    deps.wake();
  }
  return { state: 'sent' };
}

/** Whether a link can still be used (only looks: the form is shown for a usable one). */
export async function resetLink(
  deps: ResetDeps,
  campaign: PortalCampaign,
  token: string | undefined,
): Promise<ResetLink> {
  if (!token || !TOKEN.test(token)) return { state: 'unknown' };
  const found = await findUsableResetToken(deps.db, campaign.id, hashSecret(token), deps.now());
  if ('affiliateId' in found) return { state: 'usable' };
  if (found.state === 'expired') return { state: found.lifetimeMs > RESET_LINK_MS ? 'inviteExpired' : 'expired' };
  return found;
}

/**
 * Sets the new password with the token, spent by one conditional update (a link used twice, at
 * once or later, resets once), and ends every session of the account, in one transaction.
 */
export async function resetPassword(
  deps: ResetDeps,
  campaign: PortalCampaign,
  fields: FormFields,
  asker: Asker,
): Promise<ResetLink | { state: 'invalid'; problems: FieldProblems } | { state: 'done' }> {
  await deps.throttle.ipPost(asker.ip, deps.now());
  const link = await resetLink(deps, campaign, fields.token);
  if (link.state !== 'usable' || !fields.token) return link;
  const problem = passwordProblem(fields.password);
  if (problem || !fields.password) return { state: 'invalid', problems: { password: problem ?? 'required' } };
  const passwordHash = await deps.hasher.hash(fields.password);
  const tokenHash = hashSecret(fields.token);
  const found = await findUsableResetToken(deps.db, campaign.id, tokenHash, deps.now());
  if (!('affiliateId' in found)) return found;
  const { affiliateId } = found;
  const done = await inTransaction(deps.db, async (trx) => {
    const now = deps.now();
    if (!(await spendResetToken(trx, tokenHash, affiliateId, now))) return false;
    await setPasswordHash(trx, affiliateId, passwordHash, now);
    await deleteSessionsOf(trx, affiliateId);
    return true;
  });
  return done ? { state: 'done' } : { state: 'used' };
}
