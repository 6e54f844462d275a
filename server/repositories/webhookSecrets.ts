import type { Db, Trx } from '../db/knex.js';
import { toDate } from '../db/rows.js';
import type { WebhookEndpointRow, WebhookRetiredSecretRow } from '../db/webhookRows.js';

/**
 * Signing secrets (docs/webhooks.md#rotating-a-secret): the endpoint's current one, and each one a
 * rotation retired, signing until its own `expires_at`. All are sealed (encrypted); this file
 * never sees a secret in clear.
 */

/** The current sealed secret and when each retired secret still signing stops, soonest first. */
export async function signingSecrets(
  trx: Trx,
  campaignId: number,
  id: number,
  now: Date,
): Promise<{ currentEnc: string; retiredUntil: Date[] } | undefined> {
  const endpoint = await trx<WebhookEndpointRow>('webhook_endpoints')
    .where({ campaign_id: campaignId, id })
    .first('secret_enc');
  if (!endpoint) return undefined;
  const retired = await trx<WebhookRetiredSecretRow>('webhook_retired_secrets')
    .where('endpoint_id', id)
    .andWhere('expires_at', '>', now)
    .orderBy('expires_at')
    .select('expires_at');
  return { currentEnc: endpoint.secret_enc, retiredUntil: retired.map((row) => toDate(row.expires_at)) };
}

/**
 * Replaces the current secret only if it is still `currentEnc` (a compare-and-set): of two
 * rotations racing from the same secret one wins, the other sees 0 and starts again, so no
 * secret handed out is ever lost. On Galera both write the endpoint's row, so certification
 * refuses one of them as well.
 */
export async function swapSecret(
  trx: Trx,
  campaignId: number,
  id: number,
  swap: { currentEnc: string; nextEnc: string; now: Date },
): Promise<boolean> {
  const swapped = await trx('webhook_endpoints')
    .where({ campaign_id: campaignId, id, secret_enc: swap.currentEnc })
    .update({ secret_enc: swap.nextEnc, updated_at: swap.now });
  return swapped > 0;
}

/** Keeps `secretEnc` signing until `expiresAt`, and forgets the endpoint's secrets that stopped. */
export async function retireSecret(
  trx: Trx,
  endpointId: number,
  secret: { secretEnc: string; expiresAt: Date; now: Date },
): Promise<void> {
  await trx('webhook_retired_secrets')
    .where('endpoint_id', endpointId)
    .andWhere('expires_at', '<=', secret.now)
    .delete();
  await trx('webhook_retired_secrets').insert({
    endpoint_id: endpointId,
    secret_enc: secret.secretEnc,
    expires_at: secret.expiresAt,
  });
}

/** The retired secrets still signing for each of these endpoints, retired last first. */
export async function retiredSecretsOf(
  db: Db,
  endpointIds: readonly number[],
  now: Date,
): Promise<Map<number, string[]>> {
  const byEndpoint = new Map<number, string[]>();
  if (endpointIds.length === 0) return byEndpoint;
  const rows = await db<WebhookRetiredSecretRow>('webhook_retired_secrets')
    .whereIn('endpoint_id', endpointIds)
    .andWhere('expires_at', '>', now)
    .orderBy('id', 'desc')
    .select('endpoint_id', 'secret_enc');
  for (const row of rows) {
    const id = Number(row.endpoint_id);
    byEndpoint.set(id, [...(byEndpoint.get(id) ?? []), row.secret_enc]);
  }
  return byEndpoint;
}
