import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { Context, Next } from 'koa';
import { MESSAGES } from '../../shared/errors.js';
import type { MetricsConfig } from '../config.js';
import { ForbiddenError, HttpError } from '../errors.js';
import type { Metrics } from '../metrics/metrics.js';

const ALLOW = 'GET, HEAD';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** 127.0.0.0/8, ::1, and 127.x mapped into IPv6. */
export function isLoopback(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === '::1') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice(7) : bare;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** Every client address the forwarding headers name (`X-Forwarded-For`, `X-Real-IP`, `Forwarded: for=`). */
function forwardedAddresses(ctx: Context): string[] {
  const listed = [ctx.get('x-forwarded-for'), ctx.get('x-real-ip')]
    .flatMap((value) => value.split(','))
    .map((value) => value.trim());
  const forwarded = ctx
    .get('forwarded')
    .split(/[,;]/)
    .map((part) => part.trim())
    .filter((part) => /^for=/i.test(part))
    // `for="[::1]:8080"`, `for=127.0.0.1`: the address without quotes, brackets or port.
    .map((part) => {
      const value = part.slice(4).replace(/"/g, '');
      const bracketed = /^\[([^\]]+)\]/.exec(value);
      if (bracketed?.[1]) return bracketed[1];
      return isIP(value) ? value : value.replace(/:\d+$/, '');
    });
  return [...listed, ...forwarded].filter((value) => value !== '');
}

/**
 * Without METRICS_TOKEN: the connection must come from this machine, and so must every
 * address a forwarding header names, whether or not TRUST_PROXY trusts them. A header can
 * only take loopback away: a proxy on this machine forwarding a remote scraper is refused.
 */
function fromThisMachine(ctx: Context): boolean {
  return isLoopback(ctx.req.socket.remoteAddress ?? '') && forwardedAddresses(ctx).every(isLoopback);
}

/** `Authorization: Bearer <token>`, compared in constant time (both sides hashed to one length). */
function carriesToken(ctx: Context, expected: Buffer): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(ctx.get('authorization'));
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
}

/**
 * `GET /metrics` (docs/operations.md#metrics): Prometheus text. Mounted before the rate limit,
 * so a scraper is never counted or refused by it; errors take the spec's body.
 */
export function metricsEndpoint(metrics: Metrics, config: MetricsConfig) {
  const expected = config.token === undefined ? undefined : digest(config.token);
  return async function serveMetrics(ctx: Context, next: Next): Promise<void> {
    if (ctx.path !== '/metrics') return next();
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', ALLOW);
      ctx.status = 204;
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new HttpError(405, MESSAGES.methodNotAllowed(ctx.method, ctx.path, ALLOW), { Allow: ALLOW });
    }
    if (expected) {
      if (!carriesToken(ctx, expected)) {
        throw new HttpError(401, MESSAGES.metricsTokenRequired, { 'WWW-Authenticate': 'Bearer realm="metrics"' });
      }
    } else if (!fromThisMachine(ctx)) {
      throw new ForbiddenError(MESSAGES.metricsLoopbackOnly);
    }
    const { contentType, body } = await metrics.scrape();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = contentType;
    ctx.body = body;
  };
}
