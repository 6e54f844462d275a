import type { contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';

/** spec §4.1 to §4.5. */
export const affiliateHandlers: Handlers<typeof contract.affiliates> = {
  create: {
    check: ({ auth, body }, { affiliates }) => affiliates.referenceIssues(auth.campaignId, body),
    handle: ({ auth, body }, { affiliates }) => affiliates.create(auth.campaignId, body),
  },
  list: ({ auth, query }, { affiliates }) => affiliates.list(auth.campaignId, query),
  get: ({ auth, params }, { affiliates }) => affiliates.get(auth.campaignId, params.id),
  update: {
    check: ({ auth, body }, { affiliates }) => affiliates.referenceIssues(auth.campaignId, body),
    handle: ({ auth, params, body }, { affiliates }) => affiliates.update(auth.campaignId, params.id, body),
  },
  remove: async ({ auth, params }, { affiliates }) => {
    await affiliates.remove(auth.campaignId, params.id);
    return { success: true, message: 'Affiliate deleted successfully' };
  },
  approve: ({ auth, params }, { affiliates }) => affiliates.approve(auth.campaignId, params.id),
  approvePending: ({ auth }, { affiliates }) => affiliates.approvePending(auth.campaignId),
  invite: ({ auth, params }, { portal }) => portal.invite(auth.campaignId, params.id),
};
