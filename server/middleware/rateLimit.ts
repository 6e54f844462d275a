import type { Redis } from 'ioredis';
import type { Context, Middleware, Next } from 'koa';
import ratelimit from 'koa-ratelimit';
import type { RateLimitBucket } from '../../shared/contract/route.js';
import type { Config } from '../config.js';
import { clientKey } from '../clientAddress.js';
import type { Logger } from '../logger.js';
import type { ApiKeyAuthenticator } from '../services/auth.js';
import { apiKeyHash } from './auth.js';

/**
 * Fixed one-minute window (spec §10.10) for koa-ratelimit's redis driver. Its limiter
 * (async-ratelimiter) defines a sliding-log `ratelimiter` command only when the client has
 * none, so defining ours first keeps the library's middleware, headers and 429 while making
 * the window fixed and shared by every daemon on the same Redis.
 * Answers { remaining before this request, reset as epoch seconds, max }, like the memory driver.
 */
const FIXED_WINDOW_LUA = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
local remaining = tonumber(ARGV[3]) - count + 1
if remaining < 0 then remaining = 0 end
return {remaining, math.ceil((tonumber(ARGV[1]) + ttl) / 1000), tonumber(ARGV[3])}
`;

/** Whether the next request of this window would be refused, without counting one: 1 or 0. */
const EXHAUSTED_LUA = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then return 1 end
return 0
`;

export function defineFixedWindowCommand(redis: Redis): void {
  redis.defineCommand('ratelimiter', { numberOfKeys: 1, lua: FIXED_WINDOW_LUA });
  redis.defineCommand('ratelimitexhausted', { numberOfKeys: 1, lua: EXHAUSTED_LUA });
}

type ExhaustedCommand = (key: string, max: number) => Promise<number>;

type Bucket = Exclude<RateLimitBucket, 'none'>;

const RESET = 'X-RateLimit-Reset';

/**
 * koa-ratelimit sends an epoch; spec §10.10 wants whole seconds until the window resets. Both
 * drivers' epochs are already rounded (Redis to whole seconds, memory on a clock that drifts
 * from Date.now), so rounding up again could say 61 for a 60-second window: never say more
 * than the window.
 */
function secondsUntil(epochSeconds: unknown, windowSeconds: number, now = Date.now()): number {
  const value = Number(epochSeconds);
  if (!Number.isFinite(value)) return 0;
  return Math.min(windowSeconds, Math.max(0, Math.ceil(value - now / 1000)));
}

declare module 'koa' {
  interface DefaultState {
    /** Who a request is counted against: `key:<hash>` or `ip:<address>`. */
    rateLimitId?: string;
  }
}

/** A memory driver's window (koa-ratelimit's memory limiter): `remaining` before the request it counts. */
interface MemoryWindow {
  reset: number;
  remaining: number;
}

interface Limiter {
  middleware: Middleware;
  /** Whether this caller's next request would be refused: no request is counted. */
  exhausted(id: string): Promise<boolean>;
}

/** The rate limit of one bucket, as a middleware of the routes that count in it. */
export type RateLimit = (bucket: RateLimitBucket) => Middleware;

const uncounted: Middleware = (_ctx, next) => next();

/**
 * spec §8 and §10.10: `/v1/events` per API key, `/v1/sdk/events` per client IP, every
 * other route per API key (per IP without one). Each contract route's chain (`http/register.ts`)
 * starts with its bucket's limit, and a path no route has counts as `default`. Counting happens
 * before authentication; a key counts as a key only once it is known to be active, so a key that
 * is not (unknown, random, revoked) is counted against the client's IP like a request without
 * one, and once that IP is over its limit its keys are refused without being looked up.
 */
