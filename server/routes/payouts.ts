import type { contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';

export const payoutHandlers: Handlers<typeof contract.payouts> = {
  list: ({ auth, query }, { payouts }) => payouts.list(auth.campaignId, query),
  clawbacks: ({ auth, query }, { payouts }) => payouts.clawbacks(auth.campaignId, query),
  get: ({ auth, params }, { payouts }) => payouts.get(auth.campaignId, params.id),
  create: ({ auth, body }, { payouts }) => payouts.create(auth.campaignId, body.affiliateId),
  bulkCreate: ({ auth, body }, { payouts }) => payouts.createMany(auth.campaignId, body.affiliateIds),
  update: ({ auth, params, body }, { payouts }) => payouts.update(auth.campaignId, params.id, body.status),
};
