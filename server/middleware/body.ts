import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { MESSAGES } from '../../shared/errors.js';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../errors.js';

/** product §3.6: 2 MiB a body. */
export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;

declare module 'koa' {
  interface Request {
    body?: unknown;
  }
}

function hasBody(ctx: Context): boolean {
  const length = ctx.get('Content-Length');
  return ctx.get('Transfer-Encoding') !== '' || (length !== '' && length !== '0');
}

/**
 * Reads a JSON body: anything but JSON is 415, past the limit 413, unparsable 400 (product §3.13).
 * A request without a body leaves `ctx.request.body` undefined, for validation to name.
 */
export function jsonBody(limitBytes = BODY_LIMIT_BYTES) {
  return async function parseJsonBody(ctx: Context, next: Next): Promise<void> {
    if (!hasBody(ctx)) return next();
    if (!ctx.is('application/json', '+json')) throw new UnsupportedMediaTypeError();
    let text: string;
    try {
      text = await getRawBody(ctx.req, {
        limit: limitBytes,
        encoding: 'utf8',
        length: ctx.get('Content-Length') || undefined,
      });
    } catch (err) {
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') throw new PayloadTooLargeError(limitBytes);
      if (type === 'encoding.unsupported') throw new UnsupportedMediaTypeError();
      throw new ValidationError(MESSAGES.malformedJson);
    }
    if (text.trim() === '') return next();
    try {
      ctx.request.body = JSON.parse(text);
    } catch {
      throw new ValidationError(MESSAGES.malformedJson);
    }
    return next();
  };
}
