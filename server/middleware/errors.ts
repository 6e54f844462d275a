import type { Context, Next } from 'koa';
import { errorBody, MESSAGES } from '../../shared/errors.js';
import { isDatabaseUnavailable, isRetryableTxError } from '../db/knex.js';
import { HttpError } from '../errors.js';
import { type Logger, errorSite } from '../logger.js';

interface StatusError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  headers?: Record<string, string | number>;
  code?: string;
  name?: string;
}

/**
 * The one error path (docs/architecture.md, "How a request flows"): first middleware of the app. Our HttpErrors carry their
 * messages; http-errors thrown by koa, the router or koa-ratelimit carry a status; anything
 * else is a 500 with a generic message, logged with its stack frames only.
 */
export function errorHandler(logger: Logger) {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.body == null) answerBodiless(ctx);
    } catch (err) {
      const { status, messages, headers } = classify(err);
      const e = err as StatusError;
      // Our own HttpErrors are answers, not faults: only the rest is logged as an error.
      if (status === 503 && isRetryableTxError(err) && !isDatabaseUnavailable(err)) {
        // Conflicts are normal under concurrency (more so on a cluster); only past every retry do they reach here.
        logger.warn('database busy', {
          method: ctx.method,
          path: ctx.path,
          code: e?.code,
          requestId: requestIdIn(ctx),
        });
      } else if (status === 503 && !(err instanceof HttpError)) {
        logger.error('database unavailable', {
          method: ctx.method,
          path: ctx.path,
          code: e?.code ?? e?.name,
          requestId: requestIdIn(ctx),
        });
      } else if (status >= 500 && !(err instanceof HttpError)) {
        logger.error('request failed', {
          method: ctx.method,
          path: ctx.path,
          error: e?.name,
          code: e?.code,
          thrownAt: errorSite(err),
          requestId: requestIdIn(ctx),
        });
      }
      ctx.set(headers);
      ctx.status = status;
      ctx.body = errorBody(status, messages);
    }
  };
}

/** The id the request log gave the request (docs/operations.md), so a fault's line and the request's share it. */
function requestIdIn(ctx: Context): string | undefined {
  const id: unknown = ctx.state.requestId;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Statuses set without a body: no route (404), and the router's answers for a method the path
 * lacks (405) or that no route has (501, a client's doing: logged as a request, not an error).
 */
function answerBodiless(ctx: Context): void {
  if (ctx.status === 404) {
    ctx.status = 404;
    ctx.body = errorBody(404, MESSAGES.routeNotFound(ctx.method, ctx.path));
  } else if (ctx.status === 405) {
    ctx.body = errorBody(405, MESSAGES.methodNotAllowed(ctx.method, ctx.path, ctx.response.get('Allow')));
  } else if (ctx.status === 501) {
    ctx.remove('Allow');
    ctx.body = errorBody(501, MESSAGES.methodNotImplemented(ctx.method));
  }
}

function classify(err: unknown): {
  status: number;
  messages: string | string[];
  headers: Record<string, string>;
} {
  if (err instanceof HttpError) return { status: err.status, messages: err.messages, headers: err.headers };
  // A fault of the database's, not of the request: a client may retry it (the replay does).
  if (isDatabaseUnavailable(err)) {
    return { status: 503, messages: MESSAGES.databaseUnavailable, headers: { 'Retry-After': '1' } };
  }
  // A transaction the database kept taking back (deadlocks, cluster conflicts) past inTransaction's retries.
  if (isRetryableTxError(err)) {
    return { status: 503, messages: MESSAGES.databaseBusy, headers: { 'Retry-After': '1' } };
  }
  const e = (err ?? {}) as StatusError;
  const status = e.status ?? e.statusCode ?? 500;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(e.headers ?? {})) headers[name] = String(value);
  if (status === 429) return { status, messages: MESSAGES.tooManyRequests, headers };
  if (status >= 400 && status < 500 && e.expose !== false && err instanceof Error) {
    return { status, messages: err.message, headers };
  }
  return { status: 500, messages: MESSAGES.internal, headers: {} };
}
