import type { Webhook, WebhookEventType } from '../../shared/schemas/webhook.js';
import { inChunks } from '../db/bulk.js';
import type { Db, Trx } from '../db/knex.js';
import { toIso } from '../db/rows.js';
import type { WebhookEndpointRow } from '../db/webhookRows.js';

function eventsOf(row: Pick<WebhookEndpointRow, 'events'>): WebhookEventType[] {
  return JSON.parse(row.events) as WebhookEventType[];
}

/** The endpoint as the API answers it: never a secret (issue 11: shown on creation only). */
export function toWebhook(row: WebhookEndpointRow): Webhook {
  return {
    id: Number(row.id),
    url: row.url,
    events: eventsOf(row),
    description: row.description,
    status: row.status,
    disabledReason: row.disabled_reason,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

export async function insertEndpoint(db: Db | Trx, row: Omit<WebhookEndpointRow, 'id'>): Promise<number> {
  const [id] = await db('webhook_endpoints').insert(row);
  return Number(id);
}

export async function findEndpoint(
  db: Db | Trx,
  campaignId: number,
  id: number,
): Promise<WebhookEndpointRow | undefined> {
  return db<WebhookEndpointRow>('webhook_endpoints').where({ campaign_id: campaignId, id }).first();
}

export async function listEndpoints(
  db: Db,
  campaignId: number,
  page: { page: number; limit: number },
): Promise<{ rows: WebhookEndpointRow[]; total: number }> {
  const base = db<WebhookEndpointRow>('webhook_endpoints').where('campaign_id', campaignId);
  const [counted, rows] = await Promise.all([
    base.clone().count<{ n: number | string }[]>({ n: '*' }),
    base
      .clone()
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(page.limit)
      .offset((page.page - 1) * page.limit)
      .select('*'),
  ]);
  return { rows, total: Number(counted[0]?.n ?? 0) };
}

export async function updateEndpoint(
  db: Db | Trx,
  campaignId: number,
  id: number,
  changes: Partial<Omit<WebhookEndpointRow, 'id' | 'campaign_id' | 'created_at'>>,
): Promise<number> {
  return db('webhook_endpoints').where({ campaign_id: campaignId, id }).update(changes);
}

/** Deliveries and attempts cascade with it: a deleted endpoint gets nothing more. */
export async function deleteEndpoint(db: Db | Trx, campaignId: number, id: number): Promise<number> {
  return db('webhook_endpoints').where({ campaign_id: campaignId, id }).delete();
}

/**
 * One UPDATE moves the current secret to `previous_secret_enc` (both engines read the old
 * value on the right-hand side) and stores the new one, so two rotations racing cannot lose one.
 */
export async function rotateEndpointSecret(
  db: Db | Trx,
  campaignId: number,
  id: number,
  sealed: string,
  previousExpiresAt: Date,
  now: Date,
): Promise<number> {
  return db('webhook_endpoints')
    .where({ campaign_id: campaignId, id })
    .update({
      previous_secret_enc: db.raw('??', ['secret_enc']),
      previous_secret_expires_at: previousExpiresAt,
      secret_enc: sealed,
      updated_at: now,
    });
}

/** An enabled endpoint and what it subscribes to: what the outbox routes by. */
export interface Subscriber {
  id: number;
  campaignId: number;
  events: readonly WebhookEventType[];
}

/** Enabled endpoints of these campaigns, for the outbox's fan-out. */
export async function enabledEndpointsOf(trx: Trx, campaignIds: readonly number[]): Promise<Subscriber[]> {
  const rows = await inChunks(campaignIds, (part) =>
    trx<WebhookEndpointRow>('webhook_endpoints')
      .whereIn('campaign_id', part)
      .andWhere('status', 'enabled')
      .select('id', 'campaign_id', 'events'),
  );
  return rows.map((row) => ({ id: Number(row.id), campaignId: Number(row.campaign_id), events: eventsOf(row) }));
}
