import type { Redis } from 'ioredis';
import type { Context, Middleware, Next } from 'koa';
import ratelimit from 'koa-ratelimit';
import type { RateLimitBucket } from '../../shared/contract/route.js';
import type { Config } from '../config.js';
import type { RouteTable } from '../http/routeTable.js';
import type { Logger } from '../logger.js';
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

export function defineFixedWindowCommand(redis: Redis): void {
  redis.defineCommand('ratelimiter', { numberOfKeys: 1, lua: FIXED_WINDOW_LUA });
}

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

/**
 * spec §8 and §10.10: `/v1/events` per API key, `/v1/sdk/events` per client IP, every
 * other route per API key (per IP without one). Counting happens before authentication.
 */
export function rateLimit(config: Config, logger: Logger, table: RouteTable, redis?: Redis): Middleware {
  const { windowMs, eventsPerWindow, sdkPerWindow, defaultPerWindow } = config.rateLimit;
  const windowSeconds = Math.ceil(windowMs / 1000);
  const byKeyOrIp = (ctx: Context) => {
    const hash = apiKeyHash(ctx);
    return hash ? `key:${hash}` : `ip:${ctx.ip}`;
  };
  const memoryStores: Map<string, { reset: number }>[] = [];
  const make = (namespace: Bucket, max: number, id: (ctx: Context) => string): Middleware => {
    const store = new Map<string, { reset: number }>();
    memoryStores.push(store);
    return ratelimit({
      driver: redis ? 'redis' : 'memory',
      db: redis ?? store,
      namespace: `affiliated:ratelimit:${namespace}`,
      duration: windowMs,
      max,
      id,
      throw: true,
    } as ratelimit.MiddlewareOptions);
  };
  const limiters: Record<Bucket, Middleware> = {
    events: make('events', eventsPerWindow, byKeyOrIp),
    sdk: make('sdk', sdkPerWindow, (ctx) => `ip:${ctx.ip}`),
    default: make('default', defaultPerWindow, byKeyOrIp),
  };

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

  return async function limitRate(ctx: Context, next: Next): Promise<void> {
    if (ctx.method === 'OPTIONS') return next();
    // The contract route's bucket; a path no route has is counted as `default`.
    const bucket = table.find(ctx.method, ctx.path)?.rateLimit ?? 'default';
    if (bucket === 'none') return next();
    let passed = false;
    try {
      await limiters[bucket](ctx, async () => {
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
}
