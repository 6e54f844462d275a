import type { contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';

/** Groups of affiliates and their rules (docs/commissions.md#groups). */
export const groupHandlers: Handlers<typeof contract.groups> = {
  create: ({ auth, body }, { groups }) => groups.create(auth.campaignId, body),
  list: ({ auth, query }, { groups }) => groups.list(auth.campaignId, query),
  get: ({ auth, params }, { groups }) => groups.get(auth.campaignId, params.id),
  update: ({ auth, params, body }, { groups }) => groups.update(auth.campaignId, params.id, body),
  remove: async ({ auth, params }, { groups }) => {
    await groups.remove(auth.campaignId, params.id);
    return { success: true, message: 'Group deleted successfully' };
  },
};
