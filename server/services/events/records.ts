import { toCents } from '../../../shared/money.js';
import type { SkipReason, TrackingEvent } from '../../../shared/schemas/event.js';
import type { NewConversion, NewTrackingEvent } from '../../repositories/events.js';

/** The campaign rule of spec §11, as stored: percent in hundredths of a percent, fixed in centavos. */
export interface ConversionRules {
  campaignId: number;
  planName: string;
  maxMonthlyConversions: number | null;
  commissionType: 'percent' | 'fixed';
  commissionValue: number;
}

/** One request's validated events, waiting for a flush. */
export interface IntakeJob {
  events: readonly TrackingEvent[];
  /** The campaign of each event, by index. */
  campaignIds: readonly number[];
  /** The key's campaign rules; undefined for the browser endpoint (no conversions). */
  rules: ConversionRules | undefined;
  /** When the request arrived: stamps its rows and picks the month it reserves from. */
  now: Date;
}

export interface Skip {
  index: number;
  reason: SkipReason;
}

/** A valid, attributed event that survived in-batch dedupe: what the database is asked to store. */
export interface Candidate {
  index: number;
  campaignId: number;
  affiliateId: number;
  event: TrackingEvent;
  /** Set for conversions only: the order_id dedupe key (spec §10.7). */
  orderId: string | undefined;
}

export function commissionCents(orderValueCents: number, rules: ConversionRules): number {
  if (rules.commissionType === 'fixed') return rules.commissionValue;
  // Exact integer arithmetic, half up: order values reach 10^12 centavos, past 2^53 once multiplied.
  const scaled = BigInt(orderValueCents) * BigInt(rules.commissionValue);
  return Number((scaled + 5_000n) / 10_000n);
}

/** spec §11: an event occurred at its `timestamp`, else when it was received. */
function occurredAt(event: TrackingEvent, now: Date): Date {
  const timestamp = event.properties?.timestamp;
  return timestamp === undefined ? now : new Date(timestamp);
}

/** What the intake asks the repository to store for a candidate (rows are built there). */
export function newTrackingEvent(candidate: Candidate, intakeId: string, now: Date): NewTrackingEvent {
  return {
    campaignId: candidate.campaignId,
    affiliateId: candidate.affiliateId,
    event: candidate.event,
    orderId: candidate.orderId,
    intakeId,
    occurredAt: occurredAt(candidate.event, now),
    createdAt: now,
  };
}

export function newConversion(
  candidate: Candidate,
  trackingEventId: number,
  rules: ConversionRules,
  now: Date,
): NewConversion {
  const orderValueCents = toCents(candidate.event.properties?.order_value ?? 0);
  return {
    campaignId: candidate.campaignId,
    affiliateId: candidate.affiliateId,
    trackingEventId,
    orderId: candidate.orderId ?? '',
    orderValueCents,
    // Computed now and kept, even if the campaign's rule changes later (spec §11).
    commissionCents: commissionCents(orderValueCents, rules),
    properties: candidate.event.properties,
    occurredAt: occurredAt(candidate.event, now),
    createdAt: now,
  };
}
