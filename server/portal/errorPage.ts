import type { Context } from 'koa';
import { isDatabaseUnavailable } from '../db/knex.js';
import { HttpError, TooManyRequestsError } from '../errors.js';
import { type Logger, errorSite } from '../logger.js';
import type { Texts } from '../views/texts/index.js';
import { FormRefused } from './forms.js';

/** Answers a page with a status, a title and a sentence (each wing draws its own frame). */
export type BarePage = (status: number, title: string, text: string) => void;

/**
 * The error path the portal and the dashboard share: the status, a sentence that says what to do
 * in the reader's language, never a stack. `what` names the wing in the log line.
 */
export function pageError(
  ctx: Context,
  err: unknown,
  texts: Texts,
  logger: Logger,
  bare: BarePage,
  what: string,
): void {
  const t = texts.errors;
  if (err instanceof FormRefused) {
    if (err.status === 413) return bare(413, t.tooLargeTitle, t.tooLarge);
    return bare(err.status, t.unsupportedTitle, t.unsupported);
  }
  if (err instanceof TooManyRequestsError) {
    ctx.set('Retry-After', String(err.retryAfterSeconds));
    return bare(429, t.throttledTitle, t.throttled(Math.ceil(err.retryAfterSeconds / 60)));
  }
  if (err instanceof HttpError && err.status === 404) return bare(404, t.notFoundTitle, t.notFound);
  if (isDatabaseUnavailable(err)) {
    logger.error('database unavailable', { method: ctx.method, path: ctx.path, code: (err as { code?: string }).code });
    ctx.set('Retry-After', '1');
    return bare(503, t.unavailableTitle, t.unavailable);
  }
  logger.error(`${what} request failed`, {
    method: ctx.method,
    path: ctx.path,
    error: (err as { name?: string }).name,
    code: (err as { code?: string }).code,
    thrownAt: errorSite(err),
  });
  bare(500, t.serverTitle, t.server);
}
