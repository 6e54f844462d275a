import { type Affiliate, updateAffiliateSchema } from '../../../shared/schemas/affiliate.js';
import type { GroupList } from '../../../shared/schemas/group.js';
import { createCouponSchema } from '../../../shared/schemas/integration.js';
import type { Payout } from '../../../shared/schemas/payout.js';
import { parseWith } from '../../../shared/schemas/validation.js';
import type { PayoutRailList } from '../../../shared/schemas/payoutRail.js';
import { ValidationError } from '../../errors.js';
import type { AffiliateService } from '../affiliates.js';
import type { CouponService } from '../coupons.js';
import type { GroupService } from '../groups.js';
import type { PayoutRailService } from '../payouts/rails.js';
import type { PayoutSender } from '../payouts/send.js';
import { requireRole } from './roles.js';
import type { DashboardActor, DashboardCampaign } from './types.js';

/** The groups an affiliate's form offers: the API's largest page. */
const GROUP_CHOICES = 100;

/**
 * What the one-affiliate and payouts pages change (docs/dashboard.md#pages): the role check,
 * then the service of `PATCH /v1/affiliates/{id}`, the coupon routes and
 * `POST /v1/payouts/{id}/send`, with the form parsed by the API's own schema and context checks,
 * so a page refuses what the API refuses, in its words.
 */
export interface DashboardAffiliateChanges {
  /** The fields the form sent that differ from the affiliate's: nothing sent, nothing changed. */
  updateAffiliate(actor: DashboardActor, id: number, input: Record<string, unknown>): Promise<Affiliate>;
  /** The groups an affiliate may be put in, for the form's choice. */
  groupChoices(actor: DashboardActor): Promise<GroupList['groups']>;
  addCoupon(actor: DashboardActor, affiliateId: number, input: unknown): Promise<void>;
  removeCoupon(actor: DashboardActor, affiliateId: number, code: string): Promise<void>;
  /** The rails the campaign has connected: a payout is sent on one of them. */
  connectedRails(actor: DashboardActor, campaign: DashboardCampaign): Promise<PayoutRailList['rails']>;
  sendPayout(actor: DashboardActor, id: number): Promise<Payout>;
}

export interface AffiliateChangesDeps {
  affiliates: AffiliateService;
  coupons: CouponService;
  groups: GroupService;
  payoutRails: PayoutRailService;
  payoutSender: PayoutSender;
}

/** Only what differs from the affiliate as it is: the audit log and `affiliate.updated` name real changes. */
function changedFields(current: Affiliate, input: Record<string, unknown>): Record<string, unknown> {
  const now: Record<string, unknown> = { ...current, name: current.name ?? null, phone: current.phone ?? null };
  return Object.fromEntries(
    Object.entries(input).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(now[key] ?? null)),
  );
}

export function affiliateChanges(deps: AffiliateChangesDeps): DashboardAffiliateChanges {
  return {
    async updateAffiliate(actor, id, input) {
      requireRole(actor, 'change');
      const current = await deps.affiliates.get(actor.campaignId, id);
      const body = changedFields(current, input);
      if (Object.keys(body).length === 0) return current;
      const parsed = parseWith(updateAffiliateSchema, body);
      // spec §10.6: the schema's messages and the context checks' (a group or parent of another campaign) in one 400.
      const messages = [
        ...(parsed.ok ? [] : parsed.messages),
        ...(await deps.affiliates.referenceIssues(actor.campaignId, body)),
      ];
      if (!parsed.ok || messages.length > 0) throw new ValidationError(messages);
      return deps.affiliates.update(actor.campaignId, id, parsed.data);
    },
    async groupChoices(actor) {
      requireRole(actor, 'read');
      return (await deps.groups.list(actor.campaignId, { page: 1, limit: GROUP_CHOICES })).groups;
    },
    async addCoupon(actor, affiliateId, input) {
      requireRole(actor, 'change');
      const parsed = parseWith(createCouponSchema, input);
      if (!parsed.ok) throw new ValidationError(parsed.messages);
      await deps.coupons.create(actor.campaignId, affiliateId, parsed.data);
    },
    async removeCoupon(actor, affiliateId, code) {
      requireRole(actor, 'change');
      await deps.coupons.remove(actor.campaignId, affiliateId, code);
    },
    async connectedRails(actor, campaign) {
      requireRole(actor, 'read');
      return (await deps.payoutRails.list({ campaignId: actor.campaignId, publicId: campaign.publicId })).rails;
    },
    async sendPayout(actor, id) {
      requireRole(actor, 'change');
      return deps.payoutSender.send(actor.campaignId, id);
    },
  };
}
