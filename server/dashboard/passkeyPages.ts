import { actingAs, userActor } from '../services/audit.js';
import type { PasskeyOptions } from '../services/dashboard/index.js';
import type { FormFields } from '../services/portal/index.js';
import { factorPage, recoveryCodesPage } from './authPages.js';
import { showOverview } from './dataPages.js';
import { type DashPage, day, noticeOf, redirect, render } from './page.js';
import { idParam } from './query.js';
import { setSessionCookie } from './security.js';

type Actor = NonNullable<DashPage['actor']>;

/**
 * docs/dashboard.md#passkeys. The browser's part is `assets/passkeys.js` (on
 * `@simplewebauthn/browser`): it asks `…/options` for a challenge, lets the browser make or use
 * the passkey, and posts the answer as an ordinary form field, so every change is a form post
 * checked as the others are.
 */
async function passkeysPage(page: DashPage, actor: Actor, extra: { problem?: string } = {}, status = 200) {
  const passkeys = await page.services.dashboard.passkeys(actor);
  render(
    page,
    'passkeys',
    {
      title: page.t.dash.passkeys.title,
      nav: 'passkeys',
      notice: noticeOf(page),
      problem: extra.problem ?? null,
      passkeys: passkeys.map((p, i) => ({
        id: p.id,
        label: p.name ?? page.t.dash.passkeys.label(i + 1),
        created: day(page, p.createdAt),
        lastUsed: p.lastUsedAt === null ? page.t.dash.passkeys.never : day(page, p.lastUsedAt),
      })),
    },
    status,
  );
}

export const showPasskeys = (page: DashPage, actor: Actor) => passkeysPage(page, actor);

/** The script's options, or a refusal it shows as is (the error body every API answer has). */
function answerOptions(page: DashPage, result: PasskeyOptions): void {
  const { ctx } = page;
  ctx.set('Cache-Control', 'no-store');
  if (result.state === 'options') {
    ctx.body = result.options;
    return;
  }
  const t = page.t.dash.passkeys;
  ctx.status = 400;
  ctx.body = {
    statusCode: 400,
    error: 'Bad Request',
    message: result.state === 'elsewhere' ? t.elsewhere(result.origin) : t.unusable,
  };
}

/** Who may ask for options: a session, whole or owing its factor (the service decides what it may do). */
function sessionOf(page: DashPage): { actor: Actor; secret: string } | undefined {
  const { actor, secret } = page;
  if (actor && secret) return { actor, secret };
  page.ctx.status = 401;
  page.ctx.body = { statusCode: 401, error: 'Unauthorized', message: page.t.dash.passkeys.loggedOut };
  return undefined;
}

export async function postRegistrationOptions(page: DashPage): Promise<void> {
  const session = sessionOf(page);
  if (!session) return;
  const { dashboard } = page.services;
  answerOptions(
    page,
    await dashboard.passkeyRegistrationOptions(page.campaign, session.actor, session.secret, page.ctx.origin),
  );
}

export async function postLogInOptions(page: DashPage): Promise<void> {
  const session = sessionOf(page);
  if (!session) return;
  answerOptions(
    page,
    await page.services.dashboard.passkeyLogInOptions(session.actor, session.secret, page.ctx.origin),
  );
}

/** What a new passkey is called when the form names none: "Passkey N", the first number no passkey of the user has. */
async function passkeyNames(page: DashPage, actor: Actor, given: string | undefined) {
  const t = page.t.dash.passkeys;
  const taken = new Set((await page.services.dashboard.passkeys(actor)).map((p) => p.name));
  let n = taken.size + 1;
  while (taken.has(t.label(n))) n++;
  return { given, fallback: t.label(n) };
}

/** A new passkey: on the passkeys page, or at the first log-in instead of TOTP (which completes it). */
export async function postAddPasskey(page: DashPage, fields: FormFields): Promise<void> {
  const { actor, secret } = page;
  if (!actor || !secret) return redirect(page, '/');
  const names = await passkeyNames(page, actor, fields.name);
  const added = await actingAs(userActor(actor.userId, page.ctx.ip), () =>
    page.services.dashboard.addPasskey(actor, secret, fields.response, names),
  );
  if (added.state === 'in') {
    // Its recovery codes, if any, are shown once by the next page (see showOverview below).
    setSessionCookie(page.ctx, added.secret);
    return redirect(page, '/overview');
  }
  if (added.state === 'added') {
    // A passkey-only user with no recovery code left gets new ones, once.
    if (added.recoveryCodes) return recoveryCodesPage(page, added.recoveryCodes);
    return redirect(page, '/passkeys?notice=passkeyAdded');
  }
  const problem = added.state === 'name' ? page.t.dash.passkeys.nameTooLong : page.t.dash.passkeys.refused;
  if (actor.factorPending) return factorPage(page, added.state === 'name' ? 'name' : 'passkey', 400);
  await passkeysPage(page, actor, { problem }, 400);
}

export async function postRemovePasskey(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = idParam.safeParse(fields.id);
  const removed = id.success && (await page.services.dashboard.removePasskey(actor, id.data));
  if (!removed) return passkeysPage(page, actor, { problem: page.t.dash.passkeys.unknown }, 404);
  redirect(page, '/passkeys?notice=passkeyRemoved');
}

/** The second factor by passkey: refused as a wrong code is (401, the factor page again). */
export async function postPasskeyFactor(page: DashPage, fields: FormFields): Promise<void> {
  const { actor, secret } = page;
  if (!actor || !secret) return redirect(page, '/');
  if (!actor.factorPending) return redirect(page, '/overview');
  const result = await page.services.dashboard.checkPasskey(actor, secret, fields.response);
  if (result.state === 'in') {
    setSessionCookie(page.ctx, result.secret);
    return redirect(page, '/overview');
  }
  await factorPage(page, 'passkey', 401);
}

/** The overview, unless the log-in just made recovery codes (a first passkey): they come first, once. */
export async function showOverviewOrCodes(page: DashPage, actor: Actor): Promise<void> {
  const codes = page.secret === undefined ? undefined : await page.services.dashboard.heldRecoveryCodes(page.secret);
  if (codes) return recoveryCodesPage(page, codes);
  await showOverview(page, actor);
}
