import type { Webhook } from '../../shared/schemas/webhook.js';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_STATUSES } from '../../shared/vocabulary.js';
import { NotFoundError } from '../errors.js';
import type { FormFields } from '../services/portal/index.js';
import { changeOr, moment, pathId, refusal } from './campaignPages.js';
import { pager, PER_PAGE } from './dataPages.js';
import { count, type DashPage, day, noticeOf, redirect, render } from './page.js';
import { idParam } from './query.js';

type Actor = NonNullable<DashPage['actor']>;

/** The form's ticked events (`ev_<type>=on`) and fields as the body of `POST /v1/webhooks`. */
function webhookInput(fields: FormFields): Record<string, unknown> {
  const input: Record<string, unknown> = {
    url: fields.url ?? '',
    events: WEBHOOK_EVENT_TYPES.filter((e) => fields[`ev_${e}`] === 'on'),
  };
  if (fields.description) input.description = fields.description;
  return input;
}

async function webhooksPage(
  page: DashPage,
  actor: Actor,
  extra: { created?: { url: string; secret: string }; problem?: string; values?: FormFields } = {},
  status = 200,
): Promise<void> {
  const current = page.query.page ?? 1;
  const list = await page.services.dashboard.webhooks(actor, current, PER_PAGE);
  const t = page.t.dash.webhooks;
  const values = extra.values ?? {};
  render(
    page,
    'webhooks',
    {
      title: t.title,
      nav: 'webhooks',
      notice: page.query.notice === 'deleted' ? t.removed : noticeOf(page),
      problem: extra.problem ?? null,
      created: extra.created ?? null,
      values,
      events: WEBHOOK_EVENT_TYPES.map((e) => ({ value: e, checked: values[`ev_${e}`] === 'on' })),
      webhooks: list.webhooks.map((w) => ({
        id: w.id,
        url: w.url,
        description: w.description ?? '',
        events: w.events.join(', '),
        status: w.status,
        statusText: w.disabledReason ? t.disabled(w.disabledReason) : (t.states[w.status] ?? w.status),
        created: day(page, w.createdAt),
      })),
      pager: pager(page, list.total, current, {}),
    },
    status,
  );
}

export const showWebhooks = (page: DashPage, actor: Actor) => webhooksPage(page, actor);

/** The signing secret is on this answer only (no redirect, `no-store`), as a new API key's. */
export async function postCreateWebhook(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  try {
    const made = await page.services.dashboard.createWebhook(actor, webhookInput(fields));
    await webhooksPage(page, actor, { created: { url: made.url, secret: made.secret } });
  } catch (err) {
    const refused = refusal(err);
    if (!refused) throw err;
    await webhooksPage(page, actor, { problem: refused.message, values: fields }, refused.status);
  }
}

export async function postRemoveWebhook(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = idParam.safeParse(fields.id);
  if (id.success) await page.services.dashboard.removeWebhook(actor, id.data);
  redirect(page, '/webhooks?notice=deleted');
}

/** What the endpoint's page shows beside it: a secret just rotated (this answer only), or a refused edit. */
interface EndpointExtra {
  rotated?: string;
  problem?: string;
  values?: FormFields;
}

/** One endpoint and its deliveries, newest first, with each one's attempts as the API lists them. */
async function webhookPage(page: DashPage, actor: Actor, id: number, extra: EndpointExtra = {}, status = 200) {
  const current = page.query.page ?? 1;
  const found = await page.services.dashboard.webhook(actor, id, current, PER_PAGE);
  const t = page.t.dash.webhooks;
  const w = found.webhook;
  // The edit form: what the endpoint is, or what was typed when the API refused it.
  const typed = extra.values;
  const edit = typed
    ? { url: typed.url ?? '', description: typed.description ?? '', status: typed.status ?? w.status }
    : { url: w.url, description: w.description ?? '', status: w.status };
  const ticked = (e: string) => (typed ? typed[`ev_${e}`] === 'on' : (w.events as readonly string[]).includes(e));
  render(
    page,
    'webhook',
    {
      title: t.endpoint(w.url),
      nav: 'webhooks',
      notice: noticeOf(page),
      problem: extra.problem ?? null,
      created: extra.rotated ? { url: w.url, secret: extra.rotated } : null,
      webhook: {
        ...w,
        events: w.events.join(', '),
        created: day(page, w.createdAt),
        statusText: t.states[w.status] ?? w.status,
      },
      edit,
      events: WEBHOOK_EVENT_TYPES.map((e) => ({ value: e, checked: ticked(e) })),
      statuses: WEBHOOK_STATUSES.map((value) => ({ value, text: t.states[value] ?? value })),
      deliveries: found.deliveries.map((d) => {
        const last = d.attempts.at(-1);
        return {
          id: d.id,
          event: d.eventType,
          status: d.status,
          statusText: t.states[d.status] ?? d.status,
          attempts: count(page, d.attempts.length),
          last: last ? (last.statusCode === null ? (last.error ?? '—') : String(last.statusCode)) : '—',
          created: moment(page, d.createdAt),
          next: moment(page, d.nextAttemptAt),
        };
      }),
      pager: pager(page, found.total, current, {}),
    },
    status,
  );
}

