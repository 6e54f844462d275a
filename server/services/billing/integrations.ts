import { MESSAGES } from '../../../shared/errors.js';
import type {
  BillingProviderName,
  Integration,
  IntegrationEventList,
  IntegrationList,
  ListIntegrationEventsQuery,
  PutIntegrationInput,
} from '../../../shared/schemas/integration.js';
import { NotFoundError } from '../../errors.js';
import { billingEventStats, listBillingEvents } from '../../repositories/billingEvents.js';
import {
  deleteIntegration,
  findIntegration,
  type IntegrationRecord,
  listIntegrations,
  saveIntegrationSecret,
} from '../../repositories/billingIntegrations.js';
import { inTransaction } from '../../db/knex.js';
import { recordAudit } from '../audit.js';
import type { ServiceDeps } from '../deps.js';
import { pageOf } from '../pages.js';
import type { SecretBox } from '../webhooks/secretBox.js';

/** docs/integrations.md: after a rotation the previous secret keeps verifying for 24 hours. */
const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** The event types to enable in each provider's dashboard: every other type is answered `ignored`. */
export const PROVIDER_EVENT_TYPES: Readonly<Record<BillingProviderName, readonly string[]>> = {
  stripe: ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'invoice.paid', 'charge.refunded'],
  paddle: ['transaction.completed', 'adjustment.created', 'adjustment.updated'],
};

export const receivePath = (provider: BillingProviderName, publicId: string) =>
  `/v1/integrations/${provider}/${encodeURIComponent(publicId)}`;

export interface IntegrationService {
  list(campaign: { campaignId: number; publicId: string }): Promise<IntegrationList>;
  /** Creates the integration, or rotates its secret. */
  put(
    campaign: { campaignId: number; publicId: string },
    provider: BillingProviderName,
    input: PutIntegrationInput,
  ): Promise<Integration>;
  remove(campaignId: number, provider: BillingProviderName): Promise<void>;
  events(campaignId: number, query: ListIntegrationEventsQuery): Promise<IntegrationEventList>;
}

/** `GET|PUT|DELETE /v1/integrations…`: the secret is sealed like webhook secrets and never answered. */
export function integrationService({ db, now: clock }: ServiceDeps, box: SecretBox): IntegrationService {
  async function describe(publicId: string, records: IntegrationRecord[], campaignId: number): Promise<Integration[]> {
    const stats = await billingEventStats(db, campaignId);
    return records.map((record) => {
      const seen = stats.get(record.provider);
      return {
        provider: record.provider,
        receivePath: receivePath(record.provider, publicId),
        eventTypes: [...PROVIDER_EVENT_TYPES[record.provider]],
        createdAt: record.createdAt.toISOString(),
        updatedAt: record.updatedAt.toISOString(),
        previousSecretExpiresAt: record.previousSecretExpiresAt?.toISOString() ?? null,
        lastEventAt: seen?.lastEventAt?.toISOString() ?? null,
        outcomes: seen?.counts ?? {},
      };
    });
  }

  return {
    async list({ campaignId, publicId }) {
      return { integrations: await describe(publicId, await listIntegrations(db, campaignId), campaignId) };
    },

    async put({ campaignId, publicId }, provider, input) {
      const now = clock();
      const sealed = await box.seal(input.signingSecret);
      await inTransaction(db, async (trx) => {
        await saveIntegrationSecret(
          trx,
          campaignId,
          provider,
          sealed,
          new Date(now.getTime() + ROTATION_GRACE_MS),
          now,
        );
        await recordAudit(trx, now, [
          { campaignId, action: 'integration.configure', targetId: provider, fields: ['signingSecret'] },
        ]);
      });
      const record = await findIntegration(db, campaignId, provider);
      if (!record) throw new NotFoundError(MESSAGES.integrationNotFound);
      const [integration] = await describe(publicId, [record], campaignId);
      if (!integration) throw new NotFoundError(MESSAGES.integrationNotFound);
      return integration;
    },

    async remove(campaignId, provider) {
      await inTransaction(db, async (trx) => {
        if ((await deleteIntegration(trx, campaignId, provider)) === 0) {
          throw new NotFoundError(MESSAGES.integrationNotFound);
        }
        await recordAudit(trx, clock(), [{ campaignId, action: 'integration.remove', targetId: provider }]);
      });
    },

    async events(campaignId, query) {
      const { events, total } = await listBillingEvents(db, campaignId, query);
      return { events, ...pageOf(query, total) };
    },
  };
}
