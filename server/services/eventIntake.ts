import { randomBytes } from 'node:crypto';
import { MESSAGES } from '../../shared/errors.js';
import type { EventsResponse, SkipReason, TrackingEvent } from '../../shared/schemas/event.js';
import { type Db, inTransaction, type Trx } from '../db/knex.js';
import { ForbiddenError } from '../errors.js';
import { countIntakeInDailyStats } from '../repositories/dailyStats.js';
import {
  existingEventIds,
  findAffiliatesByReferralKeys,
  insertConversions,
  insertTrackingEventsIgnoringDuplicates,
  trackingEventsOfIntake,
} from '../repositories/events.js';
import { ensureMonthlyUsage, monthKey, reserveConversions } from '../repositories/usage.js';
import { enqueueConversionsCreated } from '../repositories/webhookOutbox.js';
import { type Candidate, type ConversionRules, newConversion, newTrackingEvent } from './eventRecords.js';

interface Skip {
  index: number;
  reason: SkipReason;
}

/** Thrown inside the transaction so that it rolls back; answered as the spec's 403 outside it. */
class MonthlyLimitReached extends Error {
  constructor(readonly current: number) {
    super('monthly conversion limit reached');
  }
}

const USAGE_ROWS_REMEMBERED = 1_000;

/** Stores validated events: `(events, campaign of an event, the campaign's conversion rules)`. */
export type EventIntake = (
  events: readonly TrackingEvent[],
  campaignOf: (event: TrackingEvent) => number,
  rules: ConversionRules | undefined,
) => Promise<EventsResponse>;

/**
 * Event intake after validation. One `now` per request: it stamps the rows and picks the
 * calendar month (UTC) whose conversion counter the batch reserves from (product §3.8).
 */
