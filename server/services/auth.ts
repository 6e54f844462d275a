import { toDate } from '../db/rows.js';
import { type ApiKeyWithCampaignRow, findApiKeyByHash, touchApiKey } from '../repositories/apiKeys.js';
import type { ServiceDeps } from './deps.js';

export interface AuthenticatedCampaign {
  keyId: number;
  campaignId: number;
  publicId: string;
  planName: string;
  maxAffiliates: number | null;
  maxMonthlyConversions: number | null;
  commissionType: 'percent' | 'fixed';
  commissionValue: number;
}

export type KeyLookup = { state: 'active'; auth: AuthenticatedCampaign } | { state: 'revoked' } | { state: 'unknown' };

/** How often `lastUsedAt` is written at most, per key (issue 2: it may lag). */
const TOUCH_INTERVAL_MS = 60_000;

export interface ApiKeyAuthenticator {
  lookup(hash: string, now?: number): Promise<KeyLookup>;
}

/**
 * Looks keys up by hash, caching each answer for `API_KEY_CACHE_MS` so that a busy key costs
 * one query every few seconds, not one per request. A revoked key therefore stops working
 * within that time on every daemon (documented in the README).
 */
export function apiKeyAuthenticator({ db, config, logger }: ServiceDeps): ApiKeyAuthenticator {
  const cacheMs = config.apiKeyCacheMs;
  const cache = new Map<string, { lookup: KeyLookup; expires: number }>();
  const touched = new Map<number, number>();

  function touch(row: ApiKeyWithCampaignRow, now: number): void {
    const last = touched.get(row.key_id) ?? (row.key_last_used_at ? toDate(row.key_last_used_at).getTime() : 0);
    if (now - last < TOUCH_INTERVAL_MS) return;
    touched.set(row.key_id, now);
    touchApiKey(db, row.key_id, new Date(now)).catch((err: unknown) => {
      logger.warn('could not record key use', { keyId: row.key_id, code: (err as { code?: string }).code });
    });
  }

  return {
    async lookup(hash, now = Date.now()) {
      const cached = cache.get(hash);
      if (cached && cached.expires > now) return cached.lookup;
      const row = await findApiKeyByHash(db, hash);
      const lookup = toLookup(row);
      if (cacheMs > 0) {
        if (cache.size > 10_000) cache.clear();
        cache.set(hash, { lookup, expires: now + cacheMs });
      }
      if (row && lookup.state === 'active') touch(row, now);
      return lookup;
    },
  };
}

function toLookup(row: ApiKeyWithCampaignRow | undefined): KeyLookup {
  if (!row) return { state: 'unknown' };
  if (row.key_status !== 'active') return { state: 'revoked' };
  return {
    state: 'active',
    auth: {
      keyId: row.key_id,
      campaignId: row.id,
      publicId: row.public_id,
      planName: row.plan_name,
      maxAffiliates: row.max_affiliates,
      maxMonthlyConversions: row.max_monthly_conversions,
      commissionType: row.commission_type,
      commissionValue: row.commission_value,
    },
  };
}
