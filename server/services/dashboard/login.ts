import { randomBytes } from 'node:crypto';
import { inTransaction, type Db } from '../../db/knex.js';
import { findDashboardToken, spendDashboardToken } from '../../repositories/dashboardSessions.js';
import {
  enrolDashboardTotp,
  findDashboardUser,
  findDashboardUserByEmail,
  insertRecoveryCodes,
  setDashboardLocale,
  setDashboardPassword,
  spendRecoveryCode,
  takeTotpStep,
} from '../../repositories/dashboardUsers.js';
import type { PasswordHasher } from '../passwordHasher.js';
import { passwordProblem } from '../portal/forms.js';
import type { PortalThrottle } from '../portal/throttle.js';
import { hashSecret } from '../secretHash.js';
import type { SecretBox } from '../webhooks/secretBox.js';
import { needsSecondFactor } from './roles.js';
import type { DashboardSessions } from './sessions.js';
import { totpStep } from './totp.js';
import type { Asker, DashboardActor, DashboardCampaign, DashboardLogIn, SetupLink } from './types.js';

export interface LoginDeps {
  db: Db;
  now: () => Date;
  hasher: PasswordHasher;
  sessions: DashboardSessions;
  throttle: PortalThrottle;
  /** Seals TOTP secrets at rest, as webhook and billing secrets (docs/dashboard.md#logging-in). */
  box: SecretBox;
}

/** The dashboard's throttling buckets, apart from the portal's even for the same e-mail. */
const loginBucket = (email: string) => `dashboard:${email.toLowerCase()}`;
const factorBucket = (userId: number) => `dashboard-factor:${userId}`;

/**
 * docs/dashboard.md#logging-in: as the portal's log-in (the IP's count, one of the e-mail's five
 * places, then bcrypt; an unknown e-mail and a wrong password are one answer after the same work).
 * Owners and admins get a session that still owes its second factor.
 */
export async function logIn(
  deps: LoginDeps,
  campaign: DashboardCampaign,
  fields: { email?: string; password?: string },
  asker: Asker,
): Promise<DashboardLogIn> {
  const email = fields.email?.trim() ?? '';
  const password = fields.password ?? '';
  await deps.throttle.ipPost(asker.ip, deps.now());
  const ticket = await deps.throttle.loginAttempt(campaign.id, loginBucket(email), deps.now());
  const user = email === '' ? undefined : await findDashboardUserByEmail(deps.db, campaign.id, email);
  const valid =
    user?.passwordHash != null
      ? password !== '' && (await deps.hasher.verify(password, user.passwordHash))
      : await deps.hasher.verifyNothing(password).then(() => false);
  if (!user || !valid) {
    await deps.throttle.failed(ticket, deps.now());
    return { state: 'failed' };
  }
  await deps.throttle.succeeded(ticket);
  await setDashboardLocale(deps.db, user.id, asker.locale);
  const factorPending = needsSecondFactor(user.role);
  return { state: 'in', factorPending, secret: await deps.sessions.open(deps.db, user.id, factorPending, deps.now()) };
}

export async function setupLink(
  deps: LoginDeps,
  campaign: DashboardCampaign,
  token: string | undefined,
): Promise<SetupLink> {
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return { state: 'unknown' };
  const found = await findDashboardToken(deps.db, campaign.id, hashSecret(token));
  if (!found) return { state: 'unknown' };
  if (found.usedAt !== null) return { state: 'used' };
  if (found.expiresAt.getTime() <= deps.now().getTime()) return { state: 'expired' };
  return { state: 'usable', email: found.email };
}

export type SetupResult =
  { state: 'done' } | { state: 'invalid'; problem: string } | Exclude<SetupLink, { state: 'usable' }>;

/** Sets the password of a set-up link's user; the link is spent (once, by a conditional update) and every session ends. */
export async function completeSetup(
  deps: LoginDeps,
  campaign: DashboardCampaign,
  fields: { token?: string; password?: string },
  asker: Asker,
): Promise<SetupResult> {
  await deps.throttle.ipPost(asker.ip, deps.now());
  const link = await setupLink(deps, campaign, fields.token);
  if (link.state !== 'usable') return link;
  const problem = passwordProblem(fields.password);
  if (problem || !fields.password || !fields.token) return { state: 'invalid', problem: problem ?? 'required' };
  const hash = await deps.hasher.hash(fields.password);
  const token = fields.token;
  const found = await findDashboardToken(deps.db, campaign.id, hashSecret(token));
  if (!found) return { state: 'unknown' };
  const done = await inTransaction(deps.db, async (trx) => {
    const now = deps.now();
    if (!(await spendDashboardToken(trx, hashSecret(token), found.userId, now))) return false;
    await setDashboardPassword(trx, found.userId, hash, now);
    await deps.sessions.closeAll(trx, found.userId);
    return true;
  });
  return done ? { state: 'done' } : { state: 'used' };
}

