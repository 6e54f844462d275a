import { createHash } from 'node:crypto';
import type { ApiKeyInfo } from '../../shared/schemas/campaign.js';
import { characters, OPERATOR_LIMITS } from '../../shared/vocabulary.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { findApiKey, insertApiKey, listApiKeys, revokeApiKey } from '../repositories/apiKeys.js';
import { findCampaign } from '../repositories/campaigns.js';
import { inTransaction } from '../db/knex.js';
import { recordAudit } from './audit.js';
import type { ServiceDeps } from './deps.js';
import { randomBase62 } from './random.js';

/** spec §11: `afk_` + 32 base62 characters; stored only as a SHA-256 hash. */
const API_KEY_PREFIX = 'afk_';

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface ApiKeyService {
  /** Creates a key for a campaign (by id or public id). The key itself is returned once, here only. */
  create(input: { campaign: string | number; name?: string | null }): Promise<ApiKeyInfo & { key: string }>;
  /** Revoking a revoked key is fine (idempotent); an unknown id is not, nor one of another campaign than `campaignId`. */
  revoke(id: number, campaignId?: number): Promise<ApiKeyInfo>;
  /** Every key, or a campaign's (by id or public id). */
  list(campaign?: string | number): Promise<ApiKeyInfo[]>;
}

const campaignNotFound = (ref: string | number) =>
  new NotFoundError(`Campaign ${ref} not found: see \`affiliated campaigns list\``);

export function apiKeyService({ db, now }: ServiceDeps): ApiKeyService {
  return {
    async create(input) {
      const found = await findCampaign(db, input.campaign);
      if (!found) throw campaignNotFound(input.campaign);
      const name = input.name?.trim() || null;
      // The column holds 100 characters: MariaDB would refuse more, SQLite keep it.
      if (name !== null && characters(name) > OPERATOR_LIMITS.keyName) {
        throw new ValidationError(`key name must be at most ${OPERATOR_LIMITS.keyName} characters long`);
      }
      const key = API_KEY_PREFIX + randomBase62(32);
      const campaignId = found.campaign.id;
      const info = await inTransaction(db, async (trx) => {
        const inserted = await insertApiKey(trx, {
          campaignId,
          name,
          hash: hashApiKey(key),
          prefix: key.slice(0, API_KEY_PREFIX.length + 4),
          lastFour: key.slice(-4),
        });
        // The key's id names it; the key itself never reaches the log.
        await recordAudit(trx, now(), [{ campaignId, action: 'key.create', targetId: inserted.id }]);
        return inserted;
      });
      return { ...info, key };
    },

    async revoke(id, campaignId) {
      return inTransaction(db, async (trx) => {
        const revoked = await revokeApiKey(trx, id, campaignId);
        const info = await findApiKey(trx, id);
        if (!info || (campaignId !== undefined && info.campaignId !== campaignId))
          throw new NotFoundError(`API key ${id} not found: see \`affiliated keys list\``);
        // Revoking a revoked key changes nothing, and records nothing.
        if (revoked)
          await recordAudit(trx, now(), [{ campaignId: info.campaignId, action: 'key.revoke', targetId: id }]);
        return info;
      });
    },

    async list(campaign) {
      if (campaign === undefined) return listApiKeys(db);
      const found = await findCampaign(db, campaign);
      if (!found) throw campaignNotFound(campaign);
      return listApiKeys(db, found.campaign.id);
    },
  };
}
