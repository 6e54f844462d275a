import { isIP } from 'node:net';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { z } from 'zod';
import { inTransaction } from '../../db/knex.js';
import { ForbiddenError } from '../../errors.js';
import {
  type DashboardPasskey,
  deleteDashboardPasskey,
  findDashboardPasskey,
  insertDashboardPasskey,
  listDashboardPasskeys,
  setSessionChallenge,
  takeSessionChallenge,
  useDashboardPasskey,
} from '../../repositories/dashboardPasskeys.js';
import { holdSessionCodes, takeSessionCodes } from '../../repositories/dashboardSessions.js';
import { claimFirstFactor, insertRecoveryCodes, unusedRecoveryCodes } from '../../repositories/dashboardUsers.js';
import { UniqueConflict } from '../../repositories/uniqueConflict.js';
import { recordAudit } from '../audit.js';
import { hashSecret } from '../secretHash.js';
import type { Site } from '../site.js';
import { factorAttempt, type FactorResult, type LoginDeps, newRecoveryCodes, promote, recoveryHash } from './login.js';
import { needsSecondFactor } from './roles.js';
import type { DashboardActor, DashboardCampaign } from './types.js';

export type { DashboardPasskey } from '../../repositories/dashboardPasskeys.js';

export interface PasskeyDeps extends LoginDeps {
  site: Site;
}

/** A passkey's name, as the list shows it: the column's width. */
export const MAX_PASSKEY_NAME = 64;

/** A challenge is good for this long: the browser's prompt waits as long. */
const CHALLENGE_MS = 5 * 60 * 1000;
/** The column's width: browsers' credential ids are 16 to 64 bytes, far below it. */
const MAX_CREDENTIAL_ID = 255;

/**
 * The relying party is the daemon's public address (`PUBLIC_URL`, else the address it listens
 * on): its host is the RP ID and its origin the only one a passkey is made or used at. A browser
 * refuses an IP address as an RP ID, so passkeys need a host name.
 */
export function relyingParty(site: Site): { origin: string; rpID: string } | undefined {
  const url = new URL(site.url());
  return isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0 ? { origin: url.origin, rpID: url.hostname } : undefined;
}

/**
 * Options for the browser, or why there are none: `elsewhere` when the page was opened at another
 * address than the relying party's (the browser would refuse, or the passkey would be of that
 * address), `unusable` when that address is an IP address.
 */
export type PasskeyOptions =
  { state: 'options'; options: object } | { state: 'elsewhere'; origin: string } | { state: 'unusable' };

const b64url = z.string().regex(/^[A-Za-z0-9_-]+$/);
const registration = z.object({
  id: b64url.max(MAX_CREDENTIAL_ID),
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: b64url,
    attestationObject: b64url,
    transports: z.array(z.string().max(20)).max(8).optional(),
  }),
});
const assertion = z.object({
  id: b64url.max(MAX_CREDENTIAL_ID),
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: b64url,
    authenticatorData: b64url,
    signature: b64url,
    userHandle: b64url.optional(),
  }),
});

