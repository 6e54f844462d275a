import type { Db } from '../../db/knex.js';
import { findAffiliateIdByCode, findLoginAccount, setLocale } from '../../repositories/portalAccounts.js';
import type { AffiliateService } from '../affiliates.js';
import type { PasswordHasher } from '../passwordHasher.js';
import { emailProblem, type FieldProblems, type FormFields, passwordProblem, profileOf } from './forms.js';
import type { PortalSessions } from './sessions.js';
import type { PortalThrottle } from './throttle.js';
import type { Asker, LogInResult, PortalCampaign, SignUpResult } from './types.js';

export interface AccountDeps {
  db: Db;
  now: () => Date;
  affiliates: AffiliateService;
  hasher: PasswordHasher;
  sessions: PortalSessions;
  throttle: PortalThrottle;
}

/** A `?ref=` code that names an affiliate of the campaign; undefined otherwise (it is then not shown). */
export async function referrerOf(
  db: Db,
  campaign: PortalCampaign,
  code: string | undefined,
): Promise<{ code: string; affiliateId: number } | undefined> {
  if (!code || !/^[A-Za-z0-9]{2,32}$/.test(code)) return undefined;
  const affiliateId = await findAffiliateIdByCode(db, campaign.id, code);
  return affiliateId === undefined ? undefined : { code, affiliateId };
}

/**
 * docs/portal.md#what-affiliates-see: a `pending` affiliate (`active` with approval `auto`)
 * under the plan's limit. An e-mail that has an account gets the very page a new one gets, after
 * the same bcrypt work, and nothing changes: the form tells nobody who is registered.
 */
export async function signUp(
  deps: AccountDeps,
  campaign: PortalCampaign,
  fields: FormFields,
  asker: Asker,
): Promise<SignUpResult> {
  if (!campaign.signupOpen) return { state: 'closed' };
  const { name, phone, problems } = profileOf(fields, true);
  const all: FieldProblems = { ...problems };
  const emailIssue = emailProblem(fields.email);
  if (emailIssue) all.email = emailIssue;
  const passwordIssue = passwordProblem(fields.password);
  if (passwordIssue) all.password = passwordIssue;
  if (Object.keys(all).length > 0 || name === null || !fields.email || !fields.password) {
    return { state: 'invalid', problems: all };
  }
  await deps.throttle.ipPost(asker.ip, deps.now());
  // The referrer becomes the new affiliate's parent (docs/commissions.md#two-tiers); a code that
  // names nobody of the campaign is ignored, as the sign-up page ignores it.
  const referrer = await referrerOf(deps.db, campaign, fields.ref);
  const result = await deps.affiliates.signUp(campaign.id, {
    email: fields.email.trim(),
    password: fields.password,
    name,
    phone,
    status: campaign.approveAffiliates === 'auto' ? 'active' : 'pending',
    locale: asker.locale,
    parentAffiliateId: referrer?.affiliateId,
  });
  if (result.outcome === 'full') return { state: 'full' };
  return { state: 'received', approval: campaign.approveAffiliates };
}

/**
 * docs/portal.md#the-security-model: the IP's count, then one of the e-mail's five places (429
 * when five failures hold them), then the password. Unknown e-mail and wrong password are one answer.
 * A log-in opens a new session: an id a browser held before is never promoted.
 */
export async function logIn(
  deps: AccountDeps,
  campaign: PortalCampaign,
  fields: FormFields,
  asker: Asker,
): Promise<LogInResult> {
  const email = fields.email?.trim() ?? '';
  const password = fields.password ?? '';
  await deps.throttle.ipPost(asker.ip, deps.now());
  const ticket = await deps.throttle.loginAttempt(campaign.id, email.toLowerCase(), deps.now());
  const account = email === '' ? undefined : await findLoginAccount(deps.db, campaign.id, email);
  const valid = account
    ? password !== '' && (await deps.hasher.verify(password, account.passwordHash))
    : await deps.hasher.verifyNothing(password).then(() => false);
  if (!account || !valid) {
    await deps.throttle.failed(ticket, deps.now());
    return { state: 'failed' };
  }
  await deps.throttle.succeeded(ticket);
  if (account.status === 'inactive') return { state: 'inactive' };
  await setLocale(deps.db, account.id, asker.locale);
  return { state: 'in', secret: await deps.sessions.open(deps.db, campaign.id, account.id, deps.now()) };
}
