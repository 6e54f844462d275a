import { PIX_KEY_TYPES } from '../../shared/vocabulary.js';
import type { FormFields, FormResult, PortalUser } from '../services/portal/index.js';
import type { TermsRate } from '../services/portal/dashboard.js';
import { noticeOf } from './accountPages.js';
import { cookiePath, count, day, message, money, type Page, problemTexts, redirect, render } from './page.js';
import { setSessionCookie } from './security.js';
import { clientKey } from '../clientAddress.js';
import { CHART, groupedBars } from '../views/chart.js';

/** The logged-in affiliate, or a redirect to the log-in page (answers undefined). */
function loggedIn(page: Page): PortalUser | undefined {
  if (page.user) return page.user;
  redirect(page, '/');
  return undefined;
}

export async function showDashboard(page: Page): Promise<void> {
  const user = loggedIn(page);
  if (!user) return;
  const { t } = page;
  if (user.status === 'pending') {
    return render(page, 'message', {
      title: t.pending.title,
      heading: t.pending.title,
      lines: [t.pending.body],
      link: null,
      nav: 'dashboard',
    });
  }
  const data = await page.services.portal.dashboard(page.campaign, user, page.query.page ?? 1);
  const figureRows = [
    { label: t.dashboard.visits, recent: count(page, data.last30Days.visits), total: count(page, data.allTime.visits) },
    { label: t.dashboard.leads, recent: count(page, data.last30Days.leads), total: count(page, data.allTime.leads) },
    {
      label: t.dashboard.conversions,
      recent: count(page, data.last30Days.conversions),
      total: count(page, data.allTime.conversions),
    },
    ...(['pending', 'approved', 'paid'] as const).map((status) => ({
      label: t.dashboard[status],
      recent: money(page, data.last30Days.commissionCents[status]),
      total: money(page, data.allTime.commissionCents[status]),
    })),
  ];
  // Noon UTC reads as the same date in the programme's zone the pages write dates in.
  const chartDays = data.days.map((d) => ({
    date: day(page, new Date(`${d.day}T12:00:00Z`)),
    clicks: count(page, d.clicks),
    leads: count(page, d.leads),
    conversions: count(page, d.conversions),
    values: [d.clicks, d.leads, d.conversions],
  }));
  const chart = groupedBars(
    chartDays.map((d) => {
      const label = t.dashboard.chartDay(d.date, d.clicks, d.leads, d.conversions);
      return { values: d.values, labels: [label, label, label] };
    }),
  );
  const { terms } = data;
  const days = (n: number) => t.terms.days(n, count(page, n));
  const rate = (r: TermsRate) =>
    r.type === 'percent' ? t.terms.percent(`${count(page, r.value)}%`) : t.terms.fixed(money(page, r.value));
  render(page, 'dashboard', {
    title: t.dashboard.title,
    terms: {
      rate: rate(terms.rate),
      source: t.terms.source[terms.source] ?? terms.source,
      products: terms.products.map((p) => ({ product: p.product, rate: rate(p.rate) })),
      cookie: days(terms.cookieDays),
      minimum: money(page, terms.payoutMinimumCents),
      hold: terms.holdDays === null ? t.terms.holdManual : t.terms.holdDays(days(terms.holdDays)),
    },
    nav: 'dashboard',
    notice: noticeOf(page),
    link: data.link,
    coupons: data.coupons,
    hasPayoutDetails: user.payoutMethod !== null,
    figureRows,
    chart,
    chartSize: CHART,
    chartDays,
    conversions: data.conversions.map((c) => ({
      date: day(page, c.createdAt),
      orderId: c.orderId,
      secondTier: c.secondTier,
      value: money(page, c.orderValueCents),
      commission: money(page, c.commissionCents),
      status: c.status,
      statusText: t.status[c.status] ?? c.status,
    })),
    pages: data.pages,
    pageNumber: data.page,
    payouts: data.payouts.map((p) => ({
      id: p.id,
      date: day(page, p.createdAt),
      amount: money(page, p.amountCents),
      status: p.status,
      statusText: t.status[p.status] ?? p.status,
      paidAt: day(page, p.paidAt),
    })),
  });
}

