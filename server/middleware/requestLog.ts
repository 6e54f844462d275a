import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../logger.js';

/**
 * A request id a client or a proxy may send (`X-Request-Id`): UUIDs, trace ids, ULIDs. Anything
 * longer or with other characters (blanks, quotes, control characters, two headers joined by
 * a comma) is replaced by a generated one, so a log line never carries what a client smuggled.
 */
const REQUEST_ID = /^[A-Za-z0-9._:+=@/-]{1,128}$/;

/** Paths scraped or probed every few seconds: their answers that went well are logged at debug. */
const POLLED = new Set(['/metrics', '/ready']);

/** The request's id: the client's when it is safe to log, else a new one. */
export function requestIdOf(ctx: Context): string {
  const sent = ctx.get('x-request-id');
  return REQUEST_ID.test(sent) ? sent : randomUUID();
}

/**
 * Method, path (no query string, no headers, no body), status, time and the request's id:
 * nothing secret. The id is answered in `X-Request-Id` (set first, so errors carry it too), so
 * a merchant's support ticket can quote it and an operator find the line (docs/operations.md).
 */
export function requestLog(logger: Logger) {
  return async function logRequest(ctx: Context, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(ctx);
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const quiet = ctx.status < 400 && POLLED.has(ctx.path);
      (quiet ? logger.debug : logger.info)('request', {
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: Math.round(ms * 10) / 10,
        requestId,
      });
    }
  };
}
