import type { DbDate } from './rows.js';

/** The portal's and the mail outbox's tables (migration 20261126300000_portal_and_mail). */

export interface PortalSessionRow {
  id: number;
  /** SHA-256 (hex) of the session id the cookie holds. */
  token_hash: string;
  campaign_id: number;
  affiliate_id: number;
  created_at: DbDate;
  last_seen_at: DbDate;
  expires_at: DbDate;
}

export interface PortalResetTokenRow {
  id: number;
  /** SHA-256 (hex) of the token the mailed link holds. */
  token_hash: string;
  affiliate_id: number;
  created_at: DbDate;
  expires_at: DbDate;
  used_at: DbDate | null;
}

export interface PortalCounterRow {
  bucket: string;
  window_start: DbDate;
  hits: number;
}

export interface PortalLoginSlotRow {
  bucket: string;
  slot: number;
  busy_until: DbDate;
  token: string;
}

export interface MailOutboxRow {
  id: number;
  campaign_id: number;
  affiliate_id: number | null;
  kind: string;
  to_address: string;
  locale: string;
  data: string;
  status: 'pending' | 'sent' | 'failed';
  attempt_count: number;
  next_attempt_at: DbDate | null;
  lease_token: string | null;
  lease_until: DbDate | null;
  last_error: string | null;
  created_at: DbDate;
  updated_at: DbDate;
  sent_at: DbDate | null;
}
