import type { contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';

/** Webhook endpoints and deliveries (docs/webhooks.md). */
export const webhookHandlers: Handlers<typeof contract.webhooks> = {
  create: ({ auth, body }, { webhooks }) => webhooks.create(auth.campaignId, body),
  list: ({ auth, query }, { webhooks }) => webhooks.list(auth.campaignId, query),
  get: ({ auth, params }, { webhooks }) => webhooks.get(auth.campaignId, params.id),
  update: ({ auth, params, body }, { webhooks }) => webhooks.update(auth.campaignId, params.id, body),
  remove: async ({ auth, params }, { webhooks }) => {
    await webhooks.remove(auth.campaignId, params.id);
    return { success: true, message: 'Webhook deleted successfully' };
  },
  rotateSecret: ({ auth, params }, { webhooks }) => webhooks.rotateSecret(auth.campaignId, params.id),
  deliveries: ({ auth, params, query }, { webhooks }) => webhooks.deliveries(auth.campaignId, params.id, query),
  retry: ({ auth, params }, { webhooks }) => webhooks.retry(auth.campaignId, params.id, params.deliveryId),
  test: ({ auth, params }, { webhooks }) => webhooks.sendTest(auth.campaignId, params.id),
};
