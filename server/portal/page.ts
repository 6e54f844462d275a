import type { Context } from 'koa';
import type { Config } from '../config.js';
import type { FieldProblems, PortalCampaign, PortalUser } from '../services/portal/index.js';
import type { Services } from '../services/index.js';
import { renderView } from '../views/engine.js';
import { formatCount, formatDate, formatMoney } from '../views/format.js';
import type { Locale } from '../views/locale.js';
import type { Texts } from '../views/texts/index.js';
import type { PortalQuery } from './query.js';
import { csrfToken } from './security.js';

/** One portal request: its campaign, language, logged-in affiliate, and the daemon's services. */
export interface Page {
  ctx: Context;
  services: Services;
  config: Readonly<Config>;
  locale: Locale;
  t: Texts;
  campaign: PortalCampaign;
  /** `/portal/{publicId}`: links are built on it. */
  base: string;
  user: PortalUser | undefined;
  /** The address's query, parsed (`query.ts`). */
  query: PortalQuery;
}

/** The path the portal's cookies are scoped to: one campaign's pages. */
export const cookiePath = (page: Page) => `${page.base}/`;

/** Sends a template as the page, with what every page shows (campaign, navigation, CSRF token, notice). */
export function render(page: Page, view: string, data: Record<string, unknown>, status = 200): void {
  const { ctx } = page;
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = renderView(view, {
    t: page.t,
    campaign: page.campaign,
    base: page.base,
    user:
      page.user && page.user.status !== 'inactive' ? { name: page.user.name, referralId: page.user.referralId } : null,
    csrf: csrfToken(ctx, cookiePath(page), page.campaign.publicId),
    notice: null,
    values: {},
    errors: {},
    hasErrors: false,
    ...data,
  });
}

/** A page that only says something: a heading, lines, maybe a link. */
export function message(
  page: Page,
  heading: string,
  lines: string[],
  status = 200,
  link?: { href: string; text: string },
): void {
  render(page, 'message', { title: heading, heading, lines, link: link ?? null }, status);
}

/** A form's problems in the page's language, by field. */
export function problemTexts(t: Texts, problems: FieldProblems): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const [field, key] of Object.entries(problems)) {
    const [group, name] = key.split('.');
    texts[field] =
      group === 'payout' && name !== undefined
        ? (t.errors.payout[name] ?? t.errors.formTitle)
        : String((t.errors as Record<string, unknown>)[key] ?? t.errors.formTitle);
  }
  return texts;
}

/** See other: the browser gets the page with a GET (a reload never posts twice). */
export function redirect(page: Page, path: string): void {
  page.ctx.status = 303;
  page.ctx.redirect(`${page.base}${path}`);
}

export const money = (page: Page, hundredths: number) => formatMoney(hundredths, page.locale, page.campaign.currency);
export const day = (page: Page, at: Date | null) => (at === null ? '—' : formatDate(at, page.locale));
export const count = (page: Page, n: number) => formatCount(n, page.locale);
