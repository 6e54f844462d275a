import { randomBytes } from 'node:crypto';
import { MESSAGES } from '../../shared/errors.js';
import {
  CAMPAIGN_MISMATCH,
  CAMPAIGN_UNKNOWN,
  type EventsResponse,
  eventsRequestSchemaFor,
  MAX_EVENTS_PER_REQUEST,
  type SkipReason,
  type TrackingEvent,
} from '../../shared/schemas/event.js';
import { parseWith } from '../../shared/schemas/validation.js';
import { type Db, inTransaction, type Trx } from '../db/knex.js';
import { moneyToCents } from '../db/rows.js';
import { ForbiddenError, ValidationError } from '../errors.js';
import {
  type ConversionInsert,
  existingEventIds,
  findAffiliatesByReferralKeys,
  findCampaignIdsByPublicIds,
  insertConversions,
  insertTrackingEventsIgnoringDuplicates,
  type TrackingEventInsert,
  trackingEventsOfIntake,
} from '../repositories/events.js';
import { ensureMonthlyUsage, monthKey, reserveConversions } from '../repositories/usage.js';
import type { AuthenticatedCampaign } from './auth.js';

export interface EventService {
  /** `POST /v1/events` (spec 4.6): events of the key's campaign. */
  track(auth: AuthenticatedCampaign, body: unknown): Promise<EventsResponse>;
  /** `POST /v1/sdk/events` (product §3.11): page views and leads from browsers, no key. */
  trackFromBrowser(body: unknown): Promise<EventsResponse>;
}

/** The campaign rule of product §2, as stored: percent in hundredths of a percent, fixed in centavos. */
interface ConversionRules {
  campaignId: number;
  planName: string;
  maxMonthlyConversions: number | null;
  commissionType: 'percent' | 'fixed';
  commissionValue: number;
}

interface Candidate {
  index: number;
  campaignId: number;
  affiliateId: number;
  event: TrackingEvent;
  /** Set for conversions only: the order_id dedupe key (product §3.7). */
  orderId: string | undefined;
}

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

/** Campaign public ids never change, so a found one may be remembered (issue 4: cache what is safe). */
const CAMPAIGN_CACHE_MS = 60_000;
const CACHE_ENTRIES = 1_000;

export function commissionCents(orderValueCents: number, rules: ConversionRules): number {
  if (rules.commissionType === 'fixed') return rules.commissionValue;
  // Exact integer arithmetic, half up: order values reach 10^12 centavos, past 2^53 once multiplied.
  const scaled = BigInt(orderValueCents) * BigInt(rules.commissionValue);
  return Number((scaled + 5_000n) / 10_000n);
}

/**
 * Event intake. One `now` per request: it stamps the rows and picks the calendar month (UTC)
 * whose conversion counter the batch reserves from (product §3.8).
 */
