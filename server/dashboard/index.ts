import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router, RouterEvents } from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { Config } from '../config.js';
import { HttpError, StartupError } from '../errors.js';
import type { Logger } from '../logger.js';
import { pageError } from '../portal/errorPage.js';
import { readForm } from '../portal/forms.js';
import { actingAs, userActor } from '../services/audit.js';
import type { Services } from '../services/index.js';
import type { FormFields } from '../services/portal/index.js';
import { renderView } from '../views/engine.js';
import { negotiateLocale } from '../views/locale.js';
import { textsFor } from '../views/texts/index.js';
import { campaignRoutes } from './campaignRoutes.js';
import { postFactor, postLogin, postLogout, postSetup, showFactor, showLogin, showSetup } from './authPages.js';
import {
  payoutsFile,
  postApproveAffiliate,
  postCreatePayouts,
  postMoveConversions,
  postPayoutPaid,
  showAffiliates,
  showConversions,
  showPayouts,
} from './dataPages.js';
import { type DashPage, redirect } from './page.js';
import {
  postAddPasskey,
  postLogInOptions,
  postPasskeyFactor,
  postRegistrationOptions,
  postRemovePasskey,
  showOverviewOrCodes,
  showPasskeys,
} from './passkeyPages.js';
import { postApprovePayoutRun, postSendPayout, postStartPayoutRun } from './payoutRunPages.js';
import { parseDashboardQuery } from './query.js';
import { csrfValid, dashboardHeaders, originValid, sessionSecretOf } from './security.js';
import {
  postCreateKey,
  postInvite,
  postRemoveUser,
  postRevokeKey,
  postRole,
  showKeys,
  showUsers,
} from './settingsPages.js';

const pages = new WeakMap<Context, DashPage>();

function pageOf(ctx: Context): DashPage {
  const page = pages.get(ctx);
  if (!page) throw new Error('a dashboard page ran outside the dashboard');
  return page;
}

type Actor = NonNullable<DashPage['actor']>;
/** The conversions form ticks up to a page of rows (`c<id>=on`) besides its token and action. */
const FORM_FIELDS = 64;

/**
 * docs/dashboard.md: the pages after `/dashboard/{publicId}`. Before log-in only the log-in and
 * set-up pages answer; a session that owes its second factor reaches only that page and log-out;
 * every other page needs a whole session, and what it may do is the service's call (403).
 */
