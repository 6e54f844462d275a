import type { Context, Next } from 'koa';
import type { RouteTable } from '../http/routeTable.js';

/**
 * CORS for the routes the contract opens to browsers (spec §10.11: the SDK routes only).
 * Mounted before the rate limit so that a browser can read a 429 and its Retry-After too; a
 * preflight is answered here and never counted.
 */
export function cors(table: RouteTable) {
  return async function allowBrowsers(ctx: Context, next: Next): Promise<void> {
    const route = table.find(ctx.method, ctx.path);
    if (!route?.cors) return next();
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set(
      'Access-Control-Expose-Headers',
      'ETag, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
    );
    if (ctx.method !== 'OPTIONS') return next();
    const methods = table.methodsAt(ctx.path).map((method) => method.toUpperCase());
    ctx.set('Allow', (table.allowedAt(ctx.path) ?? methods).join(', '));
    ctx.set('Access-Control-Allow-Methods', [...methods, 'OPTIONS'].join(', '));
    ctx.set('Access-Control-Allow-Headers', ctx.get('Access-Control-Request-Headers') || 'Content-Type');
    ctx.set('Access-Control-Max-Age', '86400');
    ctx.status = 204;
  };
}
