import { AFFILIATE_STATUSES, CONVERSION_STATUSES, PAYOUT_STATUSES } from '../../shared/vocabulary.js';
import { payoutsCsv } from '../../shared/payoutsCsv.js';
import type { FormFields } from '../services/portal/index.js';
import { formatAmount } from '../views/format.js';
import { bars, CHART } from '../views/chart.js';
import { count, type DashPage, day, money, noticeOf, redirect, render } from './page.js';
import { idParam } from './query.js';

export const PER_PAGE = 25;

export const pick = <T extends string>(values: readonly T[], value: string | undefined): T | undefined =>
  (values as readonly string[]).includes(value ?? '') ? (value as T) : undefined;

export const amount = (page: DashPage, value: number) => formatAmount(value, page.locale, page.campaign.currency);

/** The pages of a list, with the query that keeps its filters. */
export function pager(page: DashPage, total: number, current: number, filters: Record<string, string | undefined>) {
  const pages = Math.max(1, Math.ceil(total / PER_PAGE));
  const href = (n: number) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v);
    q.set('page', String(n));
    return `?${q.toString()}`;
  };
  return {
    text: page.t.dash.pages.page(count(page, current), count(page, pages)),
    previous: current > 1 ? href(current - 1) : null,
    next: current < pages ? href(current + 1) : null,
  };
}

export async function showOverview(page: DashPage, actor: NonNullable<DashPage['actor']>): Promise<void> {
  const data = await page.services.dashboard.overview(actor);
  const { overview: o } = page.t.dash;
  const rows = [
    { label: o.visits, now: count(page, data.thisMonth.pageViews), before: count(page, data.lastMonth.pageViews) },
    { label: o.leads, now: count(page, data.thisMonth.leads), before: count(page, data.lastMonth.leads) },
    {
      label: o.conversions,
      now: count(page, data.thisMonth.conversions),
      before: count(page, data.lastMonth.conversions),
    },
    {
      label: o.commissions,
      now: money(page, data.thisMonth.commissionCents),
      before: money(page, data.lastMonth.commissionCents),
    },
  ];
  const chart = bars(
    data.days.map((d) => ({
      value: d.conversions,
      label: o.chartDay(day(page, new Date(`${d.day}T12:00:00Z`)), count(page, d.conversions)),
    })),
  );
  render(page, 'overview', { title: o.title, nav: 'overview', rows, chart, size: CHART });
}

export async function showAffiliates(page: DashPage, actor: NonNullable<DashPage['actor']>): Promise<void> {
  const status = pick(AFFILIATE_STATUSES, page.query.status);
  const search = page.query.search?.trim() || undefined;
  const current = page.query.page ?? 1;
  const list = await page.services.dashboard.affiliates(actor, { status, search, page: current, limit: PER_PAGE });
  render(page, 'affiliates', {
    title: page.t.dash.affiliates.title,
    nav: 'affiliates',
    notice: noticeOf(page),
    statuses: AFFILIATE_STATUSES.map((s) => ({ value: s, text: page.t.dash.affiliateStatus[s] })),
    filters: { status: status ?? '', search: search ?? '' },
    affiliates: list.affiliates.map((a) => ({
      id: a.id,
      name: a.name ?? '',
      email: a.email,
      code: a.referralId,
      status: a.status,
      statusText: page.t.dash.affiliateStatus[a.status],
      joined: day(page, a.createdAt),
      flags: a.flags.join(', '),
    })),
    pager: pager(page, list.total, current, { status, search }),
  });
}

export async function postApproveAffiliate(
  page: DashPage,
  actor: NonNullable<DashPage['actor']>,
  fields: FormFields,
): Promise<void> {
  const id = idParam.safeParse(fields.id);
  if (id.success) await page.services.dashboard.approveAffiliate(actor, id.data);
  redirect(page, '/affiliates?status=pending&notice=approved');
}

export async function showConversions(page: DashPage, actor: NonNullable<DashPage['actor']>): Promise<void> {
  const status = pick(CONVERSION_STATUSES, page.query.status);
  const flagged = page.query.flagged === undefined ? undefined : page.query.flagged === 'true';
  const current = page.query.page ?? 1;
  const list = await page.services.dashboard.conversions(actor, { status, flagged, page: current, limit: PER_PAGE });
  const t = page.t;
  render(page, 'conversions', {
    title: t.dash.conversions.title,
    nav: 'conversions',
    notice: noticeOf(page),
    statuses: CONVERSION_STATUSES.map((s) => ({ value: s, text: t.status[s] ?? s })),
    filters: { status: status ?? '', flagged: page.query.flagged ?? '' },
    conversions: list.conversions.map((c) => ({
      id: c.id,
      order: c.orderId,
      affiliate: c.referralId,
      value: amount(page, c.orderValue),
      commission: amount(page, c.commission),
      status: c.status,
      statusText: t.status[c.status] ?? c.status,
      date: day(page, c.createdAt),
      flags: c.flags.join(', '),
    })),
    pager: pager(page, list.total, current, { status, flagged: page.query.flagged }),
  });
}