function pagesRouter(config: Readonly<Config>): Router {
  const router = new Router({ prefix: '/dashboard/:publicId' });
  const checked = async (ctx: Context): Promise<FormFields | undefined> => {
    const page = pageOf(ctx);
    const fields = await readForm(ctx, FORM_FIELDS);
    // A post from another site, or without this browser's token, changes nothing.
    if (!originValid(ctx, config.publicUrl) || !csrfValid(ctx, page.campaign.publicId, fields.csrf)) {
      const t = page.t.errors;
      bare(ctx, 403, t.csrfTitle, t.csrf, page.locale);
      return undefined;
    }
    return fields;
  };
  const open = (handler: (page: DashPage) => Promise<void> | void) => (ctx: Context) => handler(pageOf(ctx));
  const openPost = (handler: (page: DashPage, fields: FormFields) => Promise<void>) => async (ctx: Context) => {
    const fields = await checked(ctx);
    if (fields) await handler(pageOf(ctx), fields);
  };
  /** A page for a whole session: the log-in page without one, the second factor while it is owed. */
  const whole = (page: DashPage): Actor | undefined => {
    if (!page.actor) redirect(page, '/');
    else if (page.actor.factorPending) redirect(page, '/factor');
    else return page.actor;
    return undefined;
  };
  const show = (handler: (page: DashPage, actor: Actor) => Promise<void> | void) => (ctx: Context) => {
    const page = pageOf(ctx);
    const actor = whole(page);
    return actor && handler(page, actor);
  };
  const post =
    (handler: (page: DashPage, actor: Actor, fields: FormFields) => Promise<void>) => async (ctx: Context) => {
      const fields = await checked(ctx);
      if (!fields) return;
      const page = pageOf(ctx);
      const actor = whole(page);
      // What the page changes is recorded as this user's doing, from this client's address.
      if (actor) await actingAs(userActor(actor.userId, ctx.ip), () => handler(page, actor, fields));
    };

  router.get('/', open(showLogin));
  router.post('/login', openPost(postLogin));
  router.post('/logout', openPost(postLogout));
  router.get('/setup', open(showSetup));
  router.post('/setup', openPost(postSetup));
  router.get('/factor', open(showFactor));
  router.post('/factor', openPost(postFactor));
  router.post('/factor/passkey/options', openPost(postLogInOptions));
  router.post('/factor/passkey', openPost(postPasskeyFactor));
  // Open to a session owing its factor too: a first passkey instead of TOTP (the service decides).
  router.post('/passkeys/options', openPost(postRegistrationOptions));
  router.post('/passkeys', openPost(postAddPasskey));
  router.get('/passkeys', show(showPasskeys));
  router.post('/passkeys/remove', post(postRemovePasskey));
  router.get('/overview', show(showOverviewOrCodes));
  router.get('/affiliates', show(showAffiliates));
  router.post('/affiliates/approve', post(postApproveAffiliate));
  router.get('/conversions', show(showConversions));
  router.post('/conversions/status', post(postMoveConversions));
  router.get('/payouts', show(showPayouts));
  router.get('/payouts.csv', show(payoutsFile));
  router.post(
    '/payouts/run',
    post((page, actor) => postCreatePayouts(page, actor)),
  );
  router.post('/payouts/paid', post(postPayoutPaid));
  router.post('/payouts/send', post(postSendPayout));
  router.post('/payouts/runs', post(postStartPayoutRun));
  router.post('/payouts/runs/approve', post(postApprovePayoutRun));
  router.get('/settings/keys', show(showKeys));
  router.post('/settings/keys', post(postCreateKey));
  router.post('/settings/keys/revoke', post(postRevokeKey));
  router.get('/users', show(showUsers));
  router.post('/users', post(postInvite));
  router.post('/users/role', post(postRole));
  router.post('/users/remove', post(postRemoveUser));
  campaignRoutes(router, show, post);
  router.on(RouterEvents.NotFound, (ctx) => {
    const page = pageOf(ctx);
    const methods = new Set((ctx.matched ?? []).flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD')));
    if (methods.size > 0) ctx.set('Allow', [...methods].join(', '));
    const t = page.t.errors;
    bare(ctx, methods.size > 0 ? 405 : 404, t.notFoundTitle, t.notFound, page.locale);
  });
  return router;
}

/** Every route of the dashboard's pages (method, path after `/dashboard/{publicId}`): the security suite posts to each form. */
export function dashboardRoutes(config: Readonly<Config>): { method: string; path: string }[] {
  return pagesRouter(config).stack.flatMap((layer) =>
    layer.methods
      .filter((method) => method !== 'HEAD')
      .map((method) => ({ method, path: String(layer.path).replace('/dashboard/:publicId', '') })),
  );
}

const DASHBOARD_PATH = /^\/dashboard\/([A-Za-z0-9_-]{3,64})(\/.*)?$/;
const CSS = '/dashboard/assets/dashboard.css';
const JS = 'text/javascript; charset=utf-8';

function loadAssets(): Map<string, { body: Buffer; type: string }> {
  const read = (name: string) => {
    try {
      return readFileSync(new URL(`../views/assets/${name}`, import.meta.url));
    } catch {
      throw new StartupError(`the dashboard's ${name} is missing: run \`npm run build\``);
    }
  };
  // The portal's stylesheet, then the dashboard's few rules of its own (tables, the chart, the QR code).
  const css = Buffer.concat([read('portal.css'), read('dashboard.css')]);
  // The passkey buttons' scripts: @simplewebauthn/browser's bundle as its package ships it (no CDN), then ours.
  // Its `exports` name only the module entry: the bundle is found beside it, in the package's folder.
  const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  const webauthn = readFileSync(join(dirname(dirname(entry)), 'dist/bundle/index.umd.min.js'));
  return new Map([
    [CSS, { body: css, type: 'text/css; charset=utf-8' }],
    ['/dashboard/assets/webauthn.js', { body: webauthn, type: JS }],
    ['/dashboard/assets/passkeys.js', { body: read('passkeys.js'), type: JS }],
  ]);
}

/** The error pages' frame: it needs no campaign. */
function bare(ctx: Context, status: number, title: string, text: string, lang: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = renderView('error', { title, text, lang, css: CSS });
}

/**
 * The merchant dashboard, served by the daemon at `/dashboard/{campaignPublicId}/`
 * (docs/dashboard.md), built as the affiliate portal is: HTML pages, errors as pages, forms
 * checked for a CSRF token and their `Origin`. Handlers read the form and call the dashboard
 * service, which checks the user's role and calls the services the API calls.
 */
export function dashboard(deps: { services: Services; config: Readonly<Config>; logger: Logger }): Middleware {
  const assets = loadAssets();
  const dispatch = pagesRouter(deps.config).routes() as Middleware;
  return async function serveDashboard(ctx: Context, next: Next): Promise<void> {
    const asset = assets.get(ctx.path);
    const matched = asset ? null : DASHBOARD_PATH.exec(ctx.path);
    if (!asset && !matched) return next();
    dashboardHeaders(ctx);
    const locale = negotiateLocale(ctx.get('Accept-Language'));
    const t = textsFor(locale);
    ctx.set('Content-Language', locale);
    ctx.vary('Accept-Language');
    try {
      if (asset) {
        if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
          return bare(ctx, 405, t.errors.notFoundTitle, t.errors.notFound, locale);
        ctx.type = asset.type;
        ctx.set('Cache-Control', 'public, max-age=3600');
        ctx.body = asset.body;
        return;
      }
      const [, publicId = '', rest = ''] = matched ?? [];
      const campaign = await deps.services.dashboard.campaign(publicId);
      const base = `/dashboard/${campaign.publicId}`;
      if (rest === '') {
        ctx.status = 301;
        return ctx.redirect(`${base}/`);
      }
      const secret = sessionSecretOf(ctx);
      const actor = await deps.services.dashboard.session(campaign, secret);
      const query = parseDashboardQuery(ctx.query);
      pages.set(ctx, {
        ctx,
        services: deps.services,
        config: deps.config,
        locale,
        t,
        campaign,
        base,
        actor,
        secret,
        query,
      });
      await dispatch(ctx, async () => undefined);
    } catch (err) {
      errorPage(ctx, err, locale, deps.logger);
    }
  };
}

/** Errors are pages too: the portal's error path, and the dashboard's refusals of a role or a transition. */
function errorPage(ctx: Context, err: unknown, locale: 'en' | 'pt-BR', logger: Logger): void {
  const texts = textsFor(locale);
  const page = (status: number, title: string, text: string) => bare(ctx, status, title, text, locale);
  if (err instanceof HttpError && err.status === 403) {
    return page(403, texts.dash.errors.forbiddenTitle, texts.dash.errors.forbidden);
  }
  if (err instanceof HttpError && (err.status === 409 || err.status === 400)) {
    // A transition the API would refuse (an affiliate no longer pending, a payout already paid): its own words.
    return page(err.status, texts.errors.formTitle, err.message);
  }
  pageError(ctx, err, texts, logger, page, 'dashboard');
}
