import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type Db, isUniqueViolation } from '../db/knex.js';
import { toDate } from '../db/rows.js';

/** The Redis client the daemon shares (the rate limit's), named for services that must not import ioredis. */
export type RedisClient = Redis;

/**
 * Where the portal's throttling counts (docs/portal.md#the-security-model): the database, or
 * Redis when `REDIS_URL` is set. Every operation is one atomic step there, never a read and a
 * write in this process, so daemons sharing the store share the counts.
 */
export interface ThrottleStore {
  /** A hit in `bucket`'s fixed window (it starts at the first hit): refused past `limit` until `resetAt`. */
  hit(bucket: string, limit: number, windowMs: number, now: Date): Promise<{ allowed: boolean; resetAt: Date }>;
  /** One of `slots` places, held until `until`; or, when all are held, when the first frees. */
  takeSlot(bucket: string, slots: number, until: Date, now: Date): Promise<{ token: string } | { retryAt: Date }>;
  /** Keeps a taken place held until `until` (a failure counts for its whole window). */
  holdSlot(bucket: string, token: string, until: Date): Promise<void>;
  /** Gives a taken place back (a success is not a failure). */
  releaseSlot(bucket: string, token: string): Promise<void>;
  /** How many places are held now. */
  heldSlots(bucket: string, now: Date): Promise<number>;
  /** Holds every place until `until` at least: the lock after the last failure allowed. */
  holdAllSlots(bucket: string, slots: number, until: Date): Promise<void>;
}

const newToken = () => randomBytes(12).toString('hex');

/** The database store: `portal_counters` and `portal_login_slots`, changed by conditional statements. */
export function databaseThrottleStore(db: Db): ThrottleStore {
  return {
    async hit(bucket, limit, windowMs, now) {
      const cut = new Date(now.getTime() - windowMs);
      await db('portal_counters').insert({ bucket, window_start: now, hits: 0 }).onConflict('bucket').ignore();
      // One statement decides: a window over is restarted, a window under its limit counts one more.
      // MySQL assigns left to right, so `hits` is computed before `window_start` changes.
      const counted = await db('portal_counters')
        .where('bucket', bucket)
        .andWhere((q) => q.where('window_start', '<=', cut).orWhere('hits', '<', limit))
        .update({
          hits: db.raw('CASE WHEN window_start <= ? THEN 1 ELSE hits + 1 END', [cut]),
          window_start: db.raw('CASE WHEN window_start <= ? THEN ? ELSE window_start END', [cut, now]),
        });
      const row = await db('portal_counters')
        .where('bucket', bucket)
        .first<{ window_start: Date } | undefined>('window_start');
      const start = row ? toDate(row.window_start) : now;
      return { allowed: counted === 1, resetAt: new Date(start.getTime() + windowMs) };
    },

    async takeSlot(bucket, slots, until, now) {
      const token = newToken();
      for (let slot = 0; slot < slots; slot++) {
        const taken = await db('portal_login_slots')
          .where({ bucket, slot })
          .andWhere('busy_until', '<=', now)
          .update({ busy_until: until, token });
        if (taken === 1) return { token };
        try {
          await db('portal_login_slots').insert({ bucket, slot, busy_until: until, token });
          return { token };
        } catch (err) {
          // Held by another attempt: the primary key decided.
          if (!isUniqueViolation(err)) throw err;
        }
      }
      const first = await db('portal_login_slots')
        .where('bucket', bucket)
        .min<{ at: Date | number | null }[]>({ at: 'busy_until' });
      const at = first[0]?.at;
      return { retryAt: at === null || at === undefined ? now : toDate(at) };
    },

    async holdSlot(bucket, token, until) {
      await db('portal_login_slots').where({ bucket, token }).update({ busy_until: until });
    },

    async releaseSlot(bucket, token) {
      await db('portal_login_slots').where({ bucket, token }).delete();
    },

    async heldSlots(bucket, now) {
      const [row] = await db('portal_login_slots')
        .where('bucket', bucket)
        .andWhere('busy_until', '>', now)
        .count<{ n: number | string }[]>({ n: '*' });
      return Number(row?.n ?? 0);
    },

    async holdAllSlots(bucket, slots, until) {
      await db('portal_login_slots')
        .where('bucket', bucket)
        .andWhere('busy_until', '<', until)
        .andWhere('slot', '<', slots)
        .update({ busy_until: until });
    },
  };
}

