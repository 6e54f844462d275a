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
  failing_since: DbDate | null;
  /** 1 to WEBHOOK_MAX_ENDPOINTS, unique in the campaign: what keeps the cap (null only before 20261126200000). */
  slot: number | null;
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
  /** Still to be fanned out to the campaign's endpoints, past the endpoint id `fanout_cursor`. */
  fanout_pending: boolean | number;
  fanout_cursor: number;
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

/** Which endpoint hears which event type: what the outbox asks and the fan-out follows. */
export interface WebhookSubscriptionRow {
  campaign_id: number;
  event_type: string;
  endpoint_id: number;
}

/** A secret replaced by a rotation, signing until `expires_at`. */
export interface WebhookRetiredSecretRow {
  id: number;
  endpoint_id: number;
  secret_enc: string;
  expires_at: DbDate;
}

export interface WebhookSettingRow {
  name: string;
  value: string;
}
