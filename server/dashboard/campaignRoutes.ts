import type { Router } from '@koa/router';
import type { Context } from 'koa';
import type { FormFields } from '../services/portal/index.js';
import {
  postCreateGroup,
  postRemoveGroup,
  postUpdateGroup,
  showAudit,
  showGroups,
  showRules,
} from './campaignPages.js';
import { postAddCoupon, postRemoveCoupon, postUpdateAffiliate, showAffiliate } from './affiliatePage.js';
import {
  postCreateWebhook,
  postRemoveWebhook,
  postRetryDelivery,
  postRotateWebhookSecret,
  postTestWebhook,
  postUpdateWebhook,
  showWebhook,
  showWebhooks,
} from './hookPages.js';
import {
  postPutIntegration,
  postPutPayoutRail,
  postRemoveIntegration,
  postRemovePayoutRail,
  showIntegrations,
} from './integrationPages.js';
import type { DashPage } from './page.js';

type Actor = NonNullable<DashPage['actor']>;
type Show = (handler: (page: DashPage, actor: Actor) => Promise<void>) => (ctx: Context) => unknown;
type Post = (handler: (page: DashPage, actor: Actor, fields: FormFields) => Promise<void>) => (ctx: Context) => unknown;

/**
 * The audit log, one affiliate, webhooks, integrations, rules and groups (docs/dashboard.md#pages),
 * behind the same whole-session and form checks as every page (`show`, `post` of index.ts).
 */
export function campaignRoutes(router: Router, show: Show, post: Post): void {
  router.get('/affiliates/:id', show(showAffiliate));
  router.post('/affiliates/update', post(postUpdateAffiliate));
  router.post('/affiliates/coupons', post(postAddCoupon));
  router.post('/affiliates/coupons/remove', post(postRemoveCoupon));
  router.get('/audit', show(showAudit));
  router.get('/webhooks', show(showWebhooks));
  router.post('/webhooks', post(postCreateWebhook));
  router.post('/webhooks/remove', post(postRemoveWebhook));
  router.post('/webhooks/update', post(postUpdateWebhook));
  router.post('/webhooks/rotate-secret', post(postRotateWebhookSecret));
  router.post('/webhooks/test', post(postTestWebhook));
  router.post('/webhooks/retry', post(postRetryDelivery));
  router.get('/webhooks/:id', show(showWebhook));
  router.get('/integrations', show(showIntegrations));
  router.post('/integrations/billing', post(postPutIntegration));
  router.post('/integrations/billing/remove', post(postRemoveIntegration));
  router.post('/integrations/rails', post(postPutPayoutRail));
  router.post('/integrations/rails/remove', post(postRemovePayoutRail));
  router.get('/rules', show(showRules));
  router.get('/groups', show(showGroups));
  router.post('/groups', post(postCreateGroup));
  router.post('/groups/update', post(postUpdateGroup));
  router.post('/groups/remove', post(postRemoveGroup));
}
