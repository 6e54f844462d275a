import { randomBytes } from 'node:crypto';
import type { Trx } from '../../db/knex.js';
import { findConversionsByOrderIds } from '../../repositories/conversions.js';
import { addToDailyStats, type StoredEvent } from '../../repositories/dailyStats.js';
import {
  existingEventIds,
  insertConversions,
  insertTrackingEventsIgnoringDuplicates,
  type NewConversion,
  type NewTrackingEvent,
  trackingEventsOfIntake,
} from '../../repositories/events.js';
import { reserveConversions } from '../../repositories/usage.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { attribute, referralTargets } from './attribution.js';
import type { Outcome } from './groupCommit.js';
import { type Candidate, type IntakeJob, newConversion, newTrackingEvent, type Skip } from './records.js';

/** What a request learns from its flush. */
export interface Stored {
  accepted: number;
  skipped: Skip[];
}

/** Thrown inside the transaction so that it (or the request's savepoint) rolls back; answered 403 outside it. */
export class MonthlyLimitReached extends Error {
  constructor(readonly current: number) {
    super('monthly conversion limit reached');
  }
}

/** What a request stored: what the report counters and the webhook outbox are told. */
interface Written {
  events: StoredEvent[];
  conversions: NewConversion[];
}

const newIntakeId = () => randomBytes(12).toString('hex');

const counted = (row: NewTrackingEvent, conversion?: NewConversion): StoredEvent => ({
  campaignId: row.campaignId,
  affiliateId: row.affiliateId,
  eventType: row.event.event_type,
  occurredAt: row.occurredAt,
  orderValueCents: conversion?.orderValueCents ?? null,
  commissionCents: conversion?.commissionCents ?? null,
});

/**
 * Requests without conversions cannot be refused, so theirs go in together: one multi-row
 * insert-ignore, and a read-back only when some event has an event_id (an event with no key
 * cannot collide). Two requests of the flush may carry the same event_id: the insert kept the
 * first in order, so the first request to claim a stored key has it, the other is a duplicate.
 */
async function storeWithoutConversions(
  trx: Trx,
  requests: readonly { job: IntakeJob; candidates: readonly Candidate[] }[],
  written: Written,
): Promise<Stored[]> {
  const intakeId = newIntakeId();
  const rows = requests.flatMap(({ job, candidates }) =>
    candidates.map((candidate) => newTrackingEvent(candidate, intakeId, job.now)),
  );
  if (rows.length > 0) await insertTrackingEventsIgnoringDuplicates(trx, rows);
  const keyed = rows.some((row) => row.event.event_id !== undefined);
  const storedKeys = keyed
    ? new Set(
        (await trackingEventsOfIntake(trx, intakeId))
          .filter((stored) => stored.eventId !== null)
          .map((stored) => `${stored.campaignId}\n${stored.eventId}`),
      )
    : new Set<string>();
  let next = 0;
  return requests.map(({ candidates }) => {
    const stored: Stored = { accepted: 0, skipped: [] };
    for (const candidate of candidates) {
      const row = rows[next++];
      if (!row) throw new Error('rows and candidates out of step');
      const eventId = candidate.event.event_id;
      const key = eventId === undefined ? undefined : `${candidate.campaignId}\n${eventId}`;
      if (key !== undefined && !storedKeys.delete(key)) {
        stored.skipped.push({ index: candidate.index, reason: 'duplicate_event_id' });
        continue;
      }
      stored.accepted++;
      written.events.push(counted(row));
    }
    return stored;
  });
}

/**
 * One request with conversions: a multi-row insert-ignore of its tracking events, one read of
 * what it stored, the month's conversion reservation, a multi-row insert of the conversions.
 * The unique indexes decide every duplicate, so the answer holds under concurrency and across
 * daemons (spec §10.7, §10.8). Throws MonthlyLimitReached when the month has no room.
 */