/** A second factor given: the session that owed it is replaced by a full one (a new id). */
export async function promote(deps: LoginDeps, actor: DashboardActor, oldSecret: string): Promise<string> {
  await deps.sessions.close(oldSecret);
  return deps.sessions.open(deps.db, actor.userId, false, deps.now());
}

export type FactorResult = { state: 'in'; secret: string } | { state: 'refused' };

/**
 * A TOTP code of the enrolled secret, throttled like a password (five failures lock it 15
 * minutes). A code is accepted once: its step must be later than the last one taken.
 */
export async function checkTotp(
  deps: LoginDeps,
  actor: DashboardActor,
  code: string,
  oldSecret: string,
): Promise<FactorResult> {
  return factorAttempt(deps, actor, oldSecret, async () => {
    const user = await findDashboardUser(deps.db, actor.userId);
    // A secret the key cannot open (sealed under another key) accepts no code.
    const secret = user?.totpSecret ? await deps.box.open(user.totpSecret) : undefined;
    const step = secret ? totpStep(secret, code, deps.now()) : undefined;
    return step !== undefined && takeTotpStep(deps.db, actor.userId, step);
  });
}

/** What the database keeps of a recovery code, however it was typed (spaces, the dash, capitals). */
export const recoveryHash = (code: string) => hashSecret(code.replace(/[\s-]+/g, '').toLowerCase());

/** A recovery code instead of TOTP or a passkey: each works once. */
export function checkRecoveryCode(
  deps: LoginDeps,
  actor: DashboardActor,
  code: string,
  oldSecret: string,
): Promise<FactorResult> {
  return factorAttempt(deps, actor, oldSecret, () =>
    spendRecoveryCode(deps.db, actor.userId, recoveryHash(code), deps.now()),
  );
}

/** One guess at the second factor, holding one of its five places until judged (as a password's). */
export async function factorAttempt(
  deps: LoginDeps,
  actor: DashboardActor,
  oldSecret: string,
  accepted: () => Promise<boolean>,
): Promise<FactorResult> {
  const ticket = await deps.throttle.loginAttempt(actor.campaignId, factorBucket(actor.userId), deps.now());
  if (!(await accepted())) {
    await deps.throttle.failed(ticket, deps.now());
    return { state: 'refused' };
  }
  await deps.throttle.succeeded(ticket);
  return { state: 'in', secret: await promote(deps, actor, oldSecret) };
}

const RECOVERY_CODES = 10;

/** Ten codes of 10 letters and digits, shown `xxxxx-xxxxx`; the database keeps their SHA-256. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const raw = randomBytes(8).readBigUInt64BE().toString(36).padStart(10, '0').slice(-10);
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
}

export type EnrolResult = { state: 'in'; secret: string; recoveryCodes: string[] } | { state: 'refused' };

/**
 * First log-in of an owner or admin: the secret shown with its QR code, confirmed by a code of
 * it. Only a user with no secret enrols (`users reset-2fa` clears one); the codes come once.
 */
export async function enrolTotp(
  deps: LoginDeps,
  actor: DashboardActor,
  fields: { secret?: string; code?: string },
  oldSecret: string,
): Promise<EnrolResult> {
  const ticket = await deps.throttle.loginAttempt(actor.campaignId, factorBucket(actor.userId), deps.now());
  const secret = fields.secret ?? '';
  const step = /^[A-Z2-7]{32}$/.test(secret) ? totpStep(secret, fields.code ?? '', deps.now()) : undefined;
  if (actor.totpEnrolled || step === undefined) {
    await deps.throttle.failed(ticket, deps.now());
    return { state: 'refused' };
  }
  await deps.throttle.succeeded(ticket);
  const codes = newRecoveryCodes();
  const sealed = await deps.box.seal(secret);
  const enrolled = await inTransaction(deps.db, async (trx) => {
    if (!(await enrolDashboardTotp(trx, actor.userId, sealed, deps.now()))) return false;
    await insertRecoveryCodes(trx, actor.userId, codes.map(recoveryHash));
    return true;
  });
  if (!enrolled || !(await takeTotpStep(deps.db, actor.userId, step))) return { state: 'refused' };
  return { state: 'in', secret: await promote(deps, actor, oldSecret), recoveryCodes: codes };
}
