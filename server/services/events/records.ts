import { toCents } from '../../../shared/money.js';
import type { SkipReason, TrackingEvent } from '../../../shared/schemas/event.js';
import type { StoredEvent } from '../../repositories/dailyStats.js';
import type { NewConversion, NewTrackingEvent, ReferralTarget } from '../../repositories/events.js';
import type { Earning } from './commission.js';

/**
 * The campaign whose month's counter a request's conversions reserve from, and its plan's
 * monthly limit (spec §10.8; null: no limit). The commission rules are read by every flush
 * afresh (spec §12).
 */
export interface MonthlyLimit {
  campaignId: number;
  planName: string;
  maxMonthlyConversions: number | null;
}

/** One request's validated events, waiting for a flush. */
export interface IntakeJob {
  events: readonly TrackingEvent[];
  /** The campaign of each event, by index. */
  campaignIds: readonly number[];
  /** The key's campaign and its monthly limit; undefined for the browser endpoint (no conversions). */
  limit: MonthlyLimit | undefined;
  /**
   * A billing provider's customer id per event index, when the caller knows it (the billing
   * integrations): the customer the recurring limit counts, before `customer_id` or `customer_email`.
   */
  providerCustomers?: ReadonlyMap<number, string>;
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
  /** The affiliate it counts for, with what its commission depends on. */
  target: ReferralTarget;
  event: TrackingEvent;
  /** Set for conversions only: the order_id dedupe key (spec §10.7). */
  orderId: string | undefined;
  /** The click it is attributed through (docs/analytics.md); undefined: its code alone. */
  clickId: string | undefined;
}

/** What a request learns from its flush. */
export interface Stored {
  accepted: number;
  skipped: Skip[];
}

/** What a request stored: what the report counters and the webhook outbox are told. */
export interface Written {
  events: StoredEvent[];
  /** The sales (their second-tier conversions share their order ids). */
  conversions: NewConversion[];
}

/** Thrown inside the transaction so that it (or the request's savepoint) rolls back; answered 403 outside it. */
export class MonthlyLimitReached extends Error {
  constructor(readonly current: number) {
    super('monthly conversion limit reached');
  }
}

export const counted = (row: NewTrackingEvent, conversion?: NewConversion): StoredEvent => ({
  campaignId: row.campaignId,
  affiliateId: row.affiliateId,
  eventType: row.event.event_type,
  occurredAt: row.occurredAt,
  orderValueCents: conversion?.orderValueCents ?? null,
  commissionCents: conversion?.commissionCents ?? null,
});

/** spec §11: an event occurred at its `timestamp`, else when it was received. */
export function occurredAt(event: TrackingEvent, now: Date): Date {
  const timestamp = event.properties?.timestamp;
  return timestamp === undefined ? now : new Date(timestamp);
}

/** What the intake asks the repository to store for a candidate (rows are built there). */
export function newTrackingEvent(candidate: Candidate, intakeId: string, now: Date): NewTrackingEvent {
  return {
    campaignId: candidate.campaignId,
    affiliateId: candidate.target.id,
    event: candidate.event,
    orderId: candidate.orderId,
    intakeId,
    clickId: candidate.clickId,
    occurredAt: occurredAt(candidate.event, now),
    createdAt: now,
  };
}

export const orderValueCents = (candidate: Candidate) => toCents(candidate.event.properties?.order_value ?? 0);

/** A sale, its commission computed now and kept, even if a rule changes later (spec §12.8). */
export function newConversion(
  candidate: Candidate,
  trackingEventId: number,
  earning: Pick<Earning, 'commissionCents' | 'rule' | 'flags'>,
  now: Date,
): NewConversion {
  return {
    campaignId: candidate.campaignId,
    affiliateId: candidate.target.id,
    trackingEventId,
    orderId: candidate.orderId ?? '',
    orderValueCents: orderValueCents(candidate),
    commissionCents: earning.commissionCents,
    rule: earning.rule,
    flags: earning.flags,
    clickId: candidate.clickId,
    properties: candidate.event.properties,
    occurredAt: occurredAt(candidate.event, now),
    createdAt: now,
  };
}
