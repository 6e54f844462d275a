import type { contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';

export const analyticsHandlers: Handlers<typeof contract.analytics> = {
  series: ({ auth, query }, { analytics }) => analytics.series(auth.campaignId, query),
  funnel: ({ auth, query }, { analytics }) => analytics.funnel(auth.campaignId, query),
};
