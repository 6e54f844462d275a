import type { DashboardRole } from '../../repositories/dashboardUsers.js';
export type { DashboardRole } from '../../repositories/dashboardUsers.js';

export { DASHBOARD_ROLES } from '../../../shared/vocabulary.js';

/** A campaign as every dashboard page needs it. */
export interface DashboardCampaign {
  id: number;
  publicId: string;
  name: string;
  /** ISO 4217: every amount the dashboard shows is in it. */
  currency: string;
}

/** The user of a live session: who acts, with which role. */
export interface DashboardActor {
  userId: number;
  campaignId: number;
  email: string;
  role: DashboardRole;
  /** Whether a TOTP secret is enrolled. */
  totpEnrolled: boolean;
  /** Logged in by password only: owners and admins still owe the second factor. */
  factorPending: boolean;
}

/** Who is asking: the client's IP (throttling) and its browser's language. */
export interface Asker {
  ip: string;
  locale: string;
}

export type DashboardLogIn = { state: 'in'; secret: string; factorPending: boolean } | { state: 'failed' };

/** What a set-up link is worth now. */
export type SetupLink = { state: 'usable'; email: string } | { state: 'used' | 'expired' | 'unknown' };
