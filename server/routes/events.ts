import type { contract } from '../../shared/contract/index.js';
import type { Handlers } from '../http/register.js';

/** spec 4.6 and 4.7. */
export const eventHandlers: Handlers<typeof contract.events> = {
  send: ({ auth, body }, { events }) => events.track(auth, body),
  sendFromBrowser: ({ body }, { events }) => events.trackFromBrowser(body),
};
