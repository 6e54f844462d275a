import type { Db } from '../db/knex.js';
import { toDate } from '../db/rows.js';
import type { Logger } from '../logger.js';
import { type ApiKeyWithCampaignRow, findApiKeyByHash, touchApiKey } from '../repositories/apiKeys.js';

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

export type KeyLookup =
  | { state: 'active'; auth: AuthenticatedCampaign }
  | { state: 'revoked' }
  | { state: 'unknown' };

/** How often `lastUsedAt` is written at most, per key (issue 2: it may lag). */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Looks keys up by hash, caching each answer for `cacheMs` so that a busy key costs one
 * query every few seconds, not one per request. A revoked key therefore stops working
 * within `cacheMs` on every daemon (documented in the README).
 */
export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, { lookup: KeyLookup; expires: number }>();
  private readonly touched = new Map<number, number>();

  constructor(
    private readonly db: Db,
    private readonly cacheMs: number,
    private readonly logger: Logger,
  ) {}

  async lookup(hash: string, now = Date.now()): Promise<KeyLookup> {
    const cached = this.cache.get(hash);
    if (cached && cached.expires > now) return cached.lookup;
    const row = await findApiKeyByHash(this.db, hash);
    const lookup = toLookup(row);
    if (this.cacheMs > 0) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(hash, { lookup, expires: now + this.cacheMs });
    }
    if (row && lookup.state === 'active') this.touch(row, now);
    return lookup;
  }

  private touch(row: ApiKeyWithCampaignRow, now: number): void {
    const last =
      this.touched.get(row.key_id) ?? (row.key_last_used_at ? toDate(row.key_last_used_at).getTime() : 0);
    if (now - last < TOUCH_INTERVAL_MS) return;
    this.touched.set(row.key_id, now);
    touchApiKey(this.db, row.key_id, new Date(now)).catch((err: unknown) => {
      this.logger.warn('could not record key use', {
        keyId: row.key_id,
        code: (err as { code?: string }).code,
      });
    });
  }
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
