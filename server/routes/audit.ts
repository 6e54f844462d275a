import type { contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';

/** docs/audit.md. */
export const auditHandlers: Handlers<typeof contract.audit> = {
  list: ({ auth, query }, { audit }) => audit.list(auth.campaignId, query),
};
