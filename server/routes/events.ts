import type { contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';

/** spec §4.6 and §4.7. */
export const eventHandlers: Handlers<typeof contract.events> = {
  send: {
    check: ({ auth, body }, { events }) => events.campaignIssues(auth, body),
    handle: ({ auth, body }, { events }) => events.track(auth, body),
  },
  sendFromBrowser: {
    check: ({ body }, { events }) => events.campaignIssues(undefined, body),
    handle: ({ body }, { events }) => events.trackFromBrowser(body),
  },
};
