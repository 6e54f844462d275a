import { readFileSync } from 'node:fs';
import { Router, RouterEvents } from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { Config } from '../config.js';
import { StartupError } from '../errors.js';
import type { Logger } from '../logger.js';
import { pageError } from './errorPage.js';
import type { Services } from '../services/index.js';
import { renderView } from '../views/engine.js';
import { negotiateLocale } from '../views/locale.js';
import { textsFor } from '../views/texts/index.js';
import {
  postNotifications,
  postPassword,
  postPayout,
  postProfile,
  showDashboard,
  showPayout,
  showSettings,
} from './accountArea.js';
import { postLogin, postLogout, postSignup, showLogin, showSignup } from './accountPages.js';
import { readForm } from './forms.js';
import type { Page } from './page.js';
import { parsePortalQuery, payoutIdParam } from './query.js';
import { postReset, showReset } from './resetPages.js';
import { csrfValid, originValid, securityHeaders, sessionSecretOf } from './security.js';
import type { FormFields } from '../services/portal/index.js';

/** The portal page of a request, set by the mount before the pages' router runs. */
const pages = new WeakMap<Context, Page>();

function pageOf(ctx: Context): Page {
  const page = pages.get(ctx);
  if (!page) throw new Error('a portal page ran outside the portal');
  return page;
}

type Show = (page: Page) => Promise<void> | void;
type Post = (page: Page, fields: FormFields) => Promise<void> | void;

/**
 * docs/portal.md: every page of a campaign's portal, after `/portal/{publicId}`, as a router of
 * its own nested in the portal's mount. A path it lacks is a 404 page; a method it lacks, a 405
 * page with `Allow`.
 */
function pagesRouter(config: Readonly<Config>): Router {
  const router = new Router({ prefix: '/portal/:publicId' });
  const show = (handler: Show) => (ctx: Context) => handler(pageOf(ctx));
  const post = (handler: Post) => async (ctx: Context) => {
    const page = pageOf(ctx);
    const fields = await readForm(ctx);
    // A post from another site, or without this browser's token, changes nothing.
    if (!originValid(ctx, config.publicUrl) || !csrfValid(ctx, page.campaign.publicId, fields.csrf)) {
      return bare(ctx, 403, page.t.errors.csrfTitle, page.t.errors.csrf, page.locale);
    }
    await handler(page, fields);
  };
  router.get('/', show(showLogin));
  router.post('/login', post(postLogin));
  router.post('/logout', post(postLogout));
  router.get('/signup', show(showSignup));
  router.post('/signup', post(postSignup));
  router.get('/reset', show(showReset));
  router.post('/reset', post(postReset));
  router.get('/dashboard', show(showDashboard));
  router.get('/payouts/:id', (ctx) => {
    const id = payoutIdParam.safeParse(ctx.params.id);
    const page = pageOf(ctx);
    if (!id.success) return bare(ctx, 404, page.t.errors.notFoundTitle, page.t.errors.notFound, page.locale);
    return showPayout(page, id.data);
  });
  router.get('/settings', show(showSettings));
  router.post('/settings/profile', post(postProfile));
  router.post('/settings/payout', post(postPayout));
  router.post('/settings/notifications', post(postNotifications));
  router.post('/settings/password', post(postPassword));
  router.on(RouterEvents.NotFound, (ctx) => {
    const page = pageOf(ctx);
    const methods = new Set((ctx.matched ?? []).flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD')));
    if (methods.size > 0) ctx.set('Allow', [...methods].join(', '));
    bare(ctx, methods.size > 0 ? 405 : 404, page.t.errors.notFoundTitle, page.t.errors.notFound, page.locale);
  });
  return router;
}

const PORTAL_PATH = /^\/portal\/([A-Za-z0-9_-]{3,64})(\/.*)?$/;

interface Asset {
  body: Buffer;
  type: string;
}

function loadAssets(): Map<string, Asset> {
  const read = (name: string) => {
    try {
      return readFileSync(new URL(`../views/assets/${name}`, import.meta.url));
    } catch {
      throw new StartupError(`the portal's ${name} is missing: run \`npm run build\``);
    }
  };
  return new Map([
    ['/assets/portal.css', { body: read('portal.css'), type: 'text/css; charset=utf-8' }],
    ['/assets/copy.js', { body: read('copy.js'), type: 'text/javascript; charset=utf-8' }],
  ]);
}

/** The error pages' frame: it needs no campaign (an unknown one, a portal that is off). */
function bare(ctx: Context, status: number, title: string, text: string, lang: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  const publicId = PORTAL_PATH.exec(ctx.path)?.[1] ?? '';
  ctx.body = renderView('error', { title, text, lang, css: `/portal/${publicId}/assets/portal.css` });
}

/**
 * The affiliate portal, served by the daemon at `/portal/{campaignPublicId}/` (docs/portal.md).
 * It is not the `/v1` API: its answers are HTML pages, its errors too, its forms are checked for
 * a CSRF token and their `Origin`. Handlers only read the form and call the portal service.
 */
export function portal(deps: { services: Services; config: Readonly<Config>; logger: Logger }): Middleware {
  const assets = loadAssets();
  // The pages answer every request the mount hands them: none goes on to the API.
  const dispatch = pagesRouter(deps.config).routes() as Middleware;
  return async function servePortal(ctx: Context, next: Next): Promise<void> {
    const matched = PORTAL_PATH.exec(ctx.path);
    if (!matched) return next();
    const [, publicId = '', rest = ''] = matched;
    securityHeaders(ctx);
    const locale = negotiateLocale(ctx.get('Accept-Language'));
    const t = textsFor(locale);
    ctx.set('Content-Language', locale);
    ctx.vary('Accept-Language');
    try {
      const asset = assets.get(rest);
      if (asset) {
        if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
          return bare(ctx, 405, t.errors.notFoundTitle, t.errors.notFound, locale);
        ctx.type = asset.type;
        ctx.set('Cache-Control', 'public, max-age=3600');
        ctx.body = asset.body;
        return;
      }
      const campaign = await deps.services.portal.campaign(publicId);
      const base = `/portal/${campaign.publicId}`;
      // `/portal/acme` is the log-in page's address without its slash.
      if (rest === '') {
        ctx.status = 301;
        return ctx.redirect(`${base}/`);
      }
      const user = await deps.services.portal.session(campaign, sessionSecretOf(ctx));
      const query = parsePortalQuery(ctx.query);
      pages.set(ctx, { ctx, services: deps.services, config: deps.config, locale, t, campaign, base, user, query });
      await dispatch(ctx, async () => undefined);
    } catch (err) {
      errorPage(ctx, err, locale, deps.logger);
    }
  };
}

/** Errors are pages too: the status, a sentence that says what to do, never a stack. */
function errorPage(ctx: Context, err: unknown, locale: 'en' | 'pt-BR', logger: Logger): void {
  pageError(
    ctx,
    err,
    textsFor(locale),
    logger,
    (status, title, text) => bare(ctx, status, title, text, locale),
    'portal',
  );
}
