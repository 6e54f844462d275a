import { randomBytes } from 'node:crypto';
import type { Db, Trx } from '../../db/knex.js';
import {
  type DashboardSession,
  deleteDashboardSession,
  deleteDashboardSessionsOf,
  findDashboardSession,
  insertDashboardSession,
  touchDashboardSession,
} from '../../repositories/dashboardSessions.js';
import { hashSecret } from '../secretHash.js';

/** docs/dashboard.md#the-security-model: 12 hours unused, 7 days after log-in at most. */
export const DASHBOARD_IDLE_MS = 12 * 60 * 60 * 1000;
export const DASHBOARD_MAX_MS = 7 * 24 * 60 * 60 * 1000;
/** A session's last use is written at most this often. */
const TOUCH_EVERY_MS = 5 * 60 * 1000;

const SECRET = /^[A-Za-z0-9_-]{43}$/;

export interface DashboardSessions {
  open(trx: Db | Trx, userId: number, factorPending: boolean, now: Date): Promise<string>;
  find(campaignId: number, secret: string, now: Date): Promise<DashboardSession | undefined>;
  close(secret: string): Promise<void>;
  closeAll(trx: Db | Trx, userId: number): Promise<void>;
}

export function dashboardSessions(db: Db): DashboardSessions {
  return {
    async open(trx, userId, factorPending, now) {
      const secret = randomBytes(32).toString('base64url');
      const expiresAt = new Date(now.getTime() + DASHBOARD_IDLE_MS);
      await insertDashboardSession(trx, { tokenHash: hashSecret(secret), userId, factorPending, now, expiresAt });
      return secret;
    },

    async find(campaignId, secret, now) {
      if (!SECRET.test(secret)) return undefined;
      const hash = hashSecret(secret);
      const session = await findDashboardSession(db, campaignId, hash, now);
      if (!session) return undefined;
      if (now.getTime() - session.createdAt.getTime() > DASHBOARD_MAX_MS) {
        await deleteDashboardSession(db, hash);
        return undefined;
      }
      if (now.getTime() - session.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
        const expiresAt = new Date(
          Math.min(now.getTime() + DASHBOARD_IDLE_MS, session.createdAt.getTime() + DASHBOARD_MAX_MS),
        );
        await touchDashboardSession(db, session.sessionId, now, expiresAt);
      }
      return session;
    },

    close: (secret) => (SECRET.test(secret) ? deleteDashboardSession(db, hashSecret(secret)) : Promise.resolve()),
    closeAll: (trx, userId) => deleteDashboardSessionsOf(trx, userId),
  };
}
