import type { Context, Next } from 'koa';
import { RouteTable } from '../http/routeTable.js';
import type { Metrics } from '../metrics/metrics.js';

/** Paths outside the contract, each one label; every other path the daemon does not know is `unmatched`. */
function labelOutsideContract(path: string): string {
  if (path === '/metrics') return '/metrics';
  if (path.startsWith('/portal/')) return '/portal/:campaignPublicId/*';
  if (path.startsWith('/docs/')) return '/docs/*';
  return 'unmatched';
}

/**
 * The template the router matched (`/v1/affiliates/:id`, set by @koa/router, free to read); for a
 * request answered before the router (429, 405, a preflight) the contract's route at its path.
 */
function routeLabel(ctx: Context, table: RouteTable): string {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched === 'string') return matched;
  const route = table.find(ctx.method, ctx.path);
  return route ? RouteTable.routerPath(route) : labelOutsideContract(ctx.path);
}

/**
 * Counts every answer by its route's template, never its path: `/v1/affiliates/:id`, whatever
 * the id, so an id (or a scanner's made-up paths) can never become a label.
 */
export function httpMetrics(metrics: Metrics, table: RouteTable) {
  return async function countRequest(ctx: Context, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.request(ctx.method, routeLabel(ctx, table), ctx.status, seconds);
    }
  };
}