function parsed<T>(schema: z.ZodType<T>, text: string | undefined): T | undefined {
  try {
    const result = schema.safeParse(JSON.parse(text ?? ''));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

/** Owners and admins only; before the second factor, only one who has none yet may enrol (instead of TOTP). */
function mayEnrol(actor: DashboardActor, passkeys: readonly DashboardPasskey[]): void {
  const first = !actor.factorPending || (!actor.totpEnrolled && passkeys.length === 0);
  if (!needsSecondFactor(actor.role) || !first) throw refusedRole();
}

const refusedRole = () => new ForbiddenError('Your role does not allow this: ask an owner of the campaign');

/**
 * The relying party, when the page was opened at its origin: the browser would refuse the RP ID
 * elsewhere (or sign for another site), so the user is told where to go instead.
 */
function where(
  deps: PasskeyDeps,
  pageOrigin: string,
): { origin: string; rpID: string } | Exclude<PasskeyOptions, { state: 'options' }> {
  const rp = relyingParty(deps.site);
  if (!rp) return { state: 'unusable' };
  return rp.origin === pageOrigin ? rp : { state: 'elsewhere', origin: rp.origin };
}

async function challenged(deps: PasskeyDeps, session: string, options: { challenge: string }): Promise<PasskeyOptions> {
  const expires = new Date(deps.now().getTime() + CHALLENGE_MS);
  await setSessionChallenge(deps.db, hashSecret(session), options.challenge, expires);
  return { state: 'options', options };
}

/** The spender of the session's challenge, for the verifier: one answer per challenge. */
const spender = (deps: PasskeyDeps, session: string) => (challenge: string) =>
  takeSessionChallenge(deps.db, hashSecret(session), challenge, deps.now());

export async function registrationOptions(
  deps: PasskeyDeps,
  campaign: DashboardCampaign,
  actor: DashboardActor,
  session: string,
  pageOrigin: string,
): Promise<PasskeyOptions> {
  const passkeys = await listDashboardPasskeys(deps.db, actor.userId);
  mayEnrol(actor, passkeys);
  const rp = where(deps, pageOrigin);
  if ('state' in rp) return rp;
  const options = await generateRegistrationOptions({
    rpName: `${campaign.name} (affiliated)`,
    rpID: rp.rpID,
    userName: actor.email,
    // The user handle names the user to the authenticator only: our id, nothing personal.
    userID: new TextEncoder().encode(`dashboard-user-${actor.userId}`),
    attestationType: 'none',
    excludeCredentials: passkeys.map((p) => ({ id: p.credentialId, transports: p.transports })),
    authenticatorSelection: { residentKey: 'discouraged', userVerification: 'preferred' },
    timeout: CHALLENGE_MS,
  });
  return challenged(deps, session, options);
}

/**
 * `in`: the first factor, which completes the log-in (its recovery codes are held, sealed, on the
 * new session until its first page shows them once); `added`: on the passkeys page, with new
 * recovery codes when the user has no TOTP and no unused code left (a passkey-only user recovers
 * as a TOTP user does). `name`: the name typed is too long.
 */
export type RegisterResult =
  { state: 'added'; recoveryCodes: string[] | null } | { state: 'in'; secret: string } | { state: 'refused' | 'name' };

/** The passkey's name: the one typed, trimmed, else `fallback`; undefined when the one typed is too long. */
export function passkeyName(given: string | undefined, fallback: string): string | undefined {
  const name = given?.trim() || fallback;
  return name.length <= MAX_PASSKEY_NAME ? name : undefined;
}

/**
 * Stores the passkey the browser made for the session's challenge (spent here, once). Before the
 * second factor it is the user's first factor (instead of TOTP) and completes the log-in.
 */
export async function register(
  deps: PasskeyDeps,
  actor: DashboardActor,
  session: string,
  text: string | undefined,
  names: { given: string | undefined; fallback: string },
): Promise<RegisterResult> {
  mayEnrol(actor, await listDashboardPasskeys(deps.db, actor.userId));
  const response = parsed(registration, text);
  const rp = relyingParty(deps.site);
  if (!response || !rp) return { state: 'refused' };
  const name = passkeyName(names.given, names.fallback);
  if (name === undefined) return { state: 'name' };
  const verified = await verifyRegistrationResponse({
    response: { ...response, clientExtensionResults: {} },
    expectedChallenge: spender(deps, session),
    expectedOrigin: rp.origin,
    expectedRPID: rp.rpID,
    requireUserVerification: false,
  }).catch(() => undefined);
  if (!verified?.verified) return { state: 'refused' };
  const { credential } = verified.registrationInfo;
  const codes =
    actor.factorPending || (!actor.totpEnrolled && (await unusedRecoveryCodes(deps.db, actor.userId)) === 0)
      ? newRecoveryCodes()
      : null;
  const added = await inTransaction(deps.db, async (trx) => {
    if (actor.factorPending && !(await claimFirstFactor(trx, actor.userId, deps.now()))) return false;
    await insertDashboardPasskey(trx, {
      userId: actor.userId,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: response.response.transports ?? [],
      name,
      now: deps.now(),
    });
    if (codes) await insertRecoveryCodes(trx, actor.userId, codes.map(recoveryHash));
    await recordAudit(trx, deps.now(), [
      { campaignId: actor.campaignId, action: 'user.add_passkey', targetId: actor.userId },
    ]);
    return true;
  }).catch((err: unknown) => {
    if (err instanceof UniqueConflict) return false;
    throw err;
  });
  if (!added) return { state: 'refused' };
  if (!actor.factorPending) return { state: 'added', recoveryCodes: codes };
  const secret = await promote(deps, actor, session);
  if (codes) await holdSessionCodes(deps.db, hashSecret(secret), await deps.box.seal(JSON.stringify(codes)));
  return { state: 'in', secret };
}

/** Options to sign with one of the user's passkeys, for a session that owes its second factor. */
export async function authenticationOptions(
  deps: PasskeyDeps,
  actor: DashboardActor,
  session: string,
  pageOrigin: string,
): Promise<PasskeyOptions> {
  const passkeys = await listDashboardPasskeys(deps.db, actor.userId);
  if (!actor.factorPending || passkeys.length === 0) {
    throw new ForbiddenError('There is no passkey to log in with: use your authenticator app’s code');
  }
  const rp = where(deps, pageOrigin);
  if ('state' in rp) return rp;
  const options = await generateAuthenticationOptions({
    rpID: rp.rpID,
    allowCredentials: passkeys.map((p) => ({ id: p.credentialId, transports: p.transports })),
    userVerification: 'preferred',
    timeout: CHALLENGE_MS,
  });
  return challenged(deps, session, options);
}

/**
 * The second factor by passkey: one of this user's (another user's, or another campaign's, is
 * refused), signing the session's challenge (spent once), its counter moving forward.
 * Throttled as TOTP codes are.
 */
export function authenticate(
  deps: PasskeyDeps,
  actor: DashboardActor,
  session: string,
  text: string | undefined,
): Promise<FactorResult> {
  return factorAttempt(deps, actor, session, async () => {
    const response = parsed(assertion, text);
    const rp = relyingParty(deps.site);
    const passkey = response && (await findDashboardPasskey(deps.db, response.id));
    if (!response || !rp || !passkey || passkey.userId !== actor.userId) return false;
    const verified = await verifyAuthenticationResponse({
      response: { ...response, clientExtensionResults: {} },
      expectedChallenge: spender(deps, session),
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
        counter: passkey.counter,
      },
      requireUserVerification: false,
    }).catch(() => undefined);
    if (!verified?.verified) return false;
    return useDashboardPasskey(deps.db, passkey.id, verified.authenticationInfo.newCounter, deps.now());
  });
}

/** The user's own passkeys: a session that owes its factor learns whether to offer one. */
export async function ownPasskeys(deps: PasskeyDeps, actor: DashboardActor): Promise<DashboardPasskey[]> {
  if (!needsSecondFactor(actor.role)) throw refusedRole();
  return listDashboardPasskeys(deps.db, actor.userId);
}

/** Removes one of the user's own passkeys (a whole session): false when they have no such passkey. */
export async function removePasskey(deps: PasskeyDeps, actor: DashboardActor, id: number): Promise<boolean> {
  if (actor.factorPending || !needsSecondFactor(actor.role)) throw refusedRole();
  return inTransaction(deps.db, async (trx) => {
    if (!(await deleteDashboardPasskey(trx, actor.userId, id))) return false;
    await recordAudit(trx, deps.now(), [
      { campaignId: actor.campaignId, action: 'user.remove_passkey', targetId: actor.userId },
    ]);
    return true;
  });
}

/** The recovery codes a log-in made and held on this session: once, for the page that shows them. */
export async function heldRecoveryCodes(deps: PasskeyDeps, session: string): Promise<string[] | undefined> {
  const sealed = await takeSessionCodes(deps.db, hashSecret(session));
  const opened = sealed === undefined ? undefined : await deps.box.open(sealed).catch(() => undefined);
  const codes: unknown = opened === undefined ? undefined : JSON.parse(opened);
  return Array.isArray(codes) ? codes.map(String) : undefined;
}
