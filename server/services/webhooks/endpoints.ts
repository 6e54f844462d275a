import { MESSAGES } from '../../../shared/errors.js';
import type {
  CreateWebhookInput,
  Delivery,
  DeliveryList,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  UpdateWebhookInput,
  Webhook,
  WebhookList,
  WebhookWithSecret,
} from '../../../shared/schemas/webhook.js';
import { generateSecret } from '../../../shared/webhooks/signature.js';
import { inTransaction } from '../../db/knex.js';
import { fieldsOf, recordAudit } from '../audit.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import { findDelivery, listDeliveries, retryDelivery } from '../../repositories/webhookDeliveryHistory.js';
import {
  deleteEndpoint,
  type EndpointChanges,
  findEndpoint,
  listEndpoints,
  updateEndpoint,
} from '../../repositories/webhookEndpoints.js';
import type { ServiceDeps } from '../deps.js';
import { pageOf } from '../pages.js';
import { privateAddressOf } from './address.js';
import type { WebhookOutbox } from './outbox.js';
import { registerEndpoint, rotateEndpointSecret } from './registration.js';
import type { SecretBox } from './secretBox.js';

export interface WebhookService {
  create(campaignId: number, input: CreateWebhookInput): Promise<WebhookWithSecret>;
  list(campaignId: number, query: ListWebhooksQuery): Promise<WebhookList>;
  get(campaignId: number, id: number): Promise<Webhook>;
  update(campaignId: number, id: number, input: UpdateWebhookInput): Promise<Webhook>;
  remove(campaignId: number, id: number): Promise<void>;
  rotateSecret(campaignId: number, id: number): Promise<WebhookWithSecret>;
  deliveries(campaignId: number, id: number, query: ListDeliveriesQuery): Promise<DeliveryList>;
  retry(campaignId: number, id: number, deliveryId: number): Promise<Delivery>;
  sendTest(campaignId: number, id: number): Promise<Delivery>;
}

export interface WebhookServiceDeps extends ServiceDeps {
  box: SecretBox;
  /** Tells this daemon's worker that a delivery is due now. */
  wake?: () => void;
}

export function webhookService(
  { db, config, now: clock, box, wake }: WebhookServiceDeps,
  outbox: WebhookOutbox,
): WebhookService {
  const { allowPrivateNetworks, maxEndpoints, maxRetiredSecrets } = config.webhooks;
  /** Registration check; the worker checks the resolved address again at every attempt. */
  async function checkDestination(url: string): Promise<void> {
    if (allowPrivateNetworks) return;
    const address = await privateAddressOf(new URL(url));
    if (address !== undefined) throw new ValidationError([MESSAGES.webhookPrivateUrl(address)]);
  }

  async function endpoint(campaignId: number, id: number): Promise<Webhook> {
    const webhook = await findEndpoint(db, campaignId, id);
    if (!webhook) throw new NotFoundError(MESSAGES.webhookNotFound);
    return webhook;
  }

  /** A disabled endpoint gets nothing, a test or a retry included. */
  async function enabledEndpoint(campaignId: number, id: number): Promise<Webhook> {
    const webhook = await endpoint(campaignId, id);
    if (webhook.status !== 'enabled') throw new ConflictError(MESSAGES.webhookDisabled);
    return webhook;
  }

  async function create(campaignId: number, input: CreateWebhookInput): Promise<WebhookWithSecret> {
    await checkDestination(input.url);
    const secret = generateSecret();
    const webhook = await registerEndpoint(db, {
      campaignId,
      url: input.url,
      events: input.events,
      description: input.description ?? null,
      secretEnc: await box.seal(secret),
      createdAt: clock(),
      maxEndpoints,
      fields: fieldsOf(input),
    });
    return { ...webhook, secret };
  }

  async function list(campaignId: number, query: ListWebhooksQuery): Promise<WebhookList> {
    const { webhooks, total } = await listEndpoints(db, campaignId, query);
    return { webhooks, ...pageOf(query, total) };
  }

  async function update(campaignId: number, id: number, input: UpdateWebhookInput): Promise<Webhook> {
    if (input.url !== undefined) await checkDestination(input.url);
    const changes: EndpointChanges = { ...input, updatedAt: clock() };
    // Enabled again by the merchant: a fresh start, the old failing streak forgotten.
    if (input.status === 'enabled') {
      changes.disabledReason = null;
      changes.failingSince = null;
    }
    await inTransaction(db, async (trx) => {
      if ((await updateEndpoint(trx, campaignId, id, changes)) === 0) throw new NotFoundError(MESSAGES.webhookNotFound);
      await recordAudit(trx, changes.updatedAt, [
        { campaignId, action: 'webhook.update', targetId: id, fields: fieldsOf(input) },
      ]);
    });
    return endpoint(campaignId, id);
  }

  async function remove(campaignId: number, id: number): Promise<void> {
    await inTransaction(db, async (trx) => {
      if ((await deleteEndpoint(trx, campaignId, id)) === 0) throw new NotFoundError(MESSAGES.webhookNotFound);
      await recordAudit(trx, clock(), [{ campaignId, action: 'webhook.delete', targetId: id }]);
    });
  }

  async function rotateSecret(campaignId: number, id: number): Promise<WebhookWithSecret> {
    const secret = generateSecret();
    await rotateEndpointSecret(db, {
      campaignId,
      id,
      nextEnc: await box.seal(secret),
      now: clock(),
      maxRetiredSecrets,
    });
    return { ...(await endpoint(campaignId, id)), secret };
  }

  async function deliveries(campaignId: number, id: number, query: ListDeliveriesQuery): Promise<DeliveryList> {
    await endpoint(campaignId, id);
    const { deliveries: page, total } = await listDeliveries(db, id, query);
    return { deliveries: page, ...pageOf(query, total) };
  }

  async function delivery(endpointId: number, which: { id: number } | { messageId: string }): Promise<Delivery> {
    const found = await findDelivery(db, endpointId, which);
    if (!found) throw new NotFoundError(MESSAGES.deliveryNotFound);
    return found;
  }

  async function retry(campaignId: number, id: number, deliveryId: number): Promise<Delivery> {
    await enabledEndpoint(campaignId, id);
    await inTransaction(db, async (trx) => {
      const at = clock();
      if ((await retryDelivery(trx, id, deliveryId, at)) === 0) throw new NotFoundError(MESSAGES.deliveryNotFound);
      await recordAudit(trx, at, [
        { campaignId, action: 'webhook.retry_delivery', targetId: id, figures: { deliveryId } },
      ]);
    });
    wake?.();
    return delivery(id, { id: deliveryId });
  }

  async function sendTest(campaignId: number, id: number): Promise<Delivery> {
    const webhook = await enabledEndpoint(campaignId, id);
    const messageId = await inTransaction(db, async (trx) => {
      await recordAudit(trx, clock(), [{ campaignId, action: 'webhook.test', targetId: webhook.id }]);
      return outbox.recordTest(trx, campaignId, webhook.id);
    });
    wake?.();
    return delivery(id, { messageId });
  }

  return {
    create,
    list,
    get: endpoint,
    update,
    remove,
    rotateSecret,
    deliveries,
    retry,
    sendTest,
  };
}