/** The ticked conversions (`c<id>=on`) approved or rejected at once, through the API's bulk update. */
export async function postMoveConversions(
  page: DashPage,
  actor: NonNullable<DashPage['actor']>,
  fields: FormFields,
): Promise<void> {
  const ids = Object.keys(fields).flatMap((name) => {
    const id = /^c(\d{1,10})$/.exec(name)?.[1];
    return id && fields[name] === 'on' ? [Number(id)] : [];
  });
  const to = fields.action === 'reject' ? 'rejected' : 'approved';
  const result = ids.length > 0 ? await page.services.dashboard.moveConversions(actor, ids, to) : { updated: 0 };
  redirect(page, `/conversions?notice=saved&n=${result.updated}`);
}

export async function showPayouts(page: DashPage, actor: NonNullable<DashPage['actor']>): Promise<void> {
  const status = pick(PAYOUT_STATUSES, page.query.status);
  const current = page.query.page ?? 1;
  const list = await page.services.dashboard.payouts(actor, { status, page: current, limit: PER_PAGE });
  const runs = await page.services.dashboard.payoutRunsAwaiting(actor);
  // Send is offered once the campaign pays through a rail (docs/payouts.md#payout-rails).
  const rails = await page.services.dashboard.connectedRails(actor, page.campaign);
  const t = page.t;
  const created = page.query.n;
  const { notice } = page.query;
  render(page, 'payouts', {
    title: t.dash.payouts.title,
    nav: 'payouts',
    notice:
      notice === 'saved'
        ? t.dash.payouts.saved
        : notice !== undefined
          ? noticeOf(page)
          : created !== undefined
            ? t.dash.payouts.ran(count(page, created), created === 1)
            : null,
    // Runs above the approval threshold (docs/payouts.md#payout-runs): the starter sees no button.
    runs: runs.map((run) => ({
      id: run.id,
      total: money(page, run.totalCents),
      payouts: count(page, run.payoutCount),
      startedBy: t.dash.payouts.starter(run.startedBy.type, run.startedBy.id ?? ''),
      created: day(page, run.createdAt),
      mine: run.startedBy.type === 'user' && run.startedBy.id === String(actor.userId),
    })),
    statuses: PAYOUT_STATUSES.map((s) => ({ value: s, text: t.status[s] ?? s })),
    filters: { status: status ?? '' },
    canSend: rails.length > 0,
    payouts: list.payouts.map((p) => ({
      id: p.id,
      affiliate: p.affiliateName ?? p.affiliateEmail,
      amount: amount(page, p.amount),
      status: p.status,
      statusText: t.status[p.status] ?? p.status,
      created: day(page, p.createdAt),
      paid: day(page, p.paidAt),
    })),
    pager: pager(page, list.total, current, { status }),
  });
}

export async function postCreatePayouts(page: DashPage, actor: NonNullable<DashPage['actor']>): Promise<void> {
  const result = await page.services.dashboard.createPayouts(actor);
  redirect(page, `/payouts?n=${result.created.length}`);
}

export async function postPayoutPaid(
  page: DashPage,
  actor: NonNullable<DashPage['actor']>,
  fields: FormFields,
): Promise<void> {
  const id = idParam.safeParse(fields.id);
  if (id.success) await page.services.dashboard.markPayoutPaid(actor, id.data);
  redirect(page, '/payouts?notice=saved');
}

/** The payouts of the filter as the CLI's `payouts export` writes them (shared/payoutsCsv.ts). */
export async function payoutsFile(page: DashPage, actor: NonNullable<DashPage['actor']>): Promise<void> {
  const status = pick(PAYOUT_STATUSES, page.query.status);
  const payouts = await page.services.dashboard.allPayouts(actor, status);
  page.ctx.status = 200;
  page.ctx.type = 'text/csv; charset=utf-8';
  page.ctx.set('Cache-Control', 'no-store');
  page.ctx.attachment(`payouts-${page.campaign.publicId}${status ? `-${status}` : ''}.csv`);
  page.ctx.body = payoutsCsv(payouts);
}
