import type { Context, Next } from 'koa';
import type { ContractPath } from '../http/routeTable.js';

/**
 * CORS for the routes the contract opens to browsers (spec §10.11: the SDK routes only), first
 * in their chain, before the rate limit, so that a browser can read a 429 and its Retry-After too.
 */
export async function allowBrowsers(ctx: Context, next: Next): Promise<void> {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set(
    'Access-Control-Expose-Headers',
    'ETag, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
  );
  return next();
}

/** A preflight at a path open to browsers: 204 with its methods; never counted by the rate limit. */
export function answerPreflight(ctx: Context, at: ContractPath): void {
  ctx.set('Allow', at.allow.join(', '));
  ctx.set('Access-Control-Allow-Methods', [...at.methods, 'OPTIONS'].join(', '));
  ctx.set('Access-Control-Allow-Headers', ctx.get('Access-Control-Request-Headers') || 'Content-Type');
  ctx.set('Access-Control-Max-Age', '86400');
  ctx.status = 204;
}
