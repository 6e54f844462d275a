import type { Context, Next } from 'koa';
import type { Metrics } from '../metrics/metrics.js';

/** Paths outside the contract, each one label; every other path the daemon does not know is `unmatched`. */
function labelOutsideContract(path: string): string {
  if (path === '/metrics') return '/metrics';
  if (path.startsWith('/portal/')) return '/portal/:campaignPublicId/*';
  if (path.startsWith('/docs/')) return '/docs/*';
  if (path.startsWith('/r/')) return '/r/:campaignPublicId/:code';
  return 'unmatched';
}

/**
 * The template the router matched (`/v1/affiliates/:id`, set by @koa/router, free to read): every
 * contract answer has one, a 405, a preflight or a 429 too, since each path's method gate and each
 * route's rate limit run inside the router.
 */
function routeLabel(ctx: Context): string {
  // The portal's own router matches its pages too; the portal stays one label, as documented.
  if (ctx.path.startsWith('/portal/')) return labelOutsideContract(ctx.path);
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  return typeof matched === 'string' ? matched : labelOutsideContract(ctx.path);
}

/**
 * Counts every answer by its route's template, never its path: `/v1/affiliates/:id`, whatever
 * the id, so an id (or a scanner's made-up paths) can never become a label.
 */
export function httpMetrics(metrics: Metrics) {
  return async function countRequest(ctx: Context, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.request(ctx.method, routeLabel(ctx), ctx.status, seconds);
    }
  };
}
