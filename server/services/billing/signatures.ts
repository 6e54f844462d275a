import { createHmac, timingSafeEqual } from 'node:crypto';
import Stripe from 'stripe';

/**
 * Provider signatures, checked on the raw body before anything else reads it
 * (docs/integrations.md). Every secret an integration holds is tried: the current one and,
 * for 24 hours after a rotation, the previous one.
 */

/** Both providers refuse a signature older than five minutes; so do we. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** What a verified body turned out to be. */
export type Verified = { ok: true; json: unknown } | { ok: false; reason: 'signature' | 'json' };

/**
 * Stripe: the official package's `webhooks.constructEvent` (HMAC-SHA256 over `t.body`, a timing-safe
 * compare, the timestamp within tolerance), which also parses the body once it is verified.
 */
export function verifyStripe(body: Buffer, header: string | undefined, secrets: readonly string[]): Verified {
  if (!header || body.length === 0) return { ok: false, reason: 'signature' };
  for (const secret of secrets) {
    try {
      return { ok: true, json: Stripe.webhooks.constructEvent(body, header, secret, SIGNATURE_TOLERANCE_SECONDS) };
    } catch (err) {
      if (err instanceof SyntaxError) return { ok: false, reason: 'json' };
      // A signature made with another secret (or none): try the next one.
    }
  }
  return { ok: false, reason: 'signature' };
}

/** `ts=1671552777;h1=eb4d…;h1=…`: the timestamp and every h1 value (Paddle may send several). */
function paddleHeader(header: string): { ts: string; h1: string[] } | undefined {
  let ts: string | undefined;
  const h1: string[] = [];
  for (const part of header.split(';')) {
    const [name, value, ...rest] = part.trim().split('=');
    if (rest.length > 0 || value === undefined) return undefined;
    if (name === 'ts') ts = value;
    else if (name === 'h1') h1.push(value);
  }
  return ts !== undefined && /^\d{1,12}$/.test(ts) && h1.length > 0 ? { ts, h1 } : undefined;
}

/**
 * Paddle Billing: `Paddle-Signature: ts=<unix seconds>;h1=<hex HMAC-SHA256 of "<ts>:<raw body>">`
 * with the notification secret; compared in constant time; a timestamp more than the tolerance
 * away from now (either way) is refused, so a captured request cannot be replayed later.
 */
export function verifyPaddle(
  body: Buffer,
  header: string | undefined,
  secrets: readonly string[],
  nowMs = Date.now(),
): Verified {
  const parsed = header ? paddleHeader(header) : undefined;
  if (!parsed || body.length === 0) return { ok: false, reason: 'signature' };
  if (Math.abs(Math.floor(nowMs / 1000) - Number(parsed.ts)) > SIGNATURE_TOLERANCE_SECONDS) {
    return { ok: false, reason: 'signature' };
  }
  const signed = Buffer.concat([Buffer.from(`${parsed.ts}:`), body]);
  const matches = secrets.some((secret) => {
    const expected = createHmac('sha256', secret).update(signed).digest();
    return parsed.h1.some((value) => {
      if (!/^[0-9a-f]{64}$/i.test(value)) return false;
      return timingSafeEqual(expected, Buffer.from(value, 'hex'));
    });
  });
  if (!matches) return { ok: false, reason: 'signature' };
  try {
    return { ok: true, json: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: false, reason: 'json' };
  }
}
