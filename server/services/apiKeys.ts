import { createHash } from 'node:crypto';
import type { ApiKeyInfo } from '../../shared/schemas/campaign.js';
import type { Db } from '../db/knex.js';
import { NotFoundError } from '../errors.js';
import {
  findApiKey,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  toApiKeyInfo,
} from '../repositories/apiKeys.js';
import { findCampaign } from '../repositories/campaigns.js';
import { randomBase62 } from './random.js';

export { listApiKeys };

/** product §2: `afk_` + 32 base62 characters; stored only as a SHA-256 hash. */
export const API_KEY_PREFIX = 'afk_';

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Creates a key for a campaign (by id or public id). The key itself is returned once, here only. */
export async function createApiKey(
  db: Db,
  input: { campaign: string | number; name?: string | null },
): Promise<ApiKeyInfo & { key: string }> {
  const campaign = await findCampaign(db, input.campaign);
  if (!campaign)
    throw new NotFoundError(`Campaign ${input.campaign} not found: see \`affiliated campaigns list\``);
  const key = API_KEY_PREFIX + randomBase62(32);
  const row = await insertApiKey(db, {
    campaignId: campaign.id,
    name: input.name?.trim() || null,
    hash: hashApiKey(key),
    prefix: key.slice(0, API_KEY_PREFIX.length + 4),
    lastFour: key.slice(-4),
  });
  return { ...toApiKeyInfo(row), key };
}

/** Revokes a key; revoking a revoked key is fine (idempotent), an unknown id is not. */
export async function revokeKey(db: Db, id: number): Promise<ApiKeyInfo> {
  await revokeApiKey(db, id);
  const row = await findApiKey(db, id);
  if (!row) throw new NotFoundError(`API key ${id} not found: see \`affiliated keys list\``);
  return toApiKeyInfo(row);
}
