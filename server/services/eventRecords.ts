import type { TrackingEvent } from '../../shared/schemas/event.js';
import { moneyToCents } from '../db/rows.js';
import type { ConversionInsert, TrackingEventInsert } from '../repositories/events.js';

/** The campaign rule of product §2, as stored: percent in hundredths of a percent, fixed in centavos. */
export interface ConversionRules {
  campaignId: number;
  planName: string;
  maxMonthlyConversions: number | null;
  commissionType: 'percent' | 'fixed';
  commissionValue: number;
}

/** A valid, attributed event that survived in-batch dedupe: what the database is asked to store. */
export interface Candidate {
  index: number;
  campaignId: number;
  affiliateId: number;
  event: TrackingEvent;
  /** Set for conversions only: the order_id dedupe key (product §3.7). */
  orderId: string | undefined;
}

export function commissionCents(orderValueCents: number, rules: ConversionRules): number {
  if (rules.commissionType === 'fixed') return rules.commissionValue;
  // Exact integer arithmetic, half up: order values reach 10^12 centavos, past 2^53 once multiplied.
  const scaled = BigInt(orderValueCents) * BigInt(rules.commissionValue);
  return Number((scaled + 5_000n) / 10_000n);
}

/** product §2: an event occurred at its `timestamp`, else when it was received. */
function occurredAt(event: TrackingEvent, now: Date): Date {
  const timestamp = event.properties?.timestamp;
  return timestamp === undefined ? now : new Date(timestamp);
}

const json = (value: object | undefined) => (value === undefined ? null : JSON.stringify(value));

export function toTrackingEventRow(
  { campaignId, affiliateId, event, orderId }: Candidate,
  intakeId: string,
  now: Date,
): TrackingEventInsert {
  return {
    campaign_id: campaignId,
    affiliate_id: affiliateId,
    event_type: event.event_type,
    event_id: event.event_id ?? null,
    order_id: orderId ?? null,
    session_id: event.session_id ?? null,
    properties: json(event.properties),
    device_info: json(event.device_info),
    intake_id: intakeId,
    occurred_at: occurredAt(event, now),
    created_at: now,
  };
}

export function toConversionRow(
  { campaignId, affiliateId, event, orderId }: Candidate,
  trackingEventId: number,
  rules: ConversionRules,
  now: Date,
): ConversionInsert {
  const orderValueCents = moneyToCents(event.properties?.order_value ?? 0);
  return {
    campaign_id: campaignId,
    affiliate_id: affiliateId,
    tracking_event_id: trackingEventId,
    order_id: orderId ?? '',
    order_value_cents: orderValueCents,
    // Computed now and kept, even if the campaign's rule changes later (product §2).
    commission_cents: commissionCents(orderValueCents, rules),
    // spec 4.6.4: an accepted conversion starts pending.
    status: 'pending',
    payout_id: null,
    properties: json(event.properties),
    occurred_at: occurredAt(event, now),
    created_at: now,
    updated_at: now,
  };
}