export function eventService(db: Db): EventService {
  const schemas = new Map<string, ReturnType<typeof eventsRequestSchemaFor>>();
  const campaignIds = new Map<string, { id: number; expires: number }>();
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
    if (usageRows.size >= CACHE_ENTRIES) usageRows.clear();
    usageRows.set(campaignId, month);
  }

  /** Building a zod schema costs more than parsing one small batch, so one is kept per campaign set. */
  function schemaAccepting(publicIds: readonly string[], message: string) {
    const cacheKey = `${message}\n${publicIds.join('\n')}`;
    let schema = schemas.get(cacheKey);
    if (!schema) {
      const accepted = new Set(publicIds);
      schema = eventsRequestSchemaFor((campaignId) => accepted.has(campaignId), message);
      if (schemas.size >= CACHE_ENTRIES) schemas.clear();
      schemas.set(cacheKey, schema);
    }
    return schema;
  }

  function validate(publicIds: readonly string[], message: string, body: unknown): TrackingEvent[] {
    const result = parseWith(schemaAccepting(publicIds, message), body);
    // product §3.6: one invalid event refuses the whole batch, naming every failure.
    if (!result.ok) throw new ValidationError(result.messages);
    return result.data.events;
  }

  async function resolveCampaigns(
    publicIds: readonly string[],
    now = Date.now(),
  ): Promise<Map<string, number>> {
    const known = new Map<string, number>();
    const missing: string[] = [];
    for (const publicId of publicIds) {
      const cached = campaignIds.get(publicId);
      if (cached && cached.expires > now) known.set(publicId, cached.id);
      else missing.push(publicId);
    }
    if (missing.length > 0) {
      const found = await findCampaignIdsByPublicIds(db, missing);
      if (campaignIds.size + found.size > CACHE_ENTRIES) campaignIds.clear();
      for (const [publicId, id] of found) {
        known.set(publicId, id);
        campaignIds.set(publicId, { id, expires: now + CAMPAIGN_CACHE_MS });
      }
    }
    return known;
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
    const intakeId = randomBytes(12).toString('hex');
    if (rules && candidates.some((candidate) => candidate.orderId !== undefined)) {
      await ensureUsageRow(rules.campaignId, now);
    }
    const rows: TrackingEventInsert[] = candidates.map(({ campaignId, affiliateId, event, orderId }) => ({
      campaign_id: campaignId,
      affiliate_id: affiliateId,
      event_type: event.event_type,
      event_id: event.event_id ?? null,
      order_id: orderId ?? null,
      session_id: event.session_id ?? null,
      properties: event.properties === undefined ? null : JSON.stringify(event.properties),
      device_info: event.device_info === undefined ? null : JSON.stringify(event.device_info),
      intake_id: intakeId,
      occurred_at: occurredAt(event, now),
      created_at: now,
    }));

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
        await insertConversions(
          trx,
          conversions.map(({ candidate, trackingEventId }) =>
            toConversion(candidate, trackingEventId, rules, now),
          ),
        );
      }
      return { accepted, skipped: await whyIgnored(trx, ignored) };
    });
  }

  /** A row the insert ignored collided on its event_id or its order_id; ask only when it had both. */
  async function whyIgnored(trx: Trx, ignored: readonly Candidate[]) {
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

  async function intake(
    events: readonly TrackingEvent[],
    campaignOf: (event: TrackingEvent) => number,
    rules: ConversionRules | undefined,
  ): Promise<EventsResponse> {
    const now = new Date();
    const { candidates, skipped } = await attribute(events, campaignOf);
    let stored: { accepted: number; skipped: Skip[] };
    try {
      stored = await store(candidates, rules, now);
    } catch (err) {
      if (!(err instanceof MonthlyLimitReached) || !rules || rules.maxMonthlyConversions === null) throw err;
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
  }

  return {
    async track(auth, body) {
      const events = validate([auth.publicId], CAMPAIGN_MISMATCH, body);
      return intake(events, () => auth.campaignId, {
        campaignId: auth.campaignId,
        planName: auth.planName,
        maxMonthlyConversions: auth.maxMonthlyConversions,
        commissionType: auth.commissionType,
        commissionValue: auth.commissionValue,
      });
    },

    async trackFromBrowser(body) {
      const raw = rawEvents(body);
      // product §3.11: sales are reported by the merchant's backend, whatever else the body holds.
      if (raw.some((event) => fieldOf(event, 'event_type') === 'conversion')) {
        throw new ForbiddenError(MESSAGES.sdkConversionForbidden);
      }
      const named = new Set<string>();
      for (const event of raw) {
        const publicId = fieldOf(event, 'campaign_id');
        if (typeof publicId === 'string' && publicId.length > 0 && publicId.length <= 64) named.add(publicId);
      }
      const known = await resolveCampaigns([...named].sort());
      const events = validate([...known.keys()].sort(), CAMPAIGN_UNKNOWN, body);
      return intake(events, (event) => known.get(event.campaign_id) ?? 0, undefined);
    },
  };
}

/** The `events` array of a body not validated yet; too long an array is left to validation. */
function rawEvents(body: unknown): unknown[] {
  if (typeof body !== 'object' || body === null || !('events' in body)) return [];
  const { events } = body;
  return Array.isArray(events) && events.length <= MAX_EVENTS_PER_REQUEST ? events : [];
}

function fieldOf(event: unknown, field: string): unknown {
  return typeof event === 'object' && event !== null ? (event as Record<string, unknown>)[field] : undefined;
}

/** product §2: a conversion occurred at its `timestamp`, else when it was received. */
function occurredAt(event: TrackingEvent, now: Date): Date {
  const timestamp = event.properties?.timestamp;
  return timestamp === undefined ? now : new Date(timestamp);
}

function toConversion(
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
    commission_cents: commissionCents(orderValueCents, rules),
    // spec 4.6.4: an accepted conversion starts pending.
    status: 'pending',
    payout_id: null,
    properties: event.properties === undefined ? null : JSON.stringify(event.properties),
    occurred_at: occurredAt(event, now),
    created_at: now,
    updated_at: now,
  };
}
