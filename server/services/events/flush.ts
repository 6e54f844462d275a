import type { Trx } from '../../db/knex.js';
import { campaignRules } from '../../repositories/campaigns.js';
import { findConversionsByOrderIds } from '../../repositories/conversions.js';
import { addToRollup, type RollupFact } from '../../repositories/analytics.js';
import { addToDailyStats, type StoredEvent } from '../../repositories/dailyStats.js';
import {
  insertTrackingEventsIgnoringDuplicates,
  type NewConversion,
  trackingEventsOfIntake,
} from '../../repositories/events.js';
import { groupRules } from '../../repositories/groups.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { attribute, referralTargets } from './attribution.js';
import { decideClicks } from './clickAttribution.js';
import type { FlushRules } from './commission.js';
import type { Outcome } from './groupCommit.js';
import {
  type Candidate,
  counted,
  type IntakeJob,
  MonthlyLimitReached,
  newTrackingEvent,
  type Stored,
  type Written,
} from './records.js';
import { whyIgnored } from './ignored.js';
import { newIntakeId, storeWithConversions } from './sales.js';

export { MonthlyLimitReached, type Stored } from './records.js';

/**
 * Requests without conversions cannot be refused, so theirs go in together: one multi-row
 * insert-ignore, and a read-back only when some event has an event_id (an event with no key
 * cannot collide). Two requests of the flush may carry the same event_id: the insert kept the
 * first in order, so the first request to claim a stored key has it, the other is a duplicate.
 * Every event left out is checked against the row that holds its key (whyIgnored).
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
  const results = requests.map(({ candidates }) => {
    const stored: Stored = { accepted: 0, skipped: [] };
    const ignored: Candidate[] = [];
    for (const candidate of candidates) {
      const row = rows[next++];
      if (!row) throw new Error('rows and candidates out of step');
      const eventId = candidate.event.event_id;
      const key = eventId === undefined ? undefined : `${candidate.campaignId}\n${eventId}`;
      if (key !== undefined && !storedKeys.delete(key)) {
        ignored.push(candidate);
        continue;
      }
      stored.accepted++;
      written.events.push(counted(row));
    }
    return { stored, ignored };
  });
  const reasons = await whyIgnored(
    trx,
    results.flatMap(({ ignored }) => ignored),
  );
  let skip = 0;
  return results.map(({ stored, ignored }) => {
    stored.skipped.push(...reasons.slice(skip, (skip += ignored.length)));
    return stored;
  });
}

/**
 * The commission rules of the flush's sales (spec §12): their campaigns' and the groups of their
 * affiliates and parents, two reads inside the flush's transaction, whatever the number of
 * events; none when no request carries a conversion. Read afresh each flush, never cached, so a
 * rule changed on one daemon applies to the next conversion on every daemon.
 */
async function rulesOf(trx: Trx, candidates: readonly Candidate[]): Promise<FlushRules> {
  const sales = candidates.filter((candidate) => candidate.orderId !== undefined);
  if (sales.length === 0) return { campaigns: new Map(), groups: new Map() };
  const groupIds = new Set<number>();
  for (const { target } of sales) {
    if (target.groupId !== null) groupIds.add(target.groupId);
    if (target.parent?.groupId != null) groupIds.add(target.parent.groupId);
  }
  return {
    campaigns: await campaignRules(trx, [...new Set(sales.map((sale) => sale.campaignId))]),
    groups: groupIds.size === 0 ? new Map() : await groupRules(trx, [...groupIds]),
  };
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

const NO_DIMENSIONS = { device: '', country: '', referrer: '', utm_source: '' };

/** An event as the analytics rollup counts it (docs/analytics.md): as the daily counters do. */
function rollupFact(event: StoredEvent): RollupFact {
  const sale = event.eventType === 'conversion' && event.commissionCents !== null;
  return {
    campaignId: event.campaignId,
    affiliateId: event.affiliateId,
    at: event.occurredAt,
    dimensions: NO_DIMENSIONS,
    counts:
      event.eventType === 'page_view'
        ? { page_views: 1 }
        : event.eventType === 'lead'
          ? { leads: 1 }
          : sale
            ? {
                conversions: 1,
                revenue_cents: event.orderValueCents ?? 0,
                commission_cents: event.commissionCents ?? 0,
              }
            : {},
  };
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
  rollups: boolean,
): Promise<Outcome<Stored>[]> {
  const clicks = await decideClicks(trx, jobs);
  const affiliates = await referralTargets(trx, jobs, clicks);
  const attributed = jobs.map((job) => ({ job, ...attribute(job, affiliates, clicks.get(job)) }));
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
    .sort((a, b) => (a.job.limit?.campaignId ?? 0) - (b.job.limit?.campaignId ?? 0));
  const rules = await rulesOf(
    trx,
    withConversions.flatMap(({ candidates }) => candidates),
  );
  for (const request of withConversions) {
    const { job, candidates } = request;
    try {
      const result = alone
        ? await storeWithConversions(trx, job, candidates, rules)
        : await trx.transaction((savepoint) => storeWithConversions(savepoint, job, candidates, rules));
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
  if (rollups) await addToRollup(trx, written.events.map(rollupFact));
  await recordConversionsCreated(trx, outbox, written.conversions);
  return attributed.map((request): Outcome<Stored> => {
    const outcome = results.get(request);
    if (!outcome) throw new Error('a request of the flush was not written');
    if (!outcome.ok) return outcome;
    const skipped = [...request.skipped, ...outcome.value.skipped].sort((a, b) => a.index - b.index);
    return { ok: true, value: { accepted: outcome.value.accepted, skipped } };
  });
}
