import { affiliateRoutes } from './affiliates.js';
import { analyticsRoutes } from './analytics.js';
import { auditRoutes } from './audit.js';
import { campaignRoutes } from './campaign.js';
import { conversionRoutes, refundRoutes } from './conversions.js';
import { eventRoutes } from './events.js';
import { couponRoutes, integrationRoutes } from './integrations.js';
import { groupRoutes } from './groups.js';
import { reportRoutes } from './reports.js';
import { payoutRoutes } from './payouts.js';
import { payoutRailRoutes } from './payoutRails.js';
import type { RouteSpec } from './route.js';
import { sdkRoutes } from './sdk.js';
import { systemRoutes } from './system.js';
import { webhookRoutes } from './webhooks.js';

/**
 * Every route of the daemon, grouped by resource. A new route is one entry here (in its
 * resource's file), one handler in `server/routes/`, one service function.
 */
export const contract = {
  affiliates: affiliateRoutes,
  groups: groupRoutes,
  events: eventRoutes,
  campaign: campaignRoutes,
  reports: reportRoutes,
  analytics: analyticsRoutes,
  sdk: sdkRoutes,
  conversions: conversionRoutes,
  refunds: refundRoutes,
  payouts: payoutRoutes,
  payoutRails: payoutRailRoutes,
  system: systemRoutes,
  webhooks: webhookRoutes,
  integrations: integrationRoutes,
  coupons: couponRoutes,
  audit: auditRoutes,
};

export type Contract = typeof contract;

/** Every route, in declaration order. */
export function allRoutes(): RouteSpec[] {
  return Object.values(contract).flatMap((group) => Object.values(group) as RouteSpec[]);
}

export * from './route.js';
