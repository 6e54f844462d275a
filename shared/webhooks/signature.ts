import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks signatures (the scheme Svix uses): `webhook-signature` is a space-separated
 * list of `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the
 * base64-decoded part of the secret after `whsec_`. During a rotation both secrets sign.
 */
export const SECRET_PREFIX = 'whsec_';

/** `whsec_` + base64 of 24 random bytes. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0 || key.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) {
    throw new Error('the secret must be whsec_ followed by base64');
  }
  return key;
}

export function sign(secret: string, messageId: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${messageId}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` header value for every secret that currently signs. */
export function signatureHeader(
  secrets: readonly string[],
  messageId: string,
  timestamp: number,
  body: string,
): string {
  return secrets.map((secret) => sign(secret, messageId, timestamp, body)).join(' ');
}

export interface SignedHeaders {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
}

export type Verification = { ok: true; ageSeconds: number } | { ok: false; reason: string; ageSeconds?: number };

/**
 * Checks a received request. `toleranceSeconds` (Standard Webhooks suggests 300) refuses an old
 * or future timestamp, which stops replays; leave it out to check only the signature.
 */
export function verifySignature(
  secret: string,
  headers: SignedHeaders,
  body: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): Verification {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature) {
    return { ok: false, reason: 'webhook-id, webhook-timestamp and webhook-signature are all required' };
  }
  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: 'webhook-timestamp is not a Unix time in seconds' };
  const ageSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000) - Number(timestamp);
  const expected = Buffer.from(sign(secret, id, Number(timestamp), body).slice(3), 'base64');
  const matches = signature.split(' ').some((entry) => {
    const [version, mac] = entry.split(',');
    if (version !== 'v1' || mac === undefined) return false;
    const given = Buffer.from(mac, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) return { ok: false, reason: 'no signature matches this secret and body', ageSeconds };
  if (options.toleranceSeconds !== undefined && Math.abs(ageSeconds) > options.toleranceSeconds) {
    return { ok: false, reason: `webhook-timestamp is ${ageSeconds} s old`, ageSeconds };
  }
  return { ok: true, ageSeconds };
}
