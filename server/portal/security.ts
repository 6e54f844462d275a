import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';

/** The cookies of the portal, each scoped to its campaign's path. */
export const SESSION_COOKIE = 'affiliated_session';
const CSRF_COOKIE = 'affiliated_csrf';
/** The browser keeps the cookie this long; the database decides whether the session still lives. */
const SESSION_COOKIE_MS = 30 * 24 * 60 * 60 * 1000;

/** Every portal answer: no framing, no referrer to other sites (a reset link's token stays here), scripts and styles of ours only. */
export function securityHeaders(ctx: Context): void {
  ctx.set({
    'Content-Security-Policy':
      "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    // same-origin, not no-referrer: with no-referrer a browser's form posts say `Origin: null`.
    'Referrer-Policy': 'same-origin',
  });
}

function cookieOptions(ctx: Context, path: string, maxAge?: number) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    // Secure on https (behind a proxy, with TRUST_PROXY so X-Forwarded-Proto counts).
    secure: ctx.secure,
    path,
    overwrite: true,
    ...(maxAge !== undefined && { maxAge }),
  };
}

export function sessionSecretOf(ctx: Context): string | undefined {
  return ctx.cookies.get(SESSION_COOKIE) || undefined;
}

export function setSessionCookie(ctx: Context, path: string, secret: string): void {
  ctx.cookies.set(SESSION_COOKIE, secret, cookieOptions(ctx, path, SESSION_COOKIE_MS));
}

export function clearSessionCookie(ctx: Context, path: string): void {
  ctx.cookies.set(SESSION_COOKIE, '', { ...cookieOptions(ctx, path), maxAge: 0 });
}

/** A form's token: an HMAC of the campaign keyed by a cookie only this browser has (no state kept). */
export function tokenFor(key: string, publicId: string): string {
  return createHmac('sha256', key).update(`csrf:${publicId}`).digest('base64url');
}

/**
 * The CSRF token for this browser's forms: from its session when it has one, else from a random
 * cookie set now (a double-submit token that a page of another site can neither read nor set).
 */
export function csrfToken(ctx: Context, path: string, publicId: string): string {
  const session = sessionSecretOf(ctx);
  if (session) return tokenFor(session, publicId);
  let key = ctx.cookies.get(CSRF_COOKIE);
  if (!key || !/^[A-Za-z0-9_-]{43}$/.test(key)) {
    key = randomBytes(32).toString('base64url');
    ctx.cookies.set(CSRF_COOKIE, key, cookieOptions(ctx, path));
  }
  return tokenFor(key, publicId);
}

export const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Whether a posted token matches one of this browser's keys. */
export function csrfValid(ctx: Context, publicId: string, token: string | undefined): boolean {
  if (!token) return false;
  const keys = [sessionSecretOf(ctx), ctx.cookies.get(CSRF_COOKIE)].filter((k): k is string => Boolean(k));
  return keys.some((key) => same(tokenFor(key, publicId), token));
}

/**
 * The `Origin` of a post (or, when a browser sends none, its `Referer`'s) must be this site: the
 * address the request came to, or PUBLIC_URL. No header at all is refused too.
 */
export function originValid(ctx: Context, publicUrl: string | undefined): boolean {
  const claimed = ctx.get('Origin') || (URL.canParse(ctx.get('Referer')) ? new URL(ctx.get('Referer')).origin : '');
  if (!claimed || claimed === 'null') return false;
  // Not ctx.origin: Koa 3 answers the request's own Origin header there.
  const own = `${ctx.protocol}://${ctx.host}`;
  return claimed === own || (publicUrl !== undefined && claimed === new URL(publicUrl).origin);
}
