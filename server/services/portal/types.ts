import type { SessionAffiliate } from '../../repositories/portalSessions.js';
import type { FieldProblems, FormFields } from './forms.js';

/** A campaign whose portal is on: what every portal page needs of it. */
export interface PortalCampaign {
  id: number;
  publicId: string;
  name: string;
  signupOpen: boolean;
  approveAffiliates: 'manual' | 'auto';
  siteUrl: string | null;
  /** ISO 4217: every amount the portal and its mails show is in it (docs/portal.md). */
  currency: string;
}

/** The logged-in affiliate of a request. */
export type PortalUser = SessionAffiliate;

/** Who is asking: the client's IP (throttling) and the language of its browser (the account's mails). */
export interface Asker {
  ip: string;
  locale: string;
}

export type SignUpResult =
  | { state: 'closed' }
  | { state: 'full' }
  | { state: 'invalid'; problems: FieldProblems }
  /** Also the answer for an e-mail that has an account: the page says the same (enumeration-safe). */
  | { state: 'received'; approval: 'manual' | 'auto' };

export type LogInResult =
  | { state: 'in'; secret: string }
  /** Unknown e-mail or wrong password: one answer, in the time a check takes. */
  | { state: 'failed' }
  | { state: 'inactive' };

export type FormResult = { state: 'saved' } | { state: 'invalid'; problems: FieldProblems };

/** `inviteExpired`: an invitation's link (docs/portal.md#inviting-affiliates) past its 7 days. */
export type ResetLink = { state: 'usable' } | { state: 'used' | 'expired' | 'inviteExpired' | 'unknown' };

export type { FormFields };
