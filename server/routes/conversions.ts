import type { contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';

export const conversionHandlers: Handlers<typeof contract.conversions> = {
  list: ({ auth, query }, { conversions }) => conversions.list(auth.campaignId, query),
  get: ({ auth, params }, { conversions }) => conversions.get(auth.campaignId, params.id),
  update: ({ auth, params, body }, { conversions }) => conversions.update(auth.campaignId, params.id, body.status),
  bulkUpdate: ({ auth, body }, { conversions }) => conversions.bulkUpdate(auth.campaignId, body),
};

export const refundHandlers: Handlers<typeof contract.refunds> = {
  create: {
    check: ({ auth, body }, { refunds }) => refunds.amountIssues(auth.campaignId, body),
    handle: ({ auth, body }, { refunds }) => refunds.refund(auth.campaignId, body),
  },
};
