import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { same, tokenFor } from '../portal/security.js';

export { originValid } from '../portal/security.js';

/**
 * docs/dashboard.md#the-security-model. On https the cookies take the `__Host-` prefix (Secure,
 * no Domain, Path=/: no other host or path can set or read them); on plain http (one machine,
 * tests) they are scoped to `/dashboard/`.
 */
const SESSION = 'affiliated_dashboard';
const CSRF = 'affiliated_dashboard_csrf';
/** The browser keeps the cookie this long; the database decides whether the session still lives. */
const COOKIE_MS = 7 * 24 * 60 * 60 * 1000;

const nameOf = (ctx: Context, base: string) => (ctx.secure ? `__Host-${base}` : base);

function options(ctx: Context, maxAge?: number) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: ctx.secure,
    path: ctx.secure ? '/' : '/dashboard/',
    overwrite: true,
    ...(maxAge !== undefined && { maxAge }),
  };
}

/**
 * Every dashboard answer: the portal's policy (scripts and styles of ours only, no framing, no
 * referrer to other sites) with `img-src` for nothing but our own files.
 */
export function dashboardHeaders(ctx: Context): void {
  ctx.set({
    'Content-Security-Policy':
      "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
  });
}

export const sessionSecretOf = (ctx: Context) => ctx.cookies.get(nameOf(ctx, SESSION)) || undefined;

export function setSessionCookie(ctx: Context, secret: string): void {
  ctx.cookies.set(nameOf(ctx, SESSION), secret, options(ctx, COOKIE_MS));
}

export function clearSessionCookie(ctx: Context): void {
  ctx.cookies.set(nameOf(ctx, SESSION), '', { ...options(ctx), maxAge: 0 });
}

/** A form's token: the portal's HMAC scheme over the dashboard's own cookies. */
export function csrfToken(ctx: Context, publicId: string): string {
  const session = sessionSecretOf(ctx);
  if (session) return tokenFor(session, `dashboard:${publicId}`);
  let key = ctx.cookies.get(nameOf(ctx, CSRF));
  if (!key || !/^[A-Za-z0-9_-]{43}$/.test(key)) {
    key = randomBytes(32).toString('base64url');
    ctx.cookies.set(nameOf(ctx, CSRF), key, options(ctx));
  }
  return tokenFor(key, `dashboard:${publicId}`);
}

export function csrfValid(ctx: Context, publicId: string, token: string | undefined): boolean {
  if (!token) return false;
  const keys = [sessionSecretOf(ctx), ctx.cookies.get(nameOf(ctx, CSRF))].filter((k): k is string => Boolean(k));
  return keys.some((key) => same(tokenFor(key, `dashboard:${publicId}`), token));
}
