import { createHash } from 'node:crypto';
import { TooManyRequestsError } from '../../errors.js';
import type { ThrottleStore } from '../../repositories/portalThrottle.js';

/** docs/portal.md#the-security-model: the numbers of the log-in throttling. */
export const LOGIN_FAILURES = 5;
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
/** Form posts (log-in, sign-up, reset) one client IP may make in a window. */
export const IP_WINDOW_MS = 15 * 60 * 1000;
/** Reset mails one address may be sent in an hour: more would be a stranger's mail bomb. */
export const RESET_MAILS_PER_HOUR = 3;
const HOUR_MS = 60 * 60 * 1000;

/** A log-in attempt that holds one of its e-mail's places until it is judged. */
export interface LoginTicket {
  bucket: string;
  token: string;
}

export interface PortalThrottle {
  /** Counts one form post of this IP; 429 past the limit. */
  ipPost(ip: string, now: Date): Promise<void>;
  /** A place among the e-mail's five; 429 when five failures (or attempts in progress) hold them all. */
  loginAttempt(campaignId: number, emailKey: string, now: Date): Promise<LoginTicket>;
  /** The attempt failed: its place stays held for the window, and the fifth failure locks the e-mail for one. */
  failed(ticket: LoginTicket, now: Date): Promise<void>;
  /** The attempt succeeded: its place is given back. */
  succeeded(ticket: LoginTicket): Promise<void>;
  /** Whether another reset mail may go to this address this hour. */
  resetMailAllowed(campaignId: number, emailKey: string, now: Date): Promise<boolean>;
}

/** Bucket names are hashes: the store keeps no e-mail address or IP in clear, and every name fits 64 characters. */
const bucketOf = (...parts: (string | number)[]) => createHash('sha256').update(parts.join('\u0000')).digest('hex');

/** Whole seconds until `at`, at least 1 (a `Retry-After`). */
const secondsUntil = (at: Date, now: Date) => Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 1000));

export function portalThrottle(store: ThrottleStore, postsPerIp: number): PortalThrottle {
  const refuse = (until: Date, now: Date) =>
    new TooManyRequestsError('Too many attempts: try again later', secondsUntil(until, now));
  return {
    async ipPost(ip, now) {
      const { allowed, resetAt } = await store.hit(bucketOf('ip', ip), postsPerIp, IP_WINDOW_MS, now);
      if (!allowed) throw refuse(resetAt, now);
    },

    async loginAttempt(campaignId, emailKey, now) {
      const bucket = bucketOf('login', campaignId, emailKey);
      // Held for the window from the start: an attempt in progress counts as a failure until judged.
      const place = await store.takeSlot(bucket, LOGIN_FAILURES, new Date(now.getTime() + LOGIN_WINDOW_MS), now);
      if ('retryAt' in place) throw refuse(place.retryAt, now);
      return { bucket, token: place.token };
    },

    async failed(ticket, now) {
      const until = new Date(now.getTime() + LOGIN_WINDOW_MS);
      await store.holdSlot(ticket.bucket, ticket.token, until);
      // The fifth failure within the window: every place stays held 15 minutes from now.
      if ((await store.heldSlots(ticket.bucket, now)) >= LOGIN_FAILURES) {
        await store.holdAllSlots(ticket.bucket, LOGIN_FAILURES, until);
      }
    },

    async succeeded(ticket) {
      await store.releaseSlot(ticket.bucket, ticket.token);
    },

    async resetMailAllowed(campaignId, emailKey, now) {
      const { allowed } = await store.hit(bucketOf('reset', campaignId, emailKey), RESET_MAILS_PER_HOUR, HOUR_MS, now);
      return allowed;
    },
  };
}
