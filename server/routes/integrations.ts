import type { contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';

/** Billing integrations (docs/integrations.md): the providers' receiving routes and their management. */
export const integrationHandlers: Handlers<typeof contract.integrations> = {
  receiveStripe: ({ params, signed }, { billing }) => billing.receive('stripe', params.campaignPublicId, signed),
  receivePaddle: ({ params, signed }, { billing }) => billing.receive('paddle', params.campaignPublicId, signed),
  list: ({ auth }, { integrations }) => integrations.list(auth),
  put: ({ auth, params, body }, { integrations }) => integrations.put(auth, params.provider, body),
  remove: async ({ auth, params }, { integrations }) => {
    await integrations.remove(auth.campaignId, params.provider);
    return { success: true, message: 'Integration deleted successfully' };
  },
  events: ({ auth, query }, { integrations }) => integrations.events(auth.campaignId, query),
};

/** An affiliate's coupons. */
export const couponHandlers: Handlers<typeof contract.coupons> = {
  list: ({ auth, params }, { coupons }) => coupons.list(auth.campaignId, params.id),
  create: ({ auth, params, body }, { coupons }) => coupons.create(auth.campaignId, params.id, body),
  remove: async ({ auth, params }, { coupons }) => {
    await coupons.remove(auth.campaignId, params.id, params.code);
    return { success: true, message: 'Coupon deleted successfully' };
  },
};
