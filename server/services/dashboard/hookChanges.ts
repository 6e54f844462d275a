import { type Integration, providerParams, putIntegrationSchema } from '../../../shared/schemas/integration.js';
import {
  type PayoutRail,
  putPayPalRailSchema,
  putPixRailSchema,
  putStripeRailSchema,
  railParams,
} from '../../../shared/schemas/payoutRail.js';
import { parseWith } from '../../../shared/schemas/validation.js';
import {
  type Delivery,
  updateWebhookSchema,
  type Webhook,
  type WebhookWithSecret,
} from '../../../shared/schemas/webhook.js';
import type { IntegrationService } from '../billing/integrations.js';
import type { PayoutRailService } from '../payouts/rails.js';
import type { WebhookService } from '../webhooks/endpoints.js';
import { parsed } from './campaignPages.js';
import { requireRole } from './roles.js';
import type { DashboardActor, DashboardCampaign } from './types.js';

/**
 * The changes of the webhooks and integrations pages (docs/dashboard.md#pages) the API and the
 * CLI make too: an endpoint edited, its secret rotated, a delivery retried or a test sent; a
 * billing provider's or a payout rail's credentials set or removed. The role check, then the
 * API's own schema and service, so a page refuses what the API refuses, in its words.
 */
export interface DashboardHookChanges {
  /** `PATCH /v1/webhooks/{id}`. */
  updateWebhook(actor: DashboardActor, id: number, input: unknown): Promise<Webhook>;
  /** `POST /v1/webhooks/{id}/rotate-secret`: the new secret is in this answer only. */
  rotateWebhookSecret(actor: DashboardActor, id: number): Promise<WebhookWithSecret>;
  /** `POST /v1/webhooks/{id}/deliveries/{deliveryId}/retry`. */
  retryDelivery(actor: DashboardActor, id: number, deliveryId: number): Promise<Delivery>;
  /** `POST /v1/webhooks/{id}/test`. */
  testWebhook(actor: DashboardActor, id: number): Promise<Delivery>;
  /** `PUT /v1/integrations/{provider}`: connects it, or rotates its signing secret. */
  putIntegration(
    actor: DashboardActor,
    campaign: DashboardCampaign,
    provider: unknown,
    input: unknown,
  ): Promise<Integration>;
  /** `DELETE /v1/integrations/{provider}`. */
  removeIntegration(actor: DashboardActor, provider: unknown): Promise<void>;
  /** `PUT /v1/payout-rails/{rail}`: connects it, or replaces its credentials. */
  putPayoutRail(actor: DashboardActor, campaign: DashboardCampaign, rail: unknown, input: unknown): Promise<PayoutRail>;
  /** `DELETE /v1/payout-rails/{rail}`. */
  removePayoutRail(actor: DashboardActor, rail: unknown): Promise<void>;
}

export interface HookChangesDeps {
  webhooks: WebhookService;
  integrations: IntegrationService;
  payoutRails: PayoutRailService;
}

/** Each rail's body as its `PUT` route takes it (shared/contract/payoutRails.ts). */
const RAIL_BODIES = { pix: putPixRailSchema, paypal: putPayPalRailSchema, stripe: putStripeRailSchema } as const;

export function hookChanges(deps: HookChangesDeps): DashboardHookChanges {
  const owner = (actor: DashboardActor, campaign: DashboardCampaign) => ({
    campaignId: actor.campaignId,
    publicId: campaign.publicId,
  });
  return {
    async updateWebhook(actor, id, input) {
      requireRole(actor, 'change');
      return deps.webhooks.update(actor.campaignId, id, parsed(parseWith(updateWebhookSchema, input)));
    },
    async rotateWebhookSecret(actor, id) {
      requireRole(actor, 'change');
      return deps.webhooks.rotateSecret(actor.campaignId, id);
    },
    async retryDelivery(actor, id, deliveryId) {
      requireRole(actor, 'change');
      return deps.webhooks.retry(actor.campaignId, id, deliveryId);
    },
    async testWebhook(actor, id) {
      requireRole(actor, 'change');
      return deps.webhooks.sendTest(actor.campaignId, id);
    },
    async putIntegration(actor, campaign, provider, input) {
      requireRole(actor, 'change');
      const params = parsed(parseWith(providerParams, { provider }));
      const body = parsed(parseWith(putIntegrationSchema, input));
      return deps.integrations.put(owner(actor, campaign), params.provider, body);
    },
    async removeIntegration(actor, provider) {
      requireRole(actor, 'change');
      const params = parsed(parseWith(providerParams, { provider }));
      await deps.integrations.remove(actor.campaignId, params.provider);
    },
    async putPayoutRail(actor, campaign, rail, input) {
      requireRole(actor, 'change');
      const params = parsed(parseWith(railParams, { rail }));
      const body = parsed(parseWith(RAIL_BODIES[params.rail], input));
      return deps.payoutRails.put(owner(actor, campaign), params.rail, body);
    },
    async removePayoutRail(actor, rail) {
      requireRole(actor, 'change');
      const params = parsed(parseWith(railParams, { rail }));
      await deps.payoutRails.remove(actor.campaignId, params.rail);
    },
  };
}
