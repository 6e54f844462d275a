import type Router from '@koa/router';
import type { RouteDeps } from '../app.js';

/** spec 4.6 and 4.7: registered by the event-intake work (issue 4). */
export function eventRoutes(_router: Router, _deps: RouteDeps): void {}
