import type { Context, Next } from 'koa';
import { MESSAGES } from '../../shared/errors.js';
import { ForbiddenError, UnauthorizedError } from '../errors.js';
import { hashApiKey } from '../services/apiKeys.js';
import type { ApiKeyAuthenticator, AuthenticatedCampaign } from '../services/auth.js';

declare module 'koa' {
  interface DefaultState {
    auth?: AuthenticatedCampaign;
    apiKeyHash?: string;
  }
}

/**
 * Hashes of the keys seen lately. A merchant's backend sends the same key on every request, and
 * its SHA-256 was 2 to 3 % of a request's CPU (docs/benchmarks.md). Bounded: a client sending a
 * new made-up key each time only empties it now and then, and costs what it cost before.
 */
const recentHashes = new Map<string, string>();
const RECENT_HASHES = 1_000;

/** The raw `X-API-Key` header, hashed once per request (rate limit and auth both use it). */
export function apiKeyHash(ctx: Context): string | undefined {
  if (ctx.state.apiKeyHash === undefined) {
    const key = ctx.get('X-API-Key').trim();
    if (key) ctx.state.apiKeyHash = recentHashes.get(key) ?? rememberHash(key);
  }
  return ctx.state.apiKeyHash;
}

function rememberHash(key: string): string {
  const hash = hashApiKey(key);
  if (recentHashes.size >= RECENT_HASHES) recentHashes.clear();
  recentHashes.set(key, hash);
  return hash;
}

/**
 * spec §5 and §10.12. `affiliates` routes answer a revoked key with 401
 * `Invalid or inactive API Key`; `events` routes with 403 `API Key is revoked or inactive`.
 */
export function requireApiKey(authenticator: ApiKeyAuthenticator, flavour: 'affiliates' | 'events') {
  return async function authenticate(ctx: Context, next: Next): Promise<void> {
    const hash = apiKeyHash(ctx);
    if (!hash) throw new UnauthorizedError(MESSAGES.apiKeyRequired);
    const lookup = await authenticator.lookup(hash);
    if (lookup.state === 'unknown') throw new UnauthorizedError(MESSAGES.apiKeyInvalid);
    if (lookup.state === 'revoked') {
      throw flavour === 'events'
        ? new ForbiddenError(MESSAGES.apiKeyRevoked)
        : new UnauthorizedError(MESSAGES.apiKeyInvalid);
    }
    ctx.state.auth = lookup.auth;
    return next();
  };
}

export function authOf(ctx: Context): AuthenticatedCampaign {
  const auth = ctx.state.auth;
  if (!auth) throw new UnauthorizedError(MESSAGES.apiKeyRequired);
  return auth;
}
