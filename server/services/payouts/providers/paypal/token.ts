import { createHash } from 'node:crypto';
import { z } from 'zod';
import { call, joinUrl } from '../request.js';

/** `POST /v1/oauth2/token`'s answer (PayPal REST "Authentication"). */
const tokenAnswer = z.object({ access_token: z.string().min(1), expires_in: z.number().positive() });

/** A token is dropped this long before PayPal says it expires, so no call carries a dying one. */
const EXPIRY_MARGIN_MS = 60_000;

export type TokenResult = { ok: true; token: string } | { ok: false; refused: boolean; reason: string };

interface Cached {
  token: string;
  expiresAt: number;
}

/**
 * OAuth2 client credentials, one token per app cached until it expires (PayPal's tokens live
 * about nine hours): one token request serves every call of that time, and concurrent callers
 * share the one request in flight.
 */
export function paypalTokens(baseUrl: string, timeoutMs: number, now: () => number = Date.now) {
  const cache = new Map<string, Cached>();
  const inFlight = new Map<string, Promise<TokenResult>>();
  const keyOf = (clientId: string, secret: string) =>
    `${clientId}:${createHash('sha256').update(secret).digest('base64')}`;

  async function fetchToken(key: string, clientId: string, secret: string): Promise<TokenResult> {
    const result = await call({
      method: 'POST',
      url: joinUrl(baseUrl, '/v1/oauth2/token'),
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
      timeoutMs,
    });
    if (!result.answered) return { ok: false, refused: false, reason: result.reason };
    const answer = tokenAnswer.safeParse(result.json);
    if (result.status === 200 && answer.success) {
      cache.set(key, {
        token: answer.data.access_token,
        expiresAt: now() + answer.data.expires_in * 1000 - EXPIRY_MARGIN_MS,
      });
      return { ok: true, token: answer.data.access_token };
    }
    const refused = result.status === 401 || result.status === 403;
    return { ok: false, refused, reason: `PayPal answered ${result.status} to the token request` };
  }

  return {
    async get(clientId: string, secret: string): Promise<TokenResult> {
      const key = keyOf(clientId, secret);
      const cached = cache.get(key);
      if (cached && cached.expiresAt > now()) return { ok: true, token: cached.token };
      const pending = inFlight.get(key) ?? fetchToken(key, clientId, secret).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
      return pending;
    },
    /** A token PayPal refused (401): the next call asks for a new one. */
    forget(clientId: string, secret: string): void {
      cache.delete(keyOf(clientId, secret));
    },
  };
}
