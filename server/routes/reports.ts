import type { contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';

export const reportHandlers: Handlers<typeof contract.reports> = {
  affiliates: ({ auth, query }, { reports }) => reports.affiliates(auth.campaignId, query),
};
