import QRCode from 'qrcode';
import { clientKey } from '../clientAddress.js';
import type { FormFields } from '../services/portal/index.js';
import { type DashPage, noticeOf, redirect, render } from './page.js';
import { clearSessionCookie, setSessionCookie } from './security.js';

const asker = (page: DashPage) => ({ ip: clientKey(page.ctx.ip), locale: page.locale });

function loginPage(page: DashPage, extra: Record<string, unknown> = {}, status = 200): void {
  render(page, 'login', { title: page.t.dash.login.title, failure: null, notice: noticeOf(page), ...extra }, status);
}

export function showLogin(page: DashPage): void {
  if (page.actor) return redirect(page, page.actor.factorPending ? '/factor' : '/overview');
  loginPage(page);
}

export async function postLogin(page: DashPage, fields: FormFields): Promise<void> {
  const result = await page.services.dashboard.logIn(page.campaign, fields, asker(page));
  if (result.state === 'failed') {
    return loginPage(
      page,
      { failure: page.t.dash.login.failed, values: { email: fields.email ?? '' }, notice: null },
      401,
    );
  }
  setSessionCookie(page.ctx, result.secret);
  redirect(page, result.factorPending ? '/factor' : '/overview');
}

export async function postLogout(page: DashPage): Promise<void> {
  if (page.secret) await page.services.dashboard.logOut(page.secret);
  clearSessionCookie(page.ctx);
  redirect(page, '/?notice=loggedOut');
}

function invalidLink(page: DashPage, state: 'used' | 'expired' | 'unknown'): void {
  const { setup } = page.t.dash;
  render(
    page,
    'message',
    { title: setup.invalidTitle, heading: setup.invalidTitle, lines: [setup[state]] },
    state === 'unknown' ? 404 : 410,
  );
}

export async function showSetup(page: DashPage): Promise<void> {
  const link = await page.services.dashboard.setupLink(page.campaign, page.query.token);
  if (link.state !== 'usable') return invalidLink(page, link.state);
  render(page, 'setup', { title: page.t.dash.setup.title, email: link.email, token: page.query.token });
}

export async function postSetup(page: DashPage, fields: FormFields): Promise<void> {
  const result = await page.services.dashboard.completeSetup(page.campaign, fields, asker(page));
  if (result.state === 'done') {
    clearSessionCookie(page.ctx);
    return redirect(page, '/?notice=setupDone');
  }
  if (result.state === 'invalid') {
    const link = await page.services.dashboard.setupLink(page.campaign, fields.token);
    const problem = String((page.t.errors as Record<string, unknown>)[result.problem] ?? page.t.errors.formTitle);
    return render(
      page,
      'setup',
      {
        title: page.t.dash.setup.title,
        email: link.state === 'usable' ? link.email : '',
        token: fields.token,
        problem,
      },
      400,
    );
  }
  invalidLink(page, result.state);
}

/** The enrolment page: a secret proposed now (or the one a refused form carried), its QR code as SVG. */
async function enrolPage(page: DashPage, secret?: string, status = 200, problem?: string): Promise<void> {
  const { actor } = page;
  if (!actor) return redirect(page, '/');
  const proposal = page.services.dashboard.totpProposal(page.campaign, actor);
  const chosen =
    secret && /^[A-Z2-7]{32}$/.test(secret) ? { secret, uri: proposal.uri.replace(proposal.secret, secret) } : proposal;
  // qrcode's SVG is paths only (no script, no style attribute): the CSP allows it inline.
  const qr = await QRCode.toString(chosen.uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  render(
    page,
    'enrol',
    {
      title: page.t.dash.factor.enrolTitle,
      secret: chosen.secret,
      grouped: chosen.secret.replace(/(.{4})/g, '$1 ').trim(),
      qr,
      refused: status === 200 ? null : (problem ?? page.t.dash.factor.refused),
    },
    status,
  );
}

/**
 * The second-factor page: the TOTP code (and recovery codes) when enrolled, the passkey button
 * when the user has one; enrolment when neither is set yet. `refused` says which one failed.
 */
export async function factorPage(
  page: DashPage,
  refused: 'code' | 'passkey' | 'name' | null = null,
  status = 200,
): Promise<void> {
  const { actor } = page;
  if (!actor) return redirect(page, '/');
  const { dashboard } = page.services;
  const passkeys = await dashboard.passkeys(actor);
  const { factor, passkeys: words } = page.t.dash;
  const problem = refused && { code: factor.refused, passkey: words.refused, name: words.nameTooLong }[refused];
  if (!actor.totpEnrolled && passkeys.length === 0) return enrolPage(page, undefined, status, problem ?? undefined);
  render(
    page,
    'factor',
    {
      title: factor.title,
      refused: problem,
      totp: actor.totpEnrolled,
      passkey: passkeys.length > 0,
      // A passkey-only user recovers with a code as a TOTP user does.
      recovery: actor.totpEnrolled || (await dashboard.recoveryCodesLeft(actor)) > 0,
    },
    status,
  );
}

/** The recovery codes, shown once: after a first TOTP or passkey, or to a passkey-only user who had none left. */
export function recoveryCodesPage(page: DashPage, codes: readonly string[]): void {
  render(page, 'codes', { title: page.t.dash.factor.codesTitle, codes, loggedIn: true });
}

export async function showFactor(page: DashPage): Promise<void> {
  const { actor } = page;
  if (!actor) return redirect(page, '/');
  if (!actor.factorPending) return redirect(page, '/overview');
  await factorPage(page);
}

export async function postFactor(page: DashPage, fields: FormFields): Promise<void> {
  const { actor, secret } = page;
  if (!actor || !secret) return redirect(page, '/');
  if (!actor.factorPending) return redirect(page, '/overview');
  const { dashboard } = page.services;
  // A recovery code is taken from TOTP and passkey users alike; with neither, the form enrols TOTP.
  if (!actor.totpEnrolled && fields.recovery === undefined) {
    const enrolled = await dashboard.enrolTotp(actor, fields, secret);
    if (enrolled.state === 'refused') return enrolPage(page, fields.secret, 400);
    setSessionCookie(page.ctx, enrolled.secret);
    return recoveryCodesPage(page, enrolled.recoveryCodes);
  }
  const result =
    fields.recovery !== undefined
      ? await dashboard.checkRecoveryCode(actor, fields.recovery, secret)
      : await dashboard.checkTotp(actor, fields.code ?? '', secret);
  if (result.state === 'refused') return factorPage(page, 'code', 401);
  setSessionCookie(page.ctx, result.secret);
  redirect(page, '/overview');
}
