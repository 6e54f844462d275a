import type { Context, Next } from 'koa';
import { MESSAGES } from '../../shared/errors.js';
import { HttpError } from '../errors.js';
import type { RouteTable } from '../http/routeTable.js';

/** The methods koa-router knows; any other is its 501 (no route anywhere has it). */
const KNOWN_METHODS = new Set(['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE']);

/**
 * A path of the contract answers only its own methods: another is 405 with an `Allow` header
 * listing exactly the path's methods, before any key check or validation, and `OPTIONS` is
 * answered with the same header. Without this, `GET /v1/conversions/bulk` would reach the
 * sibling route `GET /v1/conversions/{id}` and be refused for its id.
 */
export function methodCheck(table: RouteTable) {
  return async function checkMethod(ctx: Context, next: Next): Promise<void> {
    const allowed = table.allowedAt(ctx.path);
    if (!allowed || allowed.includes(ctx.method)) return next();
    const allow = allowed.join(', ');
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', allow);
      ctx.status = 204;
      return;
    }
    if (!KNOWN_METHODS.has(ctx.method)) return next();
    throw new HttpError(405, MESSAGES.methodNotAllowed(ctx.method, ctx.path, allow), { Allow: allow });
  };
}
