import type { FormFields } from '../services/portal/index.js';
import { cookiePath, message, type Page, problemTexts, redirect, render } from './page.js';
import { clearSessionCookie, sessionSecretOf, setSessionCookie } from './security.js';
import { clientKey } from '../clientAddress.js';

/** The notice a redirect asked the page to show (`?notice=`), in the page's language. */
function noticeOf(page: Page): string | null {
  switch (page.query.notice) {
    case 'loggedOut':
      return page.t.login.loggedOut;
    case 'passwordReset':
      return page.t.login.passwordReset;
    case 'saved':
      return page.t.settings.saved;
    case 'passwordChanged':
      return page.t.settings.passwordChanged;
    case undefined:
      return null;
  }
}

export { noticeOf };

const asker = (page: Page) => ({ ip: clientKey(page.ctx.ip), locale: page.locale });

function loginPage(page: Page, extra: Record<string, unknown> = {}, status = 200): void {
  render(
    page,
    'login',
    {
      title: page.t.login.title,
      signupOpen: page.campaign.signupOpen,
      failure: null,
      notice: noticeOf(page),
      ...extra,
    },
    status,
  );
}

export function showLogin(page: Page): void {
  if (page.user) return redirect(page, '/dashboard');
  loginPage(page);
}

export async function postLogin(page: Page, fields: FormFields): Promise<void> {
  const result = await page.services.portal.logIn(page.campaign, fields, asker(page));
  const values = { email: fields.email ?? '' };
  if (result.state === 'failed') return loginPage(page, { failure: page.t.login.failed, values, notice: null }, 401);
  if (result.state === 'inactive')
    return loginPage(page, { failure: page.t.login.inactive, values, notice: null }, 403);
  setSessionCookie(page.ctx, cookiePath(page), result.secret);
  redirect(page, '/dashboard');
}

export async function postLogout(page: Page): Promise<void> {
  const secret = sessionSecretOf(page.ctx);
  if (secret) await page.services.portal.logOut(secret);
  clearSessionCookie(page.ctx, cookiePath(page));
  redirect(page, '/?notice=loggedOut');
}

async function signupPage(page: Page, extra: Record<string, unknown>, status = 200): Promise<void> {
  const closed = page.campaign.signupOpen ? null : page.t.signup.closed;
  render(page, 'signup', { title: page.t.signup.title, closed, ref: null, ...extra }, status);
}

export async function showSignup(page: Page): Promise<void> {
  await signupPage(page, { ref: (await page.services.portal.referrer(page.campaign, page.query.ref)) ?? null });
}

export async function postSignup(page: Page, fields: FormFields): Promise<void> {
  const result = await page.services.portal.signUp(page.campaign, fields, asker(page));
  const { t } = page;
  switch (result.state) {
    case 'closed':
      return message(page, t.signup.title, [t.signup.closed], 403);
    case 'full':
      return message(page, t.signup.title, [t.signup.full], 403);
    case 'invalid': {
      const ref = (await page.services.portal.referrer(page.campaign, fields.ref)) ?? null;
      const values = { name: fields.name ?? '', email: fields.email ?? '', phone: fields.phone ?? '' };
      return signupPage(page, { ref, values, errors: problemTexts(t, result.problems), hasErrors: true }, 400);
    }
    case 'received':
      return message(
        page,
        t.signup.doneTitle,
        [result.approval === 'auto' ? t.signup.doneAuto : t.signup.doneManual],
        200,
        { href: `${page.base}/`, text: t.signup.logIn },
      );
  }
}
