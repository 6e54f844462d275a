import type { contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';

export const campaignHandlers: Handlers<typeof contract.campaign> = {
  get: ({ auth }, { campaigns }) => campaigns.withUsage(auth.campaignId),
};
