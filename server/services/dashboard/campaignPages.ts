import type { AuditLog, ListAuditLogQuery } from '../../../shared/schemas/audit.js';
import type { Affiliate } from '../../../shared/schemas/affiliate.js';
import type { Campaign } from '../../../shared/schemas/campaign.js';
import type { ConversionList } from '../../../shared/schemas/conversion.js';
import { createGroupSchema, type Group, type GroupList, updateGroupSchema } from '../../../shared/schemas/group.js';
import type { CouponList, IntegrationEventList, IntegrationList } from '../../../shared/schemas/integration.js';
import type { PayoutList } from '../../../shared/schemas/payout.js';
import type { PayoutRailList } from '../../../shared/schemas/payoutRail.js';
import { parseWith } from '../../../shared/schemas/validation.js';
import {
  createWebhookSchema,
  type DeliveryList,
  type Webhook,
  type WebhookList,
  type WebhookWithSecret,
} from '../../../shared/schemas/webhook.js';
import { ValidationError } from '../../errors.js';
import type { AffiliateService } from '../affiliates.js';
import type { AuditService } from '../audit.js';
import type { IntegrationService } from '../billing/integrations.js';
import type { CampaignService } from '../campaigns.js';
import type { ConversionService } from '../conversions.js';
import type { CouponService } from '../coupons.js';
import type { GroupService } from '../groups.js';
import type { PayoutService } from '../payouts.js';
import type { PayoutRailService } from '../payouts/rails.js';
import type { WebhookService } from '../webhooks/endpoints.js';
import { requireRole } from './roles.js';
import type { DashboardActor, DashboardCampaign } from './types.js';

/** How many of an affiliate's latest conversions and payouts its page shows. */
const LATEST = 10;

/** One affiliate's page: the affiliate (its figures, payout details, flags), coupons, latest activity. */
export interface AffiliateDetail {
  affiliate: Affiliate;
  coupons: CouponList['coupons'];
  conversions: ConversionList;
  payouts: PayoutList;
}

/** Billing integrations, their received events, and the payout rails: never a secret (the services answer none). */
export interface IntegrationsView {
  integrations: IntegrationList;
  events: IntegrationEventList;
  rails: PayoutRailList;
}

/**
 * The dashboard's audit log, affiliate, webhooks, integrations, rules and groups pages
 * (docs/dashboard.md#pages): the role check, then the service the API calls with what a form
 * sent, parsed by the API's own schema, so a page refuses what the API refuses, in its words.
 */
export interface DashboardCampaignPages {
  auditLog(actor: DashboardActor, query: ListAuditLogQuery): Promise<AuditLog>;
  affiliate(actor: DashboardActor, id: number): Promise<AffiliateDetail>;
  webhooks(actor: DashboardActor, page: number, limit: number): Promise<WebhookList>;
  webhook(actor: DashboardActor, id: number, page: number, limit: number): Promise<{ webhook: Webhook } & DeliveryList>;
  /** The signing secret is in this answer only, as the API's `POST /v1/webhooks`. */
  createWebhook(actor: DashboardActor, input: unknown): Promise<WebhookWithSecret>;
  removeWebhook(actor: DashboardActor, id: number): Promise<void>;
  integrations(
    actor: DashboardActor,
    campaign: DashboardCampaign,
    page: number,
    limit: number,
  ): Promise<IntegrationsView>;
  rules(actor: DashboardActor): Promise<Campaign>;
  groups(actor: DashboardActor, page: number, limit: number): Promise<GroupList>;
  createGroup(actor: DashboardActor, input: unknown): Promise<Group>;
  updateGroup(actor: DashboardActor, id: number, input: unknown): Promise<Group>;
  removeGroup(actor: DashboardActor, id: number): Promise<void>;
}

export interface CampaignPagesDeps {
  audit: AuditService;
  affiliates: AffiliateService;
  conversions: ConversionService;
  payouts: PayoutService;
  coupons: CouponService;
  webhooks: WebhookService;
  integrations: IntegrationService;
  payoutRails: PayoutRailService;
  campaigns: CampaignService;
  groups: GroupService;
}

/** The API's schema, or its 400 with the API's messages. */
export function parsed<T>(result: { ok: true; data: T } | { ok: false; messages: string[] }): T {
  if (!result.ok) throw new ValidationError(result.messages);
  return result.data;
}

export function campaignPages(deps: CampaignPagesDeps): DashboardCampaignPages {
  return {
    async auditLog(actor, query) {
      requireRole(actor, 'read');
      return deps.audit.list(actor.campaignId, query);
    },
    async affiliate(actor, id) {
      requireRole(actor, 'read');
      const affiliate = await deps.affiliates.get(actor.campaignId, id);
      const [coupons, conversions, payouts] = await Promise.all([
        deps.coupons.list(actor.campaignId, id),
        deps.conversions.list(actor.campaignId, { affiliateId: id, page: 1, limit: LATEST }),
        deps.payouts.list(actor.campaignId, { affiliateId: id, page: 1, limit: LATEST }),
      ]);
      return { affiliate, coupons: coupons.coupons, conversions, payouts };
    },
    async webhooks(actor, page, limit) {
      requireRole(actor, 'read');
      return deps.webhooks.list(actor.campaignId, { page, limit });
    },
    async webhook(actor, id, page, limit) {
      requireRole(actor, 'read');
      const webhook = await deps.webhooks.get(actor.campaignId, id);
      return { webhook, ...(await deps.webhooks.deliveries(actor.campaignId, id, { page, limit })) };
    },
    async createWebhook(actor, input) {
      requireRole(actor, 'change');
      return deps.webhooks.create(actor.campaignId, parsed(parseWith(createWebhookSchema, input)));
    },
    async removeWebhook(actor, id) {
      requireRole(actor, 'change');
      await deps.webhooks.remove(actor.campaignId, id);
    },
    async integrations(actor, campaign, page, limit) {
      requireRole(actor, 'read');
      const owner = { campaignId: actor.campaignId, publicId: campaign.publicId };
      const [integrations, events, rails] = await Promise.all([
        deps.integrations.list(owner),
        deps.integrations.events(actor.campaignId, { page, limit }),
        deps.payoutRails.list(owner),
      ]);
      return { integrations, events, rails };
    },
    async rules(actor) {
      requireRole(actor, 'read');
      return deps.campaigns.get(actor.campaignId);
    },
    async groups(actor, page, limit) {
      requireRole(actor, 'read');
      return deps.groups.list(actor.campaignId, { page, limit });
    },
    async createGroup(actor, input) {
      requireRole(actor, 'change');
      return deps.groups.create(actor.campaignId, parsed(parseWith(createGroupSchema, input)));
    },
    async updateGroup(actor, id, input) {
      requireRole(actor, 'change');
      return deps.groups.update(actor.campaignId, id, parsed(parseWith(updateGroupSchema, input)));
    },
    async removeGroup(actor, id) {
      requireRole(actor, 'change');
      await deps.groups.remove(actor.campaignId, id);
    },
  };
}
