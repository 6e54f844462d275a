import type { ApiKeyInfo } from '../../shared/schemas/campaign.js';
import type { Db, Trx } from '../db/knex.js';
import { type ApiKeyRow, toIso } from '../db/rows.js';
import type { CampaignWithPlanRow } from './campaigns.js';

export function toApiKeyInfo(row: ApiKeyRow): ApiKeyInfo {
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
): Promise<ApiKeyRow> {
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
  return { id: Number(id), ...row };
}

export async function listApiKeys(db: Db | Trx, campaignId?: number): Promise<ApiKeyInfo[]> {
  const query = db<ApiKeyRow>('api_keys').select('*').orderBy('id');
  if (campaignId !== undefined) query.where({ campaign_id: campaignId });
  return (await query).map(toApiKeyInfo);
}

/** Atomic: revoking an already revoked key changes nothing and reports false. */
export async function revokeApiKey(db: Db | Trx, id: number): Promise<boolean> {
  const changed = await db('api_keys')
    .where({ id, status: 'active' })
    .update({ status: 'revoked', revoked_at: new Date() });
  return changed > 0;
}

export async function findApiKey(db: Db | Trx, id: number): Promise<ApiKeyRow | undefined> {
  return db<ApiKeyRow>('api_keys').where({ id }).first();
}

export type ApiKeyWithCampaignRow = CampaignWithPlanRow & {
  key_id: number;
  key_status: 'active' | 'revoked';
  key_last_used_at: ApiKeyRow['last_used_at'];
};

/** The key and its campaign in one query, by the key's SHA-256 hash. */
export async function findApiKeyByHash(db: Db | Trx, hash: string): Promise<ApiKeyWithCampaignRow | undefined> {
  return db('api_keys')
    .join('campaigns', 'campaigns.id', 'api_keys.campaign_id')
    .join('plans', 'plans.id', 'campaigns.plan_id')
    .where('api_keys.key_hash', hash)
    .first<ApiKeyWithCampaignRow | undefined>(
      'campaigns.*',
      'plans.name as plan_name',
      'plans.max_affiliates',
      'plans.max_monthly_conversions',
      'api_keys.id as key_id',
      'api_keys.status as key_status',
      'api_keys.last_used_at as key_last_used_at',
    );
}

export async function touchApiKey(db: Db | Trx, id: number, at: Date): Promise<void> {
  await db('api_keys').where({ id }).update({ last_used_at: at });
}
