import type { Contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';
import { affiliateHandlers } from './affiliates.js';
import { analyticsHandlers } from './analytics.js';
import { auditHandlers } from './audit.js';
import { campaignHandlers } from './campaign.js';
import { conversionHandlers, refundHandlers } from './conversions.js';
import { eventHandlers } from './events.js';
import { couponHandlers, integrationHandlers } from './integrations.js';
import { groupHandlers } from './groups.js';
import { reportHandlers } from './reports.js';
import { sdkHandlers } from './sdk.js';
import { payoutHandlers, payoutRailHandlers } from './payouts.js';
import { systemHandlers } from './system.js';
import { webhookHandlers } from './webhooks.js';

/** One handler per contract route, grouped as the contract is; a missing one does not compile. */
export const handlers: { [G in keyof Contract]: Handlers<Contract[G]> } = {
  affiliates: affiliateHandlers,
  groups: groupHandlers,
  events: eventHandlers,
  campaign: campaignHandlers,
  reports: reportHandlers,
  analytics: analyticsHandlers,
  sdk: sdkHandlers,
  conversions: conversionHandlers,
  refunds: refundHandlers,
  payouts: payoutHandlers,
  payoutRails: payoutRailHandlers,
  system: systemHandlers,
  webhooks: webhookHandlers,
  integrations: integrationHandlers,
  coupons: couponHandlers,
  audit: auditHandlers,
};
