import { WEBHOOK_EVENT_TYPES } from '../../shared/vocabulary.js';
import type { FormFields } from '../services/portal/index.js';
import { moment, pathId, refusal } from './campaignPages.js';
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

/** One endpoint and its deliveries, newest first, with each one's attempts as the API lists them. */
export async function showWebhook(page: DashPage, actor: Actor): Promise<void> {
  const current = page.query.page ?? 1;
  const found = await page.services.dashboard.webhook(actor, pathId(page), current, PER_PAGE);
  const t = page.t.dash.webhooks;
  render(page, 'webhook', {
    title: t.endpoint(found.webhook.url),
    nav: 'webhooks',
    webhook: {
      ...found.webhook,
      events: found.webhook.events.join(', '),
      created: day(page, found.webhook.createdAt),
      statusText: t.states[found.webhook.status] ?? found.webhook.status,
    },
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
  });
}

/** Billing providers and payout rails as the API lists them (no secret is ever in them), and the events received. */
export async function showIntegrations(page: DashPage, actor: Actor): Promise<void> {
  const current = page.query.page ?? 1;
  const view = await page.services.dashboard.integrations(actor, page.campaign, current, PER_PAGE);
  const t = page.t.dash.integrations;
  render(page, 'integrations', {
    title: t.title,
    nav: 'integrations',
    integrations: view.integrations.integrations.map((i) => ({
      provider: i.provider,
      receivePath: i.receivePath,
      lastEvent: moment(page, i.lastEventAt),
      outcomes: Object.entries(i.outcomes)
        .map(([k, v]) => `${k}: ${count(page, v)}`)
        .join(', '),
      created: day(page, i.createdAt),
    })),
    rails: view.rails.rails.map((r) => ({
      rail: r.rail,
      callback: r.callbackPath ?? '—',
      token: r.hasWebhookToken ? t.tokenSet : t.tokenUnset,
      updated: day(page, r.updatedAt),
    })),
    events: view.events.events.map((e) => ({
      received: moment(page, e.receivedAt),
      provider: e.provider,
      type: e.type,
      outcome: e.outcome,
      reason: e.reason ?? '',
      order: e.orderId ?? '',
    })),
    pager: pager(page, view.events.total, current, {}),
  });
}
