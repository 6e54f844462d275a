import { BILLING_PROVIDERS, PAYOUT_RAIL_NAMES } from '../../shared/vocabulary.js';
import type { FormFields } from '../services/portal/index.js';
import { changeOr, moment } from './campaignPages.js';
import { pager, PER_PAGE } from './dataPages.js';
import { count, type DashPage, day, noticeOf, redirect, render } from './page.js';

type Actor = NonNullable<DashPage['actor']>;

/** Every credential a rail's form may carry; the API's schema refuses one foreign to the rail, in its words. */
const CREDENTIALS = ['apiKey', 'clientId', 'clientSecret', 'secretKey', 'webhookToken'] as const;

/** A rail form's body: its filled fields only, so an optional one left empty is not sent (as the CLI leaves a flag out). */
function railInput(fields: FormFields): Record<string, string> {
  return Object.fromEntries(CREDENTIALS.flatMap((name) => (fields[name] ? [[name, fields[name]]] : [])));
}

/**
 * Billing providers and payout rails as the API lists them (no secret is ever in them), the
 * events received, and the forms that connect them. A form refused is shown again without its
 * secrets: what was pasted is never sent back to the browser.
 */
async function integrationsPage(
  page: DashPage,
  actor: Actor,
  extra: { problem?: string; provider?: string } = {},
  status = 200,
): Promise<void> {
  const current = page.query.page ?? 1;
  const view = await page.services.dashboard.integrations(actor, page.campaign, current, PER_PAGE);
  const t = page.t.dash.integrations;
  render(
    page,
    'integrations',
    {
      title: t.title,
      nav: 'integrations',
      notice: noticeOf(page),
      problem: extra.problem ?? null,
      providers: BILLING_PROVIDERS.map((value) => ({ value, selected: value === extra.provider })),
      railForms: PAYOUT_RAIL_NAMES.map((rail) => ({
        rail,
        name: t.railNames[rail],
        // The words of each rail's fields are keyed by the names its `PUT /v1/payout-rails/{rail}` body has.
        fields: Object.entries(t.credentials[rail]).map(([name, words]) => ({ name, ...words })),
      })),
      integrations: view.integrations.integrations.map((i) => ({
        provider: i.provider,
        receivePath: i.receivePath,
        lastEvent: moment(page, i.lastEventAt),
        previousUntil: i.previousSecretExpiresAt ? t.previousUntil(moment(page, i.previousSecretExpiresAt)) : '',
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
    },
    status,
  );
}

export const showIntegrations = (page: DashPage, actor: Actor) => integrationsPage(page, actor);

/** Sets or removes credentials through the API's service; its refusal (400) is shown above the forms. */
const changeIntegrations = (
  page: DashPage,
  actor: Actor,
  fields: FormFields,
  work: () => Promise<unknown>,
  notice: 'connected' | 'disconnected',
) =>
  changeOr(
    work,
    () => redirect(page, `/integrations?notice=${notice}`),
    (refused) => integrationsPage(page, actor, { problem: refused.message, provider: fields.provider }, refused.status),
  );

/** `PUT /v1/integrations/{provider}`: connects Stripe or Paddle, or rotates its signing secret. */
export const postPutIntegration = (page: DashPage, actor: Actor, fields: FormFields) =>
  changeIntegrations(
    page,
    actor,
    fields,
    () =>
      page.services.dashboard.putIntegration(actor, page.campaign, fields.provider, {
        signingSecret: fields.signingSecret ?? '',
      }),
    'connected',
  );

export const postRemoveIntegration = (page: DashPage, actor: Actor, fields: FormFields) =>
  changeIntegrations(
    page,
    actor,
    fields,
    () => page.services.dashboard.removeIntegration(actor, fields.provider),
    'disconnected',
  );

/** `PUT /v1/payout-rails/{rail}`: connects the rail, or replaces its credentials. */
export const postPutPayoutRail = (page: DashPage, actor: Actor, fields: FormFields) =>
  changeIntegrations(
    page,
    actor,
    fields,
    () => page.services.dashboard.putPayoutRail(actor, page.campaign, fields.rail, railInput(fields)),
    'connected',
  );

export const postRemovePayoutRail = (page: DashPage, actor: Actor, fields: FormFields) =>
  changeIntegrations(
    page,
    actor,
    fields,
    () => page.services.dashboard.removePayoutRail(actor, fields.rail),
    'disconnected',
  );