export function rateLimiter(
  config: Config,
  logger: Logger,
  authenticator: ApiKeyAuthenticator,
  redis?: Redis,
): RateLimit {
  const { windowMs, eventsPerWindow, sdkPerWindow, defaultPerWindow } = config.rateLimit;
  const windowSeconds = Math.ceil(windowMs / 1000);
  const memoryStores: Map<string, MemoryWindow>[] = [];
  const make = (bucket: Bucket, max: number): Limiter => {
    const store = new Map<string, MemoryWindow>();
    memoryStores.push(store);
    const namespace = `affiliated:ratelimit:${bucket}`;
    const middleware = ratelimit({
      driver: redis ? 'redis' : 'memory',
      db: redis ?? store,
      namespace,
      duration: windowMs,
      max,
      id: (ctx: Context) => ctx.state.rateLimitId ?? `ip:${clientKey(ctx.ip)}`,
      throw: true,
    } as ratelimit.MiddlewareOptions);
    // Both drivers keep a caller's window under `<namespace>:<id>`.
    const exhausted = async (id: string): Promise<boolean> => {
      if (redis) {
        const command = (redis as unknown as { ratelimitexhausted?: ExhaustedCommand }).ratelimitexhausted;
        return command ? (await command.call(redis, `${namespace}:${id}`, max)) === 1 : false;
      }
      const window = store.get(`${namespace}:${id}`);
      // The memory limiter lets a request through while `remaining` is above 1 before it.
      return window !== undefined && window.reset * 1000 > Date.now() && window.remaining <= 1;
    };
    return { middleware, exhausted };
  };
  const limiters: Record<Bucket, Limiter> = {
    events: make('events', eventsPerWindow),
    sdk: make('sdk', sdkPerWindow),
    default: make('default', defaultPerWindow),
  };

  /** Whom this request counts against (spec §10.10). */
  async function countedAs(ctx: Context, bucket: Bucket): Promise<string> {
    const ip = `ip:${clientKey(ctx.ip)}`;
    const hash = bucket === 'sdk' ? undefined : apiKeyHash(ctx);
    if (!hash) return ip;
    if (authenticator.recentlyActive(hash)) return `key:${hash}`;
    // Over its limit, the IP's keys are not looked up: a flood of random keys costs no query.
    if (await limiters[bucket].exhausted(ip).catch(() => false)) return ip;
    return (await authenticator.lookup(hash)).state === 'active' ? `key:${hash}` : ip;
  }

  // The memory driver never forgets a caller; sweep expired windows so memory stays bounded.
  if (!redis) {
    setInterval(
      () => {
        const now = Date.now() / 1000;
        for (const store of memoryStores) for (const [id, entry] of store) if (entry.reset < now) store.delete(id);
      },
      Math.max(windowMs, 1000),
    ).unref();
  }

  const limit = (bucket: Bucket): Middleware =>
    async function limitRate(ctx: Context, next: Next): Promise<void> {
      // A preflight is never counted.
      if (ctx.method === 'OPTIONS') return next();
      ctx.state.rateLimitId = await countedAs(ctx, bucket);
      let passed = false;
      try {
        await limiters[bucket].middleware(ctx, async () => {
          passed = true;
          ctx.set(RESET, String(secondsUntil(ctx.response.get(RESET), windowSeconds)));
          await next();
        });
      } catch (err) {
        if (passed) throw err;
        const limited = err as { status?: number; headers?: Record<string, string | number> };
        if (limited.status === 429 && limited.headers) {
          const seconds = secondsUntil(limited.headers[RESET], windowSeconds);
          limited.headers[RESET] = seconds;
          limited.headers['Retry-After'] = Math.max(1, seconds);
          throw err;
        }
        // The shared store is down: serve rather than fail every request, and say so.
        logger.warn('rate limit store unavailable; request not counted', {
          code: (err as { code?: string }).code,
        });
        await next();
      }
    };
  const byBucket: Record<Bucket, Middleware> = {
    events: limit('events'),
    sdk: limit('sdk'),
    default: limit('default'),
  };
  return (bucket) => (bucket === 'none' ? uncounted : byBucket[bucket]);
}
