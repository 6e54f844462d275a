import { AUDIT_ACTIONS, AUDIT_ACTOR_TYPES, COMMISSION_TYPES } from '../../shared/vocabulary.js';
import type { Recurring } from '../../shared/schemas/commission.js';
import type { AuditEntry } from '../../shared/schemas/audit.js';
import { HttpError, NotFoundError } from '../errors.js';
import type { FormFields } from '../services/portal/index.js';
import { amount, pager, PER_PAGE, pick } from './dataPages.js';
import { count, type DashPage, noticeOf, redirect, render } from './page.js';
import { idParam } from './query.js';

type Actor = NonNullable<DashPage['actor']>;

/** A date and time to the minute, in UTC as the audit log and deliveries are kept. */
export function moment(page: DashPage, at: string | null): string {
  if (at === null) return '—';
  const text = new Intl.DateTimeFormat(page.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
  return `${text.format(new Date(at))} UTC`;
}

/** The `:id` of the address: a page that cannot exist is a 404, as the API's. */
export function pathId(page: DashPage): number {
  const id = idParam.safeParse(page.ctx.params?.id);
  if (!id.success) throw new NotFoundError('Not Found');
  return id.data;
}

/** A refusal the API would answer with 400 or 409 (its messages), for the page to show with its form again. */
export function refusal(err: unknown): HttpError | undefined {
  return err instanceof HttpError && (err.status === 400 || err.status === 409) ? err : undefined;
}

/** Makes a form's change, then `done` (a redirect); on the API's refusal (400, 409) `refused` instead: the page again, with its message. */
export async function changeOr(
  work: () => Promise<unknown>,
  done: () => void,
  refused: (err: HttpError) => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (err) {
    const problem = refusal(err);
    if (!problem) throw err;
    return refused(problem);
  }
  done();
}

function who(page: DashPage, entry: AuditEntry): string {
  const kind = page.t.dash.audit.actors[entry.actor.type] ?? entry.actor.type;
  if (entry.actor.type === 'key') return `${kind} ${entry.actor.label ?? ''} (#${entry.actor.id ?? ''})`;
  if (entry.actor.type === 'user') return `${kind} #${entry.actor.id ?? ''}`;
  return entry.actor.id ? `${kind}: ${entry.actor.id}` : kind;
}

/** The audit log, through the service of `GET /v1/audit-log`: by action, by kind of actor, by dates, 25 a page. */
export async function showAudit(page: DashPage, actor: Actor): Promise<void> {
  const q = page.query;
  const action = pick(AUDIT_ACTIONS, q.action);
  const actorType = pick(AUDIT_ACTOR_TYPES, q.actor);
  const current = q.page ?? 1;
  const query = { action, actorType, from: q.from, to: q.to, page: current, limit: PER_PAGE };
  let problem: string | null = null;
  let log = { changes: [] as AuditEntry[], total: 0 };
  try {
    log = await page.services.dashboard.auditLog(actor, query);
  } catch (err) {
    // `from` after `to`: the API's 400, in its words, above the filters to fix.
    const refused = refusal(err);
    if (!refused) throw err;
    problem = refused.message;
  }
  const t = page.t.dash.audit;
  render(
    page,
    'audit',
    {
      title: t.title,
      nav: 'audit',
      problem,
      actions: AUDIT_ACTIONS,
      actors: AUDIT_ACTOR_TYPES.map((value) => ({ value, text: t.actors[value] ?? value })),
      filters: { action: action ?? '', actor: actorType ?? '', from: q.from ?? '', to: q.to ?? '' },
      changes: log.changes.map((c) => ({
        when: moment(page, c.createdAt),
        who: who(page, c),
        action: c.action,
        target: c.target.id === null ? c.target.type : `${c.target.type} #${c.target.id}`,
        fields: c.details.fields.join(', '),
        figures: Object.entries(c.details.figures)
          .map(([k, v]) => `${k}: ${count(page, v)}`)
          .join(', '),
        address: c.address ?? '—',
      })),
      pager: pager(page, log.total, current, { action, actor: actorType, from: q.from, to: q.to }),
    },
    problem ? 400 : 200,
  );
}

function recurringText(page: DashPage, recurring: Recurring | null): string {
  const t = page.t.dash.rules;
  if (recurring === null) return '—';
  if (recurring === 'lifetime') return t.lifetime;
  if (recurring === 'first') return t.first;
  return t.months(count(page, recurring.months));
}

export function commissionText(page: DashPage, rule: { commissionType: string; commissionValue: number }): string {
  return rule.commissionType === 'percent'
    ? `${count(page, rule.commissionValue)} %`
    : amount(page, rule.commissionValue);
}

/** The campaign's rules: read here, changed by the operator's CLI (the API has no call that changes them). */
export async function showRules(page: DashPage, actor: Actor): Promise<void> {
  const c = await page.services.dashboard.rules(actor);
  const t = page.t.dash.rules;
  const rows = [
    [t.commission, commissionText(page, c)],
    [t.cookieDays, t.days(count(page, c.cookieDays))],
    [t.autoApprove, c.autoApproveDays === null ? t.byHand : t.days(count(page, c.autoApproveDays))],
    [t.payoutMinimum, amount(page, c.payoutMinimum)],
    [t.recurring, recurringText(page, c.recurring)],
    [t.secondTier, `${count(page, c.secondTierPercent)} %`],
    [t.currency, c.currency],
  ];
  const products = c.products.map((p) => ({ product: p.product, rule: commissionText(page, p) }));
  render(page, 'rules', { title: t.title, nav: 'rules', rows, products });
}

/** A group form as the API's body: numbers as numbers, an empty field left out (the schema names what is missing). */
function groupInput(fields: FormFields): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  if (fields.name) input.name = fields.name;
  if (fields.commissionType) input.commissionType = fields.commissionType;
  if (fields.commissionValue) {
    const value = Number(fields.commissionValue.replace(',', '.'));
    input.commissionValue = Number.isFinite(value) ? value : fields.commissionValue;
  }
  return input;
}

