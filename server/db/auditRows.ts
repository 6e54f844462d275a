import type { DbDate } from './rows.js';

/** One row of `audit_log` (migration 20261129400000). */
export interface AuditLogRow {
  id: number;
  campaign_id: number | null;
  actor_type: string;
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  /** JSON: `{ fields, figures }`. */
  details: string | null;
  address: string | null;
  created_at: DbDate;
}