/** Fixed window: INCR, and the expiry set by the hit that opened the window. */
const HIT_LUA = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
return {count, ttl}
`;

/** The first free place of KEYS[1]:0 … :n-1 (SET NX), or the time until the first frees (negative). */
const TAKE_LUA = `
local soonest = -1
for i = 0, tonumber(ARGV[1]) - 1 do
  local key = KEYS[1] .. ':' .. i
  if redis.call('SET', key, ARGV[2], 'NX', 'PX', ARGV[3]) then return i end
  local ttl = redis.call('PTTL', key)
  if soonest < 0 or ttl < soonest then soonest = ttl end
end
return -1 - soonest
`;

/** Acts on the place holding token ARGV[1] only: PEXPIRE to ARGV[2], or DEL when ARGV[2] is 0. */
const OWN_LUA = `
for i = 0, tonumber(ARGV[3]) - 1 do
  local key = KEYS[1] .. ':' .. i
  if redis.call('GET', key) == ARGV[1] then
    if tonumber(ARGV[2]) > 0 then return redis.call('PEXPIRE', key, ARGV[2]) end
    return redis.call('DEL', key)
  end
end
return 0
`;

/** Every held place held for ARGV[2] ms at least. */
const HOLD_ALL_LUA = `
for i = 0, tonumber(ARGV[1]) - 1 do
  local key = KEYS[1] .. ':' .. i
  local ttl = redis.call('PTTL', key)
  if ttl >= 0 and ttl < tonumber(ARGV[2]) then redis.call('PEXPIRE', key, ARGV[2]) end
end
return 1
`;

const COUNT_LUA = `
local held = 0
for i = 0, tonumber(ARGV[1]) - 1 do
  if redis.call('EXISTS', KEYS[1] .. ':' .. i) == 1 then held = held + 1 end
end
return held
`;

/** The most places a bucket has: OWN_LUA and COUNT_LUA look at this many. */
const MAX_SLOTS = 16;

/** The Redis store: keys under `affiliated:portal:`, expiring by themselves. */
export function redisThrottleStore(redis: Redis): ThrottleStore {
  const key = (bucket: string) => `affiliated:portal:${bucket}`;
  const ms = (until: Date, from = Date.now()) => Math.max(1, until.getTime() - from);
  return {
    async hit(bucket, limit, windowMs, now) {
      const [count, ttl] = (await redis.eval(HIT_LUA, 1, key(`hit:${bucket}`), windowMs)) as [number, number];
      return { allowed: count <= limit, resetAt: new Date(now.getTime() + Math.max(0, ttl)) };
    },
    async takeSlot(bucket, slots, until, now) {
      const token = newToken();
      const found = Number(
        await redis.eval(TAKE_LUA, 1, key(`slot:${bucket}`), slots, token, ms(until, now.getTime())),
      );
      return found >= 0 ? { token } : { retryAt: new Date(now.getTime() + Math.max(0, -1 - found)) };
    },
    async holdSlot(bucket, token, until) {
      await redis.eval(OWN_LUA, 1, key(`slot:${bucket}`), token, ms(until), MAX_SLOTS);
    },
    async releaseSlot(bucket, token) {
      await redis.eval(OWN_LUA, 1, key(`slot:${bucket}`), token, 0, MAX_SLOTS);
    },
    async heldSlots(bucket) {
      return Number(await redis.eval(COUNT_LUA, 1, key(`slot:${bucket}`), MAX_SLOTS));
    },
    async holdAllSlots(bucket, slots, until) {
      await redis.eval(HOLD_ALL_LUA, 1, key(`slot:${bucket}`), slots, ms(until));
    },
  };
}

/** Rows whose windows and holds are long over: the housekeeping job deletes them. */
export async function deleteStaleThrottleRows(db: Db, before: Date): Promise<void> {
  await db('portal_counters').where('window_start', '<', before).delete();
  await db('portal_login_slots').where('busy_until', '<', before).delete();
}
