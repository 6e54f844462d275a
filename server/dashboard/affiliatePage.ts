import { AFFILIATE_STATUSES, COMMISSION_TYPES } from '../../shared/vocabulary.js';
import type { Affiliate } from '../../shared/schemas/affiliate.js';
import { NotFoundError } from '../errors.js';
import type { FormFields } from '../services/portal/index.js';
import { commissionText, pathId, refusal } from './campaignPages.js';
import { amount } from './dataPages.js';
import { count, type DashPage, day, noticeOf, redirect, render } from './page.js';
import { idParam } from './query.js';

type Actor = NonNullable<DashPage['actor']>;

/** What a refused form shows again: the API's message above the form that failed, and what was typed there. */
interface Refused {
  editProblem?: string;
  couponProblem?: string;
  values?: FormFields;
}

/** The edit form's fields as the affiliate has them. */
function valuesOf(a: Affiliate): Record<string, string> {
  return {
    name: a.name ?? '',
    email: a.email,
    phone: a.phone ?? '',
    referralId: a.referralId,
    status: a.status,
    groupId: a.groupId === null ? '' : String(a.groupId),
    parentAffiliateId: a.parentAffiliateId === null ? '' : String(a.parentAffiliateId),
    overrideType: a.commissionOverride?.commissionType ?? '',
    overrideValue: a.commissionOverride === null ? '' : String(a.commissionOverride.commissionValue),
  };
}

async function affiliatePage(page: DashPage, actor: Actor, id: number, refused: Refused = {}, status = 200) {
  const { affiliate: a, coupons, conversions, payouts } = await page.services.dashboard.affiliate(actor, id);
  const groups = await page.services.dashboard.groupChoices(actor);
  const t = page.t;
  const name = a.name ?? a.email;
  const values = { ...valuesOf(a), ...refused.values, password: '' };
  // A group past the form's first page of groups is still offered as the affiliate's own.
  const choices = groups.map((g) => ({ value: String(g.id), text: g.name }));
  if (a.groupId !== null && !choices.some((g) => g.value === String(a.groupId))) {
    choices.push({ value: String(a.groupId), text: `#${a.groupId}` });
  }
  render(
    page,
    'affiliate',
    {
      title: t.dash.affiliate.title(name),
      nav: 'affiliates',
      notice: noticeOf(page),
      editProblem: refused.editProblem ?? null,
      couponProblem: refused.couponProblem ?? null,
      values,
      statuses: AFFILIATE_STATUSES.map((s) => ({ value: s, text: t.dash.affiliateStatus[s] })),
      groups: choices,
      overrideTypes: COMMISSION_TYPES.map((value) => ({ value, text: t.dash.groups[value] })),
      name,
      a: {
        ...a,
        statusText: t.dash.affiliateStatus[a.status],
        groupName: choices.find((g) => g.value === String(a.groupId))?.text ?? null,
        override: a.commissionOverride === null ? null : commissionText(page, a.commissionOverride),
        joined: day(page, a.createdAt),
        totalConversions: count(page, a.totalConversions),
        totalCommissions: amount(page, a.totalCommissions),
        totalPaid: amount(page, a.totalPaid),
        flags: a.flags.map((f) => t.dash.affiliate.flagText[f] ?? f),
      },
      coupons: coupons.map((c) => ({ code: c.code, created: day(page, c.createdAt) })),
      conversions: conversions.conversions.map((c) => ({
        order: c.orderId,
        value: amount(page, c.orderValue),
        commission: amount(page, c.commission),
        statusText: t.status[c.status] ?? c.status,
        status: c.status,
        date: day(page, c.createdAt),
      })),
      payouts: payouts.payouts.map((p) => ({
        id: p.id,
        amount: amount(page, p.amount),
        status: p.status,
        statusText: t.status[p.status] ?? p.status,
        created: day(page, p.createdAt),
        paid: day(page, p.paidAt),
      })),
    },
    status,
  );
}

/** One affiliate: its figures, where it is paid, its flags and coupons, its latest conversions and payouts; its forms. */
export const showAffiliate = (page: DashPage, actor: Actor) => affiliatePage(page, actor, pathId(page));

/** The affiliate a form names (`id`): a form of none is a page that does not exist, as the API's 404. */
function formId(fields: FormFields): number {
  const id = idParam.safeParse(fields.id);
  if (!id.success) throw new NotFoundError('Not Found');
  return id.data;
}

/** A text field: empty clears it (`null`, as the API takes it). */
const cleared = (value: string | undefined) => (value === undefined || value.trim() !== '' ? value : null);

/** An id or a number typed in a field: a number when it reads as one, else as typed (the schema names the problem). */
function numberOf(value: string | undefined): unknown {
  if (value === undefined || value.trim() === '') return value === undefined ? undefined : null;
  const n = Number(value.trim().replace(',', '.'));
  return Number.isFinite(n) ? n : value;
}

/** The edit form as `PATCH /v1/affiliates/{id}`'s body: an empty password keeps the affiliate's. */
function affiliateInput(fields: FormFields): Record<string, unknown> {
  const value = numberOf(fields.overrideValue);
  const input: Record<string, unknown> = {
    name: cleared(fields.name),
    email: fields.email,
    phone: cleared(fields.phone),
    referralId: fields.referralId,
    status: fields.status,
    groupId: numberOf(fields.groupId),
    parentAffiliateId: numberOf(fields.parentAffiliateId),
    commissionOverride:
      fields.overrideType === undefined
        ? undefined
        : fields.overrideType === ''
          ? null
          : { commissionType: fields.overrideType, ...(value !== null && { commissionValue: value }) },
    password: fields.password || undefined,
  };
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

export async function postUpdateAffiliate(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = formId(fields);
  try {
    await page.services.dashboard.updateAffiliate(actor, id, affiliateInput(fields));
  } catch (err) {
    const refused = refusal(err);
    if (!refused) throw err;
    // What was typed comes back, but never the password.
    return affiliatePage(page, actor, id, { editProblem: refused.message, values: fields }, refused.status);
  }
  redirect(page, `/affiliates/${id}?notice=created`);
}

export async function postAddCoupon(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = formId(fields);
  try {
    await page.services.dashboard.addCoupon(actor, id, { code: fields.code ?? '' });
  } catch (err) {
    const refused = refusal(err);
    if (!refused) throw err;
    const values = { code: fields.code ?? '' };
    return affiliatePage(page, actor, id, { couponProblem: refused.message, values }, refused.status);
  }
  redirect(page, `/affiliates/${id}?notice=created`);
}

export async function postRemoveCoupon(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = formId(fields);
  await page.services.dashboard.removeCoupon(actor, id, fields.code ?? '');
  redirect(page, `/affiliates/${id}?notice=deleted`);
}
