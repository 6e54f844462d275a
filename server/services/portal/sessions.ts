import { randomBytes } from 'node:crypto';
import type { Db, Trx } from '../../db/knex.js';
import {
  deleteSession,
  deleteSessionsOf,
  findSession,
  insertSession,
  type SessionAffiliate,
  touchSession,
} from '../../repositories/portalSessions.js';
import { hashSecret } from '../secretHash.js';

/** docs/portal.md#sessions: a session ends after 7 days unused, and 30 days after log-in whatever happens. */
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
export const SESSION_MAX_MS = 30 * 24 * 60 * 60 * 1000;
/** A session's last use is written at most this often (a page view is not a write). */
const TOUCH_EVERY_MS = 10 * 60 * 1000;

/** 256 random bits, as the cookie holds them. */
export const newSessionSecret = () => randomBytes(32).toString('base64url');

export interface PortalSessions {
  /** A new session for the affiliate: the secret goes in the cookie, its hash in the database. */
  open(trx: Db | Trx, campaignId: number, affiliateId: number, now: Date): Promise<string>;
  /** The session of this secret, alive and of this campaign; ended (and undefined) once its affiliate is inactive. */
  find(campaignId: number, secret: string, now: Date): Promise<SessionAffiliate | undefined>;
  close(secret: string): Promise<void>;
  closeAll(trx: Db | Trx, affiliateId: number): Promise<void>;
}

export function portalSessions(db: Db): PortalSessions {
  return {
    async open(trx, campaignId, affiliateId, now) {
      const secret = newSessionSecret();
      const expiresAt = new Date(now.getTime() + SESSION_IDLE_MS);
      await insertSession(trx, { tokenHash: hashSecret(secret), campaignId, affiliateId, now, expiresAt });
      return secret;
    },

    async find(campaignId, secret, now) {
      // A cookie that cannot be one of ours is not looked up.
      if (!/^[A-Za-z0-9_-]{43}$/.test(secret)) return undefined;
      const hash = hashSecret(secret);
      const session = await findSession(db, campaignId, hash, now);
      if (!session) return undefined;
      if (session.status === 'inactive' || now.getTime() - session.createdAt.getTime() > SESSION_MAX_MS) {
        await deleteSession(db, hash);
        return undefined;
      }
      if (now.getTime() - session.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
        const expiresAt = new Date(
          Math.min(now.getTime() + SESSION_IDLE_MS, session.createdAt.getTime() + SESSION_MAX_MS),
        );
        await touchSession(db, session.sessionId, now, expiresAt);
      }
      return session;
    },

    async close(secret) {
      await deleteSession(db, hashSecret(secret));
    },

    async closeAll(trx, affiliateId) {
      await deleteSessionsOf(trx, affiliateId);
    },
  };
}