export const showWebhook = (page: DashPage, actor: Actor) => webhookPage(page, actor, pathId(page));

/** The endpoint of a form (its `id` field): a form naming none is the page of a thing that does not exist. */
function formId(value: string | undefined): number {
  const id = idParam.safeParse(value);
  if (!id.success) throw new NotFoundError('Not Found');
  return id.data;
}

/**
 * The edit form as the body of `PATCH /v1/webhooks/{id}`, with only what differs from the
 * endpoint as the page showed it: the audit log names what changed, and an endpoint left
 * `enabled` keeps its failing streak (sending `status: enabled` starts it afresh). No event
 * ticked is the API's refusal; an emptied description is cleared as `--description ""` does.
 */
function updateInput(fields: FormFields, was: Webhook): Record<string, unknown> {
  const { url, events, description } = webhookInput(fields);
  const form: Record<string, unknown> = {
    url,
    events,
    description: typeof description === 'string' ? description : null,
    status: fields.status,
  };
  const current: Record<string, unknown> = {
    url: was.url,
    events: was.events,
    description: was.description,
    status: was.status,
  };
  // Events are a set: the same ones in another order are no change.
  const plain = (value: unknown) => JSON.stringify(Array.isArray(value) ? [...value].sort() : value);
  return Object.fromEntries(Object.entries(form).filter(([key, value]) => plain(value) !== plain(current[key])));
}

/** A change to one endpoint; the API's refusal (400, 409) is shown on its page with what was typed. */
const changeEndpoint = (
  page: DashPage,
  actor: Actor,
  id: number,
  work: () => Promise<unknown>,
  after: { notice: string; values?: FormFields },
) =>
  changeOr(
    work,
    () => redirect(page, `/webhooks/${id}?notice=${after.notice}`),
    (refused) => webhookPage(page, actor, id, { problem: refused.message, values: after.values }, refused.status),
  );

export async function postUpdateWebhook(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = formId(fields.id);
  const was = (await page.services.dashboard.webhook(actor, id, 1, 1)).webhook;
  const work = () => page.services.dashboard.updateWebhook(actor, id, updateInput(fields, was));
  await changeEndpoint(page, actor, id, work, { notice: 'created', values: fields });
}

/** The new secret is on this answer only (no redirect, `no-store`), as a new endpoint's. */
export async function postRotateWebhookSecret(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = formId(fields.id);
  let secret: string;
  try {
    secret = (await page.services.dashboard.rotateWebhookSecret(actor, id)).secret;
  } catch (err) {
    // Too many retired secrets still signing: the API's 409, in its words.
    const refused = refusal(err);
    if (!refused) throw err;
    return webhookPage(page, actor, id, { problem: refused.message }, refused.status);
  }
  await webhookPage(page, actor, id, { rotated: secret });
}

export async function postTestWebhook(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = formId(fields.id);
  await changeEndpoint(page, actor, id, () => page.services.dashboard.testWebhook(actor, id), { notice: 'testSent' });
}

export async function postRetryDelivery(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = formId(fields.id);
  const delivery = formId(fields.delivery);
  const work = () => page.services.dashboard.retryDelivery(actor, id, delivery);
  await changeEndpoint(page, actor, id, work, { notice: 'retried' });
}
