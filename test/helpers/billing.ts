import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Stripe from 'stripe';
import { call, type Reply } from './http.js';

/** Signing secrets of the tests' integrations, in each provider's form. */
export const STRIPE_SECRET = 'whsec_test_9fJ2kL5mN8pQ1rS4tU7vW0xY3zA6bC9d';
export const PADDLE_SECRET = 'pdl_ntfset_01jd9test0a1b2c3d4e5f6g7h8j_Xq2Wv8Zr5Ty1Lp4Nm7Kc0Bg3Hd6Jf9Sa';

type Json = Record<string, unknown>;

/** A fixture of test/fixtures/billing/, as the provider published its shape; a fresh copy each time. */
export function fixture(name: string): Json {
  return JSON.parse(readFileSync(new URL(`../fixtures/billing/${name}.json`, import.meta.url), 'utf8')) as Json;
}

/** The event's `data.object` (Stripe) or `data` (Paddle), to change before sending. */
export function objectOf(event: Json): Json {
  const data = event.data as Json;
  return (data.object as Json | undefined) ?? data;
}

/** Stripe's own test signature (the stripe package's `generateTestHeaderString`). */
export function stripeSignature(payload: string, secret = STRIPE_SECRET, timestamp?: number): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

/** Paddle's documented scheme: `ts=<unix seconds>;h1=<hex HMAC-SHA256 of "<ts>:<body>">`. */
export function paddleSignature(payload: string, secret = PADDLE_SECRET, ts = Math.floor(Date.now() / 1000)): string {
  return `ts=${ts};h1=${createHmac('sha256', secret).update(`${ts}:${payload}`).digest('hex')}`;
}

/** POSTs an event to a receiving route, signed unless `signature` says otherwise. */
export async function sendEvent(
  baseUrl: string,
  provider: 'stripe' | 'paddle',
  publicId: string,
  event: Json | string,
  options: { signature?: string | null; secret?: string; contentType?: string } = {},
): Promise<Reply<any>> {
  const payload = typeof event === 'string' ? event : JSON.stringify(event);
  const header = provider === 'stripe' ? 'stripe-signature' : 'paddle-signature';
  const signature =
    options.signature === undefined
      ? provider === 'stripe'
        ? stripeSignature(payload, options.secret)
        : paddleSignature(payload, options.secret)
      : options.signature;
  return call<any>(baseUrl, 'POST', `/v1/integrations/${provider}/${encodeURIComponent(publicId)}`, {
    raw: payload,
    contentType: options.contentType ?? 'application/json; charset=utf-8',
    headers: signature === null ? {} : { [header]: signature },
  });
}

let counter = 0;
/** A new event id in the provider's form, so that a test's events are never duplicates by accident. */
export function newEventId(provider: 'stripe' | 'paddle'): string {
  counter++;
  const tail = `${process.pid}${Date.now()}${counter}`.slice(-20);
  return provider === 'stripe' ? `evt_1Test${tail}` : `evt_01test${tail}`;
}

/** A copy of a fixture with a fresh event id and `changes` applied to its object. */
export function eventFrom(name: string, changes: Json = {}): Json {
  const event = fixture(name);
  const provider = 'event_id' in event ? 'paddle' : 'stripe';
  if (provider === 'paddle') event.event_id = newEventId('paddle');
  else event.id = newEventId('stripe');
  Object.assign(objectOf(event), changes);
  return event;
}

/**
 * The signature header a provider would send with `body` to a receiving route of the example
 * world (what the document's description says the provider does), or undefined for other routes.
 */
export function exampleSignature(
  path: string,
  body: unknown,
  secrets: { stripe: string; paddle: string },
): Record<string, string> | undefined {
  const payload = JSON.stringify(body);
  if (path.startsWith('/v1/integrations/stripe/'))
    return { 'stripe-signature': stripeSignature(payload, secrets.stripe) };
  if (path.startsWith('/v1/integrations/paddle/'))
    return { 'paddle-signature': paddleSignature(payload, secrets.paddle) };
  return undefined;
}
