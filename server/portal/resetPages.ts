import type { FormFields, ResetLink } from '../services/portal/index.js';
import { message, type Page, problemTexts, redirect, render } from './page.js';
import { clientKey } from '../clientAddress.js';

const asker = (page: Page) => ({ ip: clientKey(page.ctx.ip), locale: page.locale });

function requestPage(page: Page, extra: Record<string, unknown> = {}, status = 200): void {
  render(
    page,
    'resetRequest',
    { title: page.t.reset.title, available: page.services.portal.mailEnabled, ...extra },
    status,
  );
}

/** A link that no longer works: 410 once used or too old, 404 when it never was one. */
function invalidLink(page: Page, link: Exclude<ResetLink, { state: 'usable' }>): void {
  const { t } = page;
  const text = {
    used: t.reset.used,
    expired: t.reset.expired,
    inviteExpired: t.reset.inviteExpired,
    unknown: t.reset.unknown,
  }[link.state];
  message(page, t.reset.invalidTitle, [text], link.state === 'unknown' ? 404 : 410, {
    href: `${page.base}/reset`,
    text: t.reset.again,
  });
}

export async function showReset(page: Page): Promise<void> {
  const { token } = page.query;
  if (token === undefined) return requestPage(page);
  const link = await page.services.portal.resetLink(page.campaign, token ?? undefined);
  if (link.state !== 'usable') return invalidLink(page, link);
  render(page, 'resetNew', { title: page.t.reset.newTitle, token });
}

/** One path, two forms: with a `token` it sets the new password, without it asks for the mail. */
export async function postReset(page: Page, fields: FormFields): Promise<void> {
  const { t } = page;
  if (fields.token !== undefined) {
    const result = await page.services.portal.resetPassword(page.campaign, fields, asker(page));
    if (result.state === 'done') return redirect(page, '/?notice=passwordReset');
    if (result.state === 'invalid') {
      return render(
        page,
        'resetNew',
        { title: t.reset.newTitle, token: fields.token, errors: problemTexts(t, result.problems), hasErrors: true },
        400,
      );
    }
    if (result.state === 'usable') return redirect(page, `/reset`);
    return invalidLink(page, result);
  }
  const result = await page.services.portal.requestReset(page.campaign, fields, asker(page));
  if (result.state === 'unavailable') return requestPage(page, {}, 503);
  if (result.state === 'invalid') {
    return requestPage(page, { values: { email: fields.email ?? '' }, errors: problemTexts(t, result.problems) }, 400);
  }
  message(page, t.reset.sentTitle, [t.reset.sent], 200, { href: `${page.base}/`, text: t.signup.logIn });
}