async function storeWithConversions(
  trx: Trx,
  job: IntakeJob,
  candidates: readonly Candidate[],
): Promise<{ stored: Stored; written: Written }> {
  const { rules, now } = job;
  if (!rules) throw new Error('conversions need the campaign rules');
  const intakeId = newIntakeId();
  const rows = candidates.map((candidate) => newTrackingEvent(candidate, intakeId, now));
  await insertTrackingEventsIgnoringDuplicates(trx, rows);
  const byEventId = new Map<string, number>();
  const byOrderId = new Map<string, number>();
  for (const stored of await trackingEventsOfIntake(trx, intakeId)) {
    if (stored.eventId !== null) byEventId.set(`${stored.campaignId}\n${stored.eventId}`, stored.id);
    if (stored.orderId !== null) byOrderId.set(`${stored.campaignId}\n${stored.orderId}`, stored.id);
  }

  const kept: { row: NewTrackingEvent; conversion?: NewConversion }[] = [];
  const conversions: NewConversion[] = [];
  const ignored: Candidate[] = [];
  candidates.forEach((candidate, i) => {
    const { campaignId, event, orderId } = candidate;
    // An event with neither key cannot collide, so it was stored.
    const trackingEventId =
      event.event_id !== undefined
        ? byEventId.get(`${campaignId}\n${event.event_id}`)
        : orderId !== undefined
          ? byOrderId.get(`${campaignId}\n${orderId}`)
          : 0;
    const row = rows[i];
    if (trackingEventId === undefined || !row) {
      ignored.push(candidate);
      return;
    }
    const conversion = orderId === undefined ? undefined : newConversion(candidate, trackingEventId, rules, now);
    if (conversion) conversions.push(conversion);
    kept.push({ row, conversion });
  });

  if (conversions.length > 0) {
    const reservation = await reserveConversions(
      trx,
      rules.campaignId,
      now,
      conversions.length,
      rules.maxMonthlyConversions,
    );
    if (!reservation.ok) throw new MonthlyLimitReached(reservation.current);
    await insertConversions(trx, conversions);
  }
  return {
    stored: { accepted: kept.length, skipped: await whyIgnored(trx, ignored) },
    written: { events: kept.map(({ row, conversion }) => counted(row, conversion)), conversions },
  };
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
      event.event_id !== undefined && (orderId === undefined || (seen.get(campaignId)?.has(event.event_id) ?? false));
    return { index, reason: eventIdTaken ? 'duplicate_event_id' : 'duplicate_order_id' };
  });
}

/**
 * `conversion.created` for the conversions the flush stored, as the conversions API shows them.
 * Their ids and referral codes take a read, made only for campaigns an endpoint listens to.
 */
async function recordConversionsCreated(
  trx: Trx,
  outbox: WebhookOutbox,
  conversions: readonly NewConversion[],
): Promise<void> {
  if (conversions.length === 0) return;
  const heard = await outbox.listening(
    trx,
    'conversion.created',
    conversions.map((c) => c.campaignId),
  );
  for (const campaignId of heard) {
    const orderIds = conversions.filter((c) => c.campaignId === campaignId).map((c) => c.orderId);
    const stored = await findConversionsByOrderIds(trx, campaignId, orderIds);
    await outbox.record(
      trx,
      stored.map((conversion) => ({ campaignId, type: 'conversion.created', data: conversion })),
    );
  }
}

/**
 * Everything the flush's requests store, in one transaction: one read of their affiliates; the
 * requests without conversions together; each request with conversions on its own, inside a
 * savepoint when it shares the flush, so a request the monthly limit refuses leaves nothing and
 * the others still commit; then the report counters (exactly what was stored) and
 * `conversion.created` in the outbox (docs/webhooks.md), both with the rows they describe.
 * A failure that is no single request's (deadlock, database gone) throws: the caller retries.
 */
export async function storeFlush(
  trx: Trx,
  jobs: readonly IntakeJob[],
  outbox: WebhookOutbox,
): Promise<Outcome<Stored>[]> {
  const affiliates = await referralTargets(trx, jobs);
  const attributed = jobs.map((job) => ({ job, ...attribute(job, affiliates) }));
  const written: Written = { events: [], conversions: [] };
  const withoutConversions = attributed.filter((a) => !a.candidates.some((c) => c.orderId !== undefined));
  const plainResults = await storeWithoutConversions(trx, withoutConversions, written);
  const results = new Map<(typeof attributed)[number], Outcome<Stored>>();
  withoutConversions.forEach((request, i) => {
    results.set(request, { ok: true, value: plainResults[i] ?? { accepted: 0, skipped: [] } });
  });
  const alone = jobs.length === 1;

  // By campaign (stable): every daemon locks the months' usage rows in the same order.
  const withConversions = attributed
    .filter((request) => !results.has(request))
    .sort((a, b) => (a.job.rules?.campaignId ?? 0) - (b.job.rules?.campaignId ?? 0));
  for (const request of withConversions) {
    const { job, candidates } = request;
    try {
      const result = alone
        ? await storeWithConversions(trx, job, candidates)
        : await trx.transaction((savepoint) => storeWithConversions(savepoint, job, candidates));
      written.events.push(...result.written.events);
      written.conversions.push(...result.written.conversions);
      results.set(request, { ok: true, value: result.stored });
    } catch (err) {
      // Alone, the refusal rolls the whole transaction back, as before group commit.
      if (alone || !(err instanceof MonthlyLimitReached)) throw err;
      results.set(request, { ok: false, error: err });
    }
  }

  await addToDailyStats(trx, written.events);
  await recordConversionsCreated(trx, outbox, written.conversions);
  return attributed.map((request): Outcome<Stored> => {
    const outcome = results.get(request);
    if (!outcome) throw new Error('a request of the flush was not written');
    if (!outcome.ok) return outcome;
    const skipped = [...request.skipped, ...outcome.value.skipped].sort((a, b) => a.index - b.index);
    return { ok: true, value: { accepted: outcome.value.accepted, skipped } };
  });
}
