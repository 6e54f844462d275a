import type { DASHBOARD_ROLES } from '../../shared/vocabulary.js';
import type { DbDate } from './rows.js';

/** The merchant dashboard's tables (migration 20261129300000_dashboard_users). */

export interface DashboardUserRow {
  id: number;
  campaign_id: number;
  email: string;
  /** The e-mail lower-cased: unique in its campaign. */
  email_key: string;
  role: (typeof DASHBOARD_ROLES)[number];
  /** bcrypt; null until the set-up link is used. */
  password_hash: string | null;
  /** Base32 TOTP secret once enrolled. */
  totp_secret: string | null;
  /** The 30-second step of the last code accepted. */
  totp_last_step: number | string | null;
  locale: string | null;
  created_at: DbDate;
  updated_at: DbDate;
}

export interface DashboardSessionRow {
  id: number;
  /** SHA-256 (hex) of the session id the cookie holds. */
  token_hash: string;
  user_id: number;
  factor_pending: boolean | number;
  created_at: DbDate;
  last_seen_at: DbDate;
  expires_at: DbDate;
  /** The WebAuthn challenge last given, until spent (migration 20261129500000_dashboard_passkeys). */
  webauthn_challenge?: string | null;
  webauthn_challenge_expires_at?: DbDate | null;
  /**
   * Recovery codes a first passkey made, sealed, until the session's first page shows them
   * (migration 20261201010000_dashboard_passkey_names).
   */
  recovery_codes?: string | null;
}

export interface DashboardTokenRow {
  id: number;
  /** SHA-256 (hex) of the token the set-up link holds. */
  token_hash: string;
  user_id: number;
  created_at: DbDate;
  expires_at: DbDate;
  used_at: DbDate | null;
}

export interface DashboardRecoveryCodeRow {
  user_id: number;
  code_hash: string;
  used_at: DbDate | null;
}

/** A user's passkey (migration 20261129500000_dashboard_passkeys). */
export interface DashboardPasskeyRow {
  id: number;
  user_id: number;
  /** base64url, as the browser names the credential; unique across users. */
  credential_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  /** The authenticator's signature counter at its last use. */
  counter: number | string;
  /** Comma-separated, as the browser reported them at enrolment. */
  transports: string | null;
  /** Given at enrolment (migration 20261201010000_dashboard_passkey_names); null for older passkeys. */
  name: string | null;
  created_at: DbDate;
  last_used_at: DbDate | null;
}
