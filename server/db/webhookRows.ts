import type { DbDate } from './rows.js';

/** Column types of the webhook tables, as the repositories read and write them. */
export interface WebhookEndpointRow {
  id: number;
  campaign_id: number;
  url: string;
  /** JSON array of event types. */
  events: string;
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: DbDate | null;
  failing_since: DbDate | null;
  created_at: DbDate;
  updated_at: DbDate;
}

export interface WebhookMessageRow {
  id: number;
  campaign_id: number;
  message_id: string;
  event_type: string;
  payload: string;
  created_at: DbDate;
}

export interface WebhookDeliveryRow {
  id: number;
  endpoint_id: number;
  message_id: number;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  next_attempt_at: DbDate | null;
  lease_token: string | null;
  lease_until: DbDate | null;
  created_at: DbDate;
  updated_at: DbDate;
}

export interface WebhookAttemptRow {
  id: number;
  delivery_id: number;
  attempted_at: DbDate;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response: string | null;
}

export interface WebhookSettingRow {
  name: string;
  value: string;
}
