import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';
import { MESSAGES } from '../../shared/errors.js';
import { jsonShapeIssues } from '../../shared/schemas/jsonShape.js';
import { HttpError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../errors.js';

/** spec §10.6: 2 MiB a body. */
export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;
/** No route reads deeper than a dozen levels; past this, a body is refused before any code walks it. */
export const BODY_MAX_DEPTH = 32;

declare module 'koa' {
  interface Request {
    body?: unknown;
    /** A signed body's bytes, as they arrived (routes with `signedBody`). */
    rawBody?: Buffer;
  }
}

function hasBody(ctx: Context): boolean {
  const length = ctx.get('Content-Length');
  return ctx.get('Transfer-Encoding') !== '' || (length !== '' && length !== '0');
}

/**
 * For routes that take no body: one announced (a Content-Length above 0, or chunked) is refused
 * with 413 before the route acts, and the connection is closed rather than drained, so a client
 * cannot make the daemon read 100 MB it will never use.
 */
export function noBody() {
  return async function refuseBody(ctx: Context, next: Next): Promise<void> {
    if (!hasBody(ctx)) return next();
    throw new HttpError(413, MESSAGES.bodyNotAccepted, { Connection: 'close' });
  };
}

/**
 * Reads a JSON body: anything but JSON is 415, past the limit 413, unparsable 400 (spec §10.13).
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
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ValidationError(MESSAGES.malformedJson);
    }
    refuseUnstorableShape(body);
    ctx.request.body = body;
    return next();
  };
}

/**
 * Checked once for every body, before any route sees it: a lone surrogate is stored by both
 * engines as U+FFFD, so the row would no longer match the event that asked for it (and dedupe
 * keys would collide with other text); deep nesting would overflow JSON.stringify's stack.
 */
function refuseUnstorableShape(body: unknown): void {
  const issues = jsonShapeIssues(body, BODY_MAX_DEPTH);
  if (issues.length === 0) return;
  throw new ValidationError(
    issues.map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join('.') : 'body';
      if (issue.kind === 'too_deep') return MESSAGES.bodyTooDeep(BODY_MAX_DEPTH);
      return issue.kind === 'ill_formed_key' ? MESSAGES.illFormedKey(path) : MESSAGES.illFormedText(path);
    }),
  );
}

/**
 * Reads a signed body as bytes, whatever its Content-Type, and parses nothing: the signature is
 * computed over these exact bytes, and is checked before anything reads them
 * (docs/integrations.md). Past the limit 413; a body cut short 400.
 */
export function rawBody(limitBytes = BODY_LIMIT_BYTES) {
  return async function readRawBody(ctx: Context, next: Next): Promise<void> {
    if (!hasBody(ctx)) return next();
    try {
      ctx.request.rawBody = await getRawBody(ctx.req, {
        limit: limitBytes,
        length: ctx.get('Content-Length') || undefined,
      });
    } catch (err) {
      if ((err as { type?: string }).type === 'entity.too.large') throw new PayloadTooLargeError(limitBytes);
      throw new ValidationError(MESSAGES.malformedJson);
    }
    return next();
  };
}
