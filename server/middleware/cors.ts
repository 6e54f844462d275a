import type { Context, Next } from 'koa';

/** product §3.11: only the browser endpoint is open to other origins. */
export const SDK_EVENTS_PATH = '/v1/sdk/events';

/**
 * CORS for `/v1/sdk/events` only. Mounted before the rate limit so that a browser can read a
 * 429 and its Retry-After too; a preflight is answered here and never counted.
 */
export function sdkCors() {
  return async function allowBrowsers(ctx: Context, next: Next): Promise<void> {
    if (ctx.path !== SDK_EVENTS_PATH) return next();
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set(
      'Access-Control-Expose-Headers',
      'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
    );
    if (ctx.method !== 'OPTIONS') return next();
    ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', ctx.get('Access-Control-Request-Headers') || 'Content-Type');
    ctx.set('Access-Control-Max-Age', '86400');
    ctx.status = 204;
  };
}
