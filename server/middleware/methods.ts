import type { Context, Middleware, Next } from 'koa';
import { MESSAGES } from '../../shared/errors.js';
import { HttpError } from '../errors.js';
import type { ContractPath } from '../http/routeTable.js';
import { allowBrowsers, answerPreflight } from './cors.js';

/** The methods koa-router knows; any other is its 501 (no route anywhere has it). */
const KNOWN_METHODS = new Set(['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE']);

/**
 * A path of the contract answers only its own methods: another is 405 with an `Allow` header
 * listing exactly the path's methods, before any key check or validation, and `OPTIONS` is
 * answered with the same header (a preflight, where the path is open to browsers). The router
 * runs it first for every request at the path, most specific path first: without it,
 * `GET /v1/conversions/bulk` would reach the sibling route `GET /v1/conversions/{id}` and be
 * refused for its id. A refused request is counted by the rate limit as the path's first route.
 */
export function methodGate(at: ContractPath, limit: Middleware): Middleware {
  const [first] = at.routes;
  return async function checkMethod(ctx: Context, next: Next): Promise<void> {
    if (at.allow.includes(ctx.method)) return next();
    const refuse = async (): Promise<void> => {
      if (ctx.method === 'OPTIONS') {
        if (first?.cors) return answerPreflight(ctx, at);
        ctx.set('Allow', at.allow.join(', '));
        ctx.status = 204;
        return;
      }
      // No route anywhere has this method: the router's 501, after the gate.
      if (!KNOWN_METHODS.has(ctx.method)) return next();
      const allow = at.allow.join(', ');
      throw new HttpError(405, MESSAGES.methodNotAllowed(ctx.method, ctx.path, allow), { Allow: allow });
    };
    const counted = () => limit(ctx, refuse);
    return first?.cors ? allowBrowsers(ctx, counted) : counted();
  };
}
