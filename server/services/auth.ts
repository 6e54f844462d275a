import { findApiKeyByHash, type KeyWithCampaign, touchApiKey } from '../repositories/apiKeys.js';
import type { ServiceDeps } from './deps.js';

export interface AuthenticatedCampaign {
  keyId: number;
  /** The key's public prefix (`afk_` and 4 characters), as lists show it: the audit log names the key by it. */
  keyPrefix: string;
  campaignId: number;
  publicId: string;
  planName: string;
  maxAffiliates: number | null;
  maxMonthlyConversions: number | null;
}

export type KeyLookup = { state: 'active'; auth: AuthenticatedCampaign } | { state: 'revoked' } | { state: 'unknown' };

/** How often `lastUsedAt` is written at most, per key (spec §11.3: it may lag). */
const TOUCH_INTERVAL_MS = 60_000;

export interface ApiKeyAuthenticator {
  lookup(hash: string, now?: number): Promise<KeyLookup>;
  /**
   * Whether this daemon found the key active within the last few minutes, without asking the
   * database: the rate limit counts such a key by itself, and any other per client IP.
   */
  recentlyActive(hash: string, now?: number): boolean;
}

/** How long a key found active counts as a key for the rate limit, and how many such keys are kept. */
const ACTIVE_MEMORY_MS = 10 * 60_000;
const ACTIVE_ENTRIES = 10_000;

/**
 * Looks keys up by hash, caching each answer for `API_KEY_CACHE_MS` so that a busy key costs
 * one query every few seconds, not one per request. A revoked key therefore stops working
 * within that time on every daemon (documented in the README).
 */
export function apiKeyAuthenticator({ db, config, logger }: ServiceDeps): ApiKeyAuthenticator {
  const cacheMs = config.apiKeyCacheMs;
  const cache = new Map<string, { lookup: KeyLookup; expires: number }>();
  const touched = new Map<number, number>();
  // Only keys found active enter: random keys can never fill it.
  const active = new Map<string, number>();

  function touch({ key }: KeyWithCampaign, now: number): void {
    const last = touched.get(key.id) ?? key.lastUsedAt?.getTime() ?? 0;
    if (now - last < TOUCH_INTERVAL_MS) return;
    touched.set(key.id, now);
    touchApiKey(db, key.id, new Date(now)).catch((err: unknown) => {
      logger.warn('could not record key use', { keyId: key.id, code: (err as { code?: string }).code });
    });
  }

  return {
    async lookup(hash, now = Date.now()) {
      const cached = cache.get(hash);
      if (cached && cached.expires > now) return cached.lookup;
      const found = await findApiKeyByHash(db, hash);
      const lookup = toLookup(found);
      if (cacheMs > 0) {
        if (cache.size > 10_000) cache.clear();
        cache.set(hash, { lookup, expires: now + cacheMs });
      }
      if (found && lookup.state === 'active') {
        touch(found, now);
        if (active.size >= ACTIVE_ENTRIES) active.clear();
        active.set(hash, now + ACTIVE_MEMORY_MS);
      }
      return lookup;
    },

    recentlyActive(hash, now = Date.now()) {
      return (active.get(hash) ?? 0) > now;
    },
  };
}

function toLookup(found: KeyWithCampaign | undefined): KeyLookup {
  if (!found) return { state: 'unknown' };
  if (found.key.status !== 'active') return { state: 'revoked' };
  const { id: campaignId, ...campaign } = found.campaign;
  return { state: 'active', auth: { keyId: found.key.id, keyPrefix: found.key.prefix, campaignId, ...campaign } };
}