async function groupsPage(
  page: DashPage,
  actor: Actor,
  extra: { problem?: string; values?: FormFields } = {},
  status = 200,
): Promise<void> {
  const current = page.query.page ?? 1;
  const list = await page.services.dashboard.groups(actor, current, PER_PAGE);
  const t = page.t.dash.groups;
  render(
    page,
    'groups',
    {
      title: t.title,
      nav: 'groups',
      notice: noticeOf(page),
      problem: extra.problem ?? null,
      values: extra.values ?? {},
      types: COMMISSION_TYPES.map((value) => ({ value, text: t[value] })),
      groups: list.groups.map((g) => ({
        id: g.id,
        name: g.name,
        type: g.commissionType,
        value: String(g.commissionValue),
        rule: commissionText(page, g),
        affiliates: count(page, g.affiliateCount),
      })),
      pager: pager(page, list.total, current, {}),
    },
    status,
  );
}

export const showGroups = (page: DashPage, actor: Actor) => groupsPage(page, actor);

/** Creates, changes or deletes a group through the API's service; a refusal is shown with the form again. */
async function changeGroup(page: DashPage, actor: Actor, fields: FormFields, work: () => Promise<unknown>) {
  try {
    await work();
  } catch (err) {
    const refused = refusal(err);
    if (!refused) throw err;
    return groupsPage(page, actor, { problem: refused.message, values: fields }, refused.status);
  }
  redirect(page, '/groups?notice=created');
}

export const postCreateGroup = (page: DashPage, actor: Actor, fields: FormFields) =>
  changeGroup(page, actor, fields, () => page.services.dashboard.createGroup(actor, groupInput(fields)));

export async function postUpdateGroup(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = idParam.safeParse(fields.id);
  if (!id.success) return groupsPage(page, actor, {}, 400);
  return changeGroup(page, actor, {}, () => page.services.dashboard.updateGroup(actor, id.data, groupInput(fields)));
}

export async function postRemoveGroup(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = idParam.safeParse(fields.id);
  if (id.success) await page.services.dashboard.removeGroup(actor, id.data);
  redirect(page, '/groups?notice=deleted');
}
