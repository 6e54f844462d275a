import type { Webhook, WebhookEventType } from '../../shared/schemas/webhook.js';
import { inChunks } from '../db/bulk.js';
import type { Db, Trx } from '../db/knex.js';
import { countRows, newestFirstPage } from '../db/pages.js';
import { toIso } from '../db/rows.js';
import type { WebhookEndpointRow } from '../db/webhookRows.js';

function eventsOf(row: Pick<WebhookEndpointRow, 'events'>): WebhookEventType[] {
  return JSON.parse(row.events) as WebhookEventType[];
}

/** The endpoint as the API answers it: never a secret (docs/webhooks.md: shown on creation only). */
function toWebhook(row: WebhookEndpointRow): Webhook {
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

/** A new endpoint, enabled, signing with `secretEnc` (the sealed secret). */
export async function insertEndpoint(
  db: Db | Trx,
  endpoint: {
    campaignId: number;
    url: string;
    events: readonly WebhookEventType[];
    description: string | null;
    secretEnc: string;
    createdAt: Date;
  },
): Promise<Webhook> {
  const row: Omit<WebhookEndpointRow, 'id'> = {
    campaign_id: endpoint.campaignId,
    url: endpoint.url,
    events: JSON.stringify(endpoint.events),
    description: endpoint.description,
    status: 'enabled',
    disabled_reason: null,
    secret_enc: endpoint.secretEnc,
    previous_secret_enc: null,
    previous_secret_expires_at: null,
    failing_since: null,
    created_at: endpoint.createdAt,
    updated_at: endpoint.createdAt,
  };
  const [id] = await db('webhook_endpoints').insert(row);
  return toWebhook({ id: Number(id), ...row });
}

export async function findEndpoint(db: Db | Trx, campaignId: number, id: number): Promise<Webhook | undefined> {
  const row = await db<WebhookEndpointRow>('webhook_endpoints').where({ campaign_id: campaignId, id }).first();
  return row && toWebhook(row);
}

export async function listEndpoints(
  db: Db,
  campaignId: number,
  page: { page: number; limit: number },
): Promise<{ webhooks: Webhook[]; total: number }> {
  const base = db<WebhookEndpointRow>('webhook_endpoints').where('campaign_id', campaignId);
  const [total, rows] = await Promise.all([
    countRows(base.clone()),
    newestFirstPage(base.clone(), '', page).select<WebhookEndpointRow[]>('*'),
  ]);
  return { webhooks: rows.map(toWebhook), total };
}

/** What an update may change; each absent field stays as it is. */
export interface EndpointChanges {
  url?: string;
  events?: readonly WebhookEventType[];
  description?: string | null;
  status?: WebhookEndpointRow['status'];
  disabledReason?: string | null;
  /** When deliveries started failing without a success since; null ends the streak. */
  failingSince?: Date | null;
  updatedAt: Date;
}

export async function updateEndpoint(
  db: Db | Trx,
  campaignId: number,
  id: number,
  changes: EndpointChanges,
): Promise<number> {
  const columns: Partial<WebhookEndpointRow> = { updated_at: changes.updatedAt };
  if (changes.url !== undefined) columns.url = changes.url;
  if (changes.events !== undefined) columns.events = JSON.stringify(changes.events);
  if (changes.description !== undefined) columns.description = changes.description;
  if (changes.status !== undefined) columns.status = changes.status;
  if (changes.disabledReason !== undefined) columns.disabled_reason = changes.disabledReason;
  if (changes.failingSince !== undefined) columns.failing_since = changes.failingSince;
  return db('webhook_endpoints').where({ campaign_id: campaignId, id }).update(columns);
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