export async function showPayout(page: Page, id: number): Promise<void> {
  const user = loggedIn(page);
  if (!user) return;
  const {
    payout,
    conversions,
    covered,
    page: pageNumber,
    pages,
  } = await page.services.portal.payout(user, id, page.query.page ?? 1);
  const { t } = page;
  render(page, 'payout', {
    title: t.payout.title(payout.id),
    payout: {
      id: payout.id,
      status: payout.status,
      statusText: t.status[payout.status] ?? payout.status,
      commission: money(page, payout.commissionCents),
      clawback: money(page, payout.clawbackCents),
      amount: money(page, payout.amountCents),
      date: day(page, payout.createdAt),
      paidAt: day(page, payout.paidAt),
      rail: payout.rail === null ? null : (t.payout.rails[payout.rail] ?? payout.rail),
      receipt: payout.receipt,
      failureReason: payout.failureReason,
    },
    conversions: conversions.map((c) => ({
      date: day(page, c.createdAt),
      orderId: c.orderId,
      secondTier: c.secondTier,
      commission: money(page, c.commissionCents),
      statusText: t.status[c.status] ?? c.status,
    })),
    covered: count(page, covered),
    pages,
    pageNumber,
  });
}

/** `?page=N` of a paged view; anything else is the first page. */

/** The settings page, with the values of a form that failed (or the stored ones). */
function settingsPage(
  page: Page,
  user: PortalUser,
  extra: { values?: Record<string, unknown>; errors?: Record<string, string> } = {},
  status = 200,
): void {
  const stored = {
    name: user.name ?? '',
    phone: user.phone ?? '',
    method: user.payoutMethod ?? 'pix',
    pixKeyType: user.pixKeyType ?? 'cpf',
    pixKey: user.payoutMethod === 'pix' ? (user.payoutAccount ?? '') : '',
    paypalEmail: user.payoutMethod === 'paypal' ? (user.payoutAccount ?? '') : '',
    stripeAccount: user.payoutMethod === 'stripe' ? (user.payoutAccount ?? '') : '',
    notifyPayouts: user.notifyPayouts,
  };
  const errors = extra.errors ?? {};
  render(
    page,
    'settings',
    {
      title: page.t.settings.title,
      nav: 'settings',
      notice: noticeOf(page),
      pixKeyTypes: PIX_KEY_TYPES,
      values: { ...stored, ...extra.values },
      errors,
      hasErrors: Object.keys(errors).length > 0,
    },
    status,
  );
}

export function showSettings(page: Page): void {
  const user = loggedIn(page);
  if (user) settingsPage(page, user);
}

/** A saved form goes back to the settings (a reload does not post again); a refused one is shown again. */
function after(page: Page, user: PortalUser, result: FormResult, values: Record<string, unknown>): void {
  if (result.state === 'saved') return redirect(page, '/settings?notice=saved');
  settingsPage(page, user, { values, errors: problemTexts(page.t, result.problems) }, 400);
}

export async function postProfile(page: Page, fields: FormFields): Promise<void> {
  const user = loggedIn(page);
  if (!user) return;
  const result = await page.services.portal.updateProfile(page.campaign, user, fields);
  after(page, user, result, { name: fields.name ?? '', phone: fields.phone ?? '' });
}

export async function postPayout(page: Page, fields: FormFields): Promise<void> {
  const user = loggedIn(page);
  if (!user) return;
  const result = await page.services.portal.updatePayoutDetails(page.campaign, user, fields);
  after(page, user, result, {
    method: fields.method === 'paypal' || fields.method === 'stripe' ? fields.method : 'pix',
    pixKeyType: fields.pixKeyType,
    pixKey: fields.pixKey ?? '',
    paypalEmail: fields.paypalEmail ?? '',
    stripeAccount: fields.stripeAccount ?? '',
  });
}

export async function postNotifications(page: Page, fields: FormFields): Promise<void> {
  const user = loggedIn(page);
  if (!user) return;
  await page.services.portal.setNotifyPayouts(user, fields.notifyPayouts === 'on');
  redirect(page, '/settings?notice=saved');
}

export async function postPassword(page: Page, fields: FormFields): Promise<void> {
  const user = loggedIn(page);
  if (!user) return;
  const result = await page.services.portal.changePassword(page.campaign, user, fields, {
    ip: clientKey(page.ctx.ip),
    locale: page.locale,
  });
  if (result.state === 'invalid') return after(page, user, result, {});
  setSessionCookie(page.ctx, cookiePath(page), result.secret);
  redirect(page, '/settings?notice=passwordChanged');
}

export { message };
