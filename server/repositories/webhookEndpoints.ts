import type { Webhook, WebhookEventType } from '../../shared/schemas/webhook.js';
import type { Db, Trx } from '../db/knex.js';
import { countRows, newestFirstPage } from '../db/pages.js';
import { toIso } from '../db/rows.js';
import type { WebhookEndpointRow } from '../db/webhookRows.js';
import { conflictsAs } from './uniqueConflict.js';

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

/** Which endpoint hears which event type: the outbox's question and the fan-out's list. */
async function subscribe(trx: Trx, campaignId: number, endpointId: number, events: readonly WebhookEventType[]) {
  await trx('webhook_subscriptions').insert(
    events.map((eventType) => ({ campaign_id: campaignId, event_type: eventType, endpoint_id: endpointId })),
  );
}

/** The slots the campaign's endpoints hold (docs/webhooks.md: at most WEBHOOK_MAX_ENDPOINTS). */
export async function takenSlots(trx: Trx, campaignId: number): Promise<{ endpoints: number; slots: Set<number> }> {
  const rows = await trx<WebhookEndpointRow>('webhook_endpoints').where('campaign_id', campaignId).select('slot');
  return {
    endpoints: rows.length,
    slots: new Set(rows.flatMap((row) => (row.slot === null ? [] : [Number(row.slot)]))),
  };
}

/**
 * A new endpoint, enabled, signing with `secretEnc` (the sealed secret), in `slot`. The slot is
 * unique in the campaign: a registration racing another for it is a UniqueConflict
 * (`webhookSlot`), so the cap holds however many registrations arrive at once.
 */
export async function insertEndpoint(
  trx: Trx,
  endpoint: {
    campaignId: number;
    url: string;
    events: readonly WebhookEventType[];
    description: string | null;
    secretEnc: string;
    slot: number;
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
    failing_since: null,
    slot: endpoint.slot,
    created_at: endpoint.createdAt,
    updated_at: endpoint.createdAt,
  };
  const [id] = await conflictsAs({ slot: 'webhookSlot' }, () => trx('webhook_endpoints').insert(row));
  await subscribe(trx, endpoint.campaignId, Number(id), endpoint.events);
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

/** The endpoint's row and, when its events change, its subscriptions, together. */
export async function updateEndpoint(
  trx: Trx,
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
  const updated = await trx('webhook_endpoints').where({ campaign_id: campaignId, id }).update(columns);
  if (updated > 0 && changes.events !== undefined) {
    // Only here, not on insert: on MySQL a delete of nothing locks a gap that concurrent inserts then deadlock on.
    await trx('webhook_subscriptions').where('endpoint_id', id).delete();
    await subscribe(trx, campaignId, id, changes.events);
  }
  return updated;
}

/** Deliveries, attempts, subscriptions and retired secrets cascade with it: a deleted endpoint gets nothing more. */
export async function deleteEndpoint(db: Db | Trx, campaignId: number, id: number): Promise<number> {
  return db('webhook_endpoints').where({ campaign_id: campaignId, id }).delete();
}
