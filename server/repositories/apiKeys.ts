import type { ApiKeyInfo } from '../../shared/schemas/campaign.js';
import type { Db, Trx } from '../db/knex.js';
import { type ApiKeyRow, type CampaignRow, toDate, toIso } from '../db/rows.js';

function toApiKeyInfo(row: ApiKeyRow): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    campaignId: row.campaign_id,
    prefix: row.prefix,
    lastFour: row.last_four,
    status: row.status,
    createdAt: toIso(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : toIso(row.last_used_at),
  };
}

export async function insertApiKey(
  db: Db | Trx,
  key: { campaignId: number; name: string | null; hash: string; prefix: string; lastFour: string },
): Promise<ApiKeyInfo> {
  const row: Omit<ApiKeyRow, 'id'> = {
    campaign_id: key.campaignId,
    name: key.name,
    key_hash: key.hash,
    prefix: key.prefix,
    last_four: key.lastFour,
    status: 'active',
    created_at: new Date(),
    last_used_at: null,
    revoked_at: null,
  };
  const [id] = await db('api_keys').insert(row);
  return toApiKeyInfo({ id: Number(id), ...row });
}

export async function listApiKeys(db: Db | Trx, campaignId?: number): Promise<ApiKeyInfo[]> {
  const query = db<ApiKeyRow>('api_keys').select('*').orderBy('id');
  if (campaignId !== undefined) query.where({ campaign_id: campaignId });
  return (await query).map(toApiKeyInfo);
}

/** Atomic: revoking an already revoked key changes nothing and reports false. */
export async function revokeApiKey(db: Db | Trx, id: number, campaignId?: number): Promise<boolean> {
  const query = db('api_keys').where({ id, status: 'active' });
  if (campaignId !== undefined) query.andWhere({ campaign_id: campaignId });
  const changed = await query.update({ status: 'revoked', revoked_at: new Date() });
  return changed > 0;
}

export async function findApiKey(db: Db | Trx, id: number): Promise<ApiKeyInfo | undefined> {
  const row = await db<ApiKeyRow>('api_keys').where({ id }).first();
  return row && toApiKeyInfo(row);
}

/**
 * A key and what authenticating with it grants: its campaign and that campaign's plan limits.
 * Not the commission rules: intake reads those afresh in each flush (spec §12.2), never from a
 * key lookup a daemon may keep for API_KEY_CACHE_MS.
 */
export interface KeyWithCampaign {
  key: { id: number; prefix: string; status: ApiKeyRow['status']; lastUsedAt: Date | null };
  campaign: {
    id: number;
    publicId: string;
    planName: string;
    maxAffiliates: number | null;
    maxMonthlyConversions: number | null;
  };
}

type KeyWithCampaignRow = Pick<CampaignRow, 'id' | 'public_id'> & {
  plan_name: string;
  max_affiliates: number | null;
  max_monthly_conversions: number | null;
  key_id: number;
  key_prefix: string;
  key_status: ApiKeyRow['status'];
  key_last_used_at: ApiKeyRow['last_used_at'];
};

/** The key and its campaign in one query, by the key's SHA-256 hash. */
export async function findApiKeyByHash(db: Db | Trx, hash: string): Promise<KeyWithCampaign | undefined> {
  const row = await db('api_keys')
    .join('campaigns', 'campaigns.id', 'api_keys.campaign_id')
    .join('plans', 'plans.id', 'campaigns.plan_id')
    .where('api_keys.key_hash', hash)
    .first<KeyWithCampaignRow | undefined>(
      'campaigns.id',
      'campaigns.public_id',
      'plans.name as plan_name',
      'plans.max_affiliates',
      'plans.max_monthly_conversions',
      'api_keys.id as key_id',
      'api_keys.prefix as key_prefix',
      'api_keys.status as key_status',
      'api_keys.last_used_at as key_last_used_at',
    );
  if (!row) return undefined;
  return {
    key: {
      id: Number(row.key_id),
      prefix: row.key_prefix,
      status: row.key_status,
      lastUsedAt: row.key_last_used_at === null ? null : toDate(row.key_last_used_at),
    },
    campaign: {
      id: Number(row.id),
      publicId: row.public_id,
      planName: row.plan_name,
      maxAffiliates: row.max_affiliates === null ? null : Number(row.max_affiliates),
      maxMonthlyConversions: row.max_monthly_conversions === null ? null : Number(row.max_monthly_conversions),
    },
  };
}

export async function touchApiKey(db: Db | Trx, id: number, at: Date): Promise<void> {
  await db('api_keys').where({ id }).update({ last_used_at: at });
}