export function createEventIntake(db: Db): EventIntake {
  const usageRows = new Map<number, string>();

  /**
   * The month's usage row is created once, outside any transaction (see ensureMonthlyUsage).
   * Remembering that it exists saves a round trip per request; were the row gone after all,
   * reserveConversions creates it inside the transaction.
   */
  async function ensureUsageRow(campaignId: number, now: Date): Promise<void> {
    const month = monthKey(now);
    if (usageRows.get(campaignId) === month) return;
    await ensureMonthlyUsage(db, campaignId, now);
    if (usageRows.size >= USAGE_ROWS_REMEMBERED) usageRows.clear();
    usageRows.set(campaignId, month);
  }

  /**
   * Attribution and in-batch dedupe (product §3.5, §3.7): what is left is what the database
   * is asked to store. Skips are decided in event order, so the first of two duplicates wins.
   */
  async function attribute(
    events: readonly TrackingEvent[],
    campaignOf: (event: TrackingEvent) => number,
  ): Promise<{ candidates: Candidate[]; skipped: Skip[] }> {
    const referralKeys = [...new Set(events.map((event) => event.affiliate_id.toUpperCase()))];
    const affiliates = new Map(
      (await findAffiliatesByReferralKeys(db, referralKeys)).map((row) => [row.referral_key, row]),
    );
    const candidates: Candidate[] = [];
    const skipped: Skip[] = [];
    const seenEventIds = new Set<string>();
    const seenOrderIds = new Set<string>();
    events.forEach((event, index) => {
      const campaignId = campaignOf(event);
      const affiliate = affiliates.get(event.affiliate_id.toUpperCase());
      // Codes are unique across campaigns; another campaign's affiliate is unknown here.
      if (!affiliate || Number(affiliate.campaign_id) !== campaignId) {
        skipped.push({ index, reason: 'unknown_affiliate' });
        return;
      }
      if (affiliate.status !== 'active') {
        skipped.push({ index, reason: 'inactive_affiliate' });
        return;
      }
      const eventKey = event.event_id === undefined ? undefined : `${campaignId}\n${event.event_id}`;
      const orderId = event.event_type === 'conversion' ? event.properties?.order_id : undefined;
      const orderKey = orderId === undefined ? undefined : `${campaignId}\n${orderId}`;
      if (eventKey !== undefined && seenEventIds.has(eventKey)) {
        skipped.push({ index, reason: 'duplicate_event_id' });
        return;
      }
      if (orderKey !== undefined && seenOrderIds.has(orderKey)) {
        skipped.push({ index, reason: 'duplicate_order_id' });
        return;
      }
      if (eventKey !== undefined) seenEventIds.add(eventKey);
      if (orderKey !== undefined) seenOrderIds.add(orderKey);
      candidates.push({ index, campaignId, affiliateId: Number(affiliate.id), event, orderId });
    });
    return { candidates, skipped };
  }

  /**
   * Stores the candidates in one transaction: a multi-row insert-ignore of the tracking events,
   * one read of what this request stored, the month's conversion reservation, a multi-row insert
   * of the conversions. The unique indexes decide every duplicate, so the answer holds under
   * concurrency and across daemons (product §3.7, §3.8).
   */
  async function store(
    candidates: readonly Candidate[],
    rules: ConversionRules | undefined,
    now: Date,
  ): Promise<{ accepted: number; skipped: Skip[] }> {
    if (candidates.length === 0) return { accepted: 0, skipped: [] };
    if (rules && candidates.some((candidate) => candidate.orderId !== undefined)) {
      await ensureUsageRow(rules.campaignId, now);
    }
    const intakeId = randomBytes(12).toString('hex');
    const rows = candidates.map((candidate) => newTrackingEvent(candidate, intakeId, now));

    return inTransaction(db, async (trx) => {
      await insertTrackingEventsIgnoringDuplicates(trx, rows);
      const stored = await trackingEventsOfIntake(trx, intakeId);
      const byEventId = new Map<string, number>();
      const byOrderId = new Map<string, number>();
      for (const row of stored) {
        if (row.event_id !== null) byEventId.set(`${row.campaign_id}\n${row.event_id}`, row.id);
        if (row.order_id !== null) byOrderId.set(`${row.campaign_id}\n${row.order_id}`, row.id);
      }

      const conversions: { candidate: Candidate; trackingEventId: number }[] = [];
      const ignored: Candidate[] = [];
      let accepted = 0;
      for (const candidate of candidates) {
        const { campaignId, event, orderId } = candidate;
        // An event with neither key cannot collide, so it was stored.
        const trackingEventId =
          event.event_id !== undefined
            ? byEventId.get(`${campaignId}\n${event.event_id}`)
            : orderId !== undefined
              ? byOrderId.get(`${campaignId}\n${orderId}`)
              : 0;
        if (trackingEventId === undefined) {
          ignored.push(candidate);
          continue;
        }
        accepted++;
        if (orderId !== undefined) conversions.push({ candidate, trackingEventId });
      }

      if (conversions.length > 0) {
        if (!rules) throw new Error('conversions need the campaign rules');
        const reservation = await reserveConversions(
          trx,
          rules.campaignId,
          now,
          conversions.length,
          rules.maxMonthlyConversions,
        );
        if (!reservation.ok) throw new MonthlyLimitReached(reservation.current);
        const created = conversions.map(({ candidate, trackingEventId }) =>
          newConversion(candidate, trackingEventId, rules, now),
        );
        await insertConversions(trx, created);
        // conversion.created webhooks commit with the conversions (docs/webhooks.md).
        await enqueueConversionsCreated(trx, created, now);
      }
      await countIntakeInDailyStats(trx, intakeId);
      return { accepted, skipped: await whyIgnored(trx, ignored) };
    });
  }

  /** A row the insert ignored collided on its event_id or its order_id; ask only when it had both. */
  async function whyIgnored(trx: Trx, ignored: readonly Candidate[]): Promise<Skip[]> {
    const both = ignored.filter((c) => c.event.event_id !== undefined && c.orderId !== undefined);
    const seen = new Map<number, Set<string>>();
    for (const campaignId of new Set(both.map((c) => c.campaignId))) {
      const eventIds = both.filter((c) => c.campaignId === campaignId).map((c) => c.event.event_id ?? '');
      seen.set(campaignId, await existingEventIds(trx, campaignId, eventIds));
    }
    return ignored.map(({ index, campaignId, event, orderId }): Skip => {
      const eventIdTaken =
        event.event_id !== undefined &&
        (orderId === undefined || (seen.get(campaignId)?.has(event.event_id) ?? false));
      return { index, reason: eventIdTaken ? 'duplicate_event_id' : 'duplicate_order_id' };
    });
  }

  return async function intake(events, campaignOf, rules) {
    const now = new Date();
    const { candidates, skipped } = await attribute(events, campaignOf);
    let stored: { accepted: number; skipped: Skip[] };
    try {
      stored = await store(candidates, rules, now);
    } catch (err) {
      if (!(err instanceof MonthlyLimitReached) || !rules || rules.maxMonthlyConversions === null) throw err;
      // spec §7: whole batch refused, nothing stored (the transaction rolled back).
      throw new ForbiddenError(
        MESSAGES.conversionLimit(rules.planName, err.current, rules.maxMonthlyConversions),
      );
    }
    return {
      success: true,
      received: events.length,
      accepted: stored.accepted,
      skipped: [...skipped, ...stored.skipped].sort((a, b) => a.index - b.index),
    };
  };
}
