import type { Context, Middleware, Next } from 'koa';
import { MESSAGES } from '../../shared/errors.js';
import { HttpError } from '../errors.js';
import type { ClickService } from '../services/clicks/index.js';

/** `/r/{campaignPublicId}/{code}`; a trailing slash is the same link. */
const LINK = /^\/r\/([^/]+)\/([^/]+)\/?$/;

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * Referral links through the daemon (docs/analytics.md): mounted after the error path (so an
 * unknown campaign is the spec's 404 body) and before the API's router, with no rate limit or
 * key: this is where a campaign's traffic lands. A path that is not a link goes on.
 */
export function referralLinks(clicks: ClickService): Middleware {
  return async function followLink(ctx: Context, next: Next): Promise<void> {
    if (!ctx.path.startsWith('/r/')) return next();
    const match = LINK.exec(ctx.path);
    const publicId = match?.[1] === undefined ? undefined : decoded(match[1]);
    const code = match?.[2] === undefined ? undefined : decoded(match[2]);
    if (publicId === undefined || code === undefined) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new HttpError(405, MESSAGES.methodNotAllowed(ctx.method, ctx.path, 'GET, HEAD'), { Allow: 'GET, HEAD' });
    }
    const location = await clicks.follow({
      publicId,
      code,
      query: ctx.query,
      userAgent: ctx.get('user-agent'),
      referer: ctx.get('referer') || undefined,
      ip: ctx.ip,
      counted: ctx.method === 'GET',
    });
    // Every click must reach the daemon: neither the browser nor a proxy may answer it from a cache.
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(location);
  };
}
