import type { Context } from 'koa';
import type { Config } from '../config.js';
import type { DashboardActor, DashboardCampaign } from '../services/dashboard/index.js';
import { may, needsSecondFactor } from '../services/dashboard/index.js';
import type { Services } from '../services/index.js';
import { renderView } from '../views/engine.js';
import { formatCount, formatDate, formatMoney } from '../views/format.js';
import type { Locale } from '../views/locale.js';
import type { Texts } from '../views/texts/index.js';
import type { DashboardQuery } from './query.js';
import { csrfToken } from './security.js';

/** One dashboard request: its campaign, language, user and the daemon's services. */
export interface DashPage {
  ctx: Context;
  services: Services;
  config: Readonly<Config>;
  locale: Locale;
  t: Texts;
  campaign: DashboardCampaign;
  /** `/dashboard/{publicId}`: links are built on it. */
  base: string;
  actor: DashboardActor | undefined;
  /** The session cookie's secret, when there is one. */
  secret: string | undefined;
  query: DashboardQuery;
}

/** Sends a template of `templates/dashboard/` with what every page shows (navigation by role, CSRF token, notice). */
export function render(page: DashPage, view: string, data: Record<string, unknown>, status = 200): void {
  const { ctx, actor } = page;
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  const full = actor && !actor.factorPending ? actor : undefined;
  ctx.body = renderView(`dashboard/${view}`, {
    t: page.t,
    d: page.t.dash,
    campaign: page.campaign,
    base: page.base,
    user: full
      ? {
          email: full.email,
          role: page.t.dashboardRoles[full.role] ?? full.role,
          keys: may(full.role, 'keys'),
          users: may(full.role, 'users'),
          change: may(full.role, 'change'),
          passkeys: needsSecondFactor(full.role),
        }
      : null,
    loggedIn: actor !== undefined,
    csrf: csrfToken(ctx, page.campaign.publicId),
    notice: null,
    values: {},
    problem: null,
    nav: '',
    ...data,
  });
}

/** See other: the browser gets the page with a GET (a reload never posts twice). */
export function redirect(page: DashPage, path: string): void {
  page.ctx.status = 303;
  page.ctx.redirect(`${page.base}${path}`);
}

export const money = (page: DashPage, hundredths: number) =>
  formatMoney(hundredths, page.locale, page.campaign.currency);
export const day = (page: DashPage, at: Date | string | null) =>
  at === null ? '—' : formatDate(typeof at === 'string' ? new Date(at) : at, page.locale);
export const count = (page: DashPage, n: number) => formatCount(n, page.locale);

/** The notice a redirect asked for, in the page's language. */
export function noticeOf(page: DashPage): string | null {
  const { dash } = page.t;
  const n = count(page, page.query.n ?? 0);
  switch (page.query.notice) {
    case 'loggedOut':
      return dash.login.loggedOut;
    case 'setupDone':
      return dash.login.setupDone;
    case 'ended':
      return dash.login.ended;
    case 'approved':
      return dash.affiliates.approved;
    case 'payoutSent':
      return dash.payoutSend.sent(String(page.query.n ?? ''));
    case 'saved':
      return dash.conversions.moved(n);
    case 'invited':
      return dash.users.invited;
    case 'changed':
      return dash.users.changed;
    case 'removed':
      return dash.users.removed;
    case 'created':
      return dash.saved;
    case 'deleted':
      return dash.deleted;
    case 'testSent':
      return dash.webhooks.testSent;
    case 'retried':
      return dash.webhooks.retried;
    case 'connected':
      return dash.integrations.connected;
    case 'disconnected':
      return dash.integrations.disconnected;
    case 'passkeyAdded':
      return dash.passkeys.added;
    case 'passkeyRemoved':
      return dash.passkeys.removed;
    case 'runSent':
      return dash.payouts.runSent(n, page.query.n === 1);
    case 'runWaiting':
      return dash.payouts.runWaiting(n);
    case 'runApproved':
      return dash.payouts.runApproved(n, page.query.n === 1);
    case undefined:
      return null;
  }
}
