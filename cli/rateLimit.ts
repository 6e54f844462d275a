import { type ApiClient, ApiError, type Reply } from '../shared/client/index.js';
import { clientFrom } from '../shared/client/index.js';
import { type Clock, realClock } from './commands/events/replay/clock.js';
import { Pacer } from './commands/events/replay/pacer.js';
import type { Io } from './io.js';
import { note } from './output.js';

/** spec §7: after a 429 without Retry-After, wait 1 s, 2 s, 4 s ... */
export const backoffMs = (attempt: number, capMs = 60_000) => Math.min(capMs, 1000 * 2 ** attempt);
/** 429s in a row for one request before it is given up. */
export const MAX_RATE_LIMITED_RETRIES = 10;

export interface RateLimitWaits {
  /** Told of each wait a 429 caused, in words. */
  say(text: string): void;
  /** Cuts a wait short (AbortError): the request was then not sent. */
  signal?: AbortSignal;
  /** Each request that goes out, and each 429 that comes back (a run's statistics). */
  onSend?(): void;
  onLimited?(): void;
}

/**
 * The one way the CLI waits out the rate limit (`events replay` and every command that pages):
 * a request goes out when the pacer says the window has room for it, and a 429 is waited out
 * (its Retry-After, else spec §7's backoff) and sent again, up to `MAX_RATE_LIMITED_RETRIES`
 * times; the last 429 is then thrown. Repeating is safe: the rate limit refuses a request
 * before anything of it is done.
 */
export async function sendPaced<T>(
  pacer: Pacer,
  send: () => Promise<Reply<T>>,
  waits: RateLimitWaits,
): Promise<Reply<T>> {
  let limited = 0;
  for (;;) {
    await pacer.acquire(waits.signal);
    waits.onSend?.();
    try {
      const reply = await send();
      pacer.observe(reply.rateLimit);
      pacer.release();
      return reply;
    } catch (err) {
      if (err instanceof ApiError) pacer.observe(err.rateLimit);
      pacer.release();
      if (!(err instanceof ApiError) || err.statusCode !== 429) throw err;
      waits.onLimited?.();
      if (++limited > MAX_RATE_LIMITED_RETRIES) throw err;
      const waitMs = err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : backoffMs(limited - 1);
      waits.say(`rate limited (429): waiting ${Math.ceil(waitMs / 1000)} s`);
      pacer.holdFor(waitMs);
    }
  }
}

/**
 * The client of a command that pages (`--all`, `payouts export`, `refunds list`): every call is
 * paced by the rate-limit headers (it waits for the window to reset rather than earn a 429) and
 * waits out a 429, saying so on stderr, so a long export finishes instead of dying half-way.
 * stdout keeps only the command's output (`--json` included).
 */
export function pacedClient(io: Io, client: ApiClient, clock: Clock = realClock): ApiClient {
  // A 429's own note already says how long; a wait the headers foresaw gets one of its own.
  let told = false;
  const say = (text: string) => {
    told = true;
    note(io, text);
  };
  const pacer = new Pacer(clock, (until) => {
    if (until === undefined) {
      told = false;
    } else if (!told) {
      told = true;
      const seconds = Math.max(1, Math.ceil((until - clock.now()) / 1000));
      note(io, `rate limit reached: waiting ${seconds} s for the next window`);
    }
  });
  return clientFrom(client.baseUrl, (route, input) => sendPaced(pacer, () => client.request(route, input), { say }));
}
