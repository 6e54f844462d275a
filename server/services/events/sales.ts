import { randomBytes } from 'node:crypto';
import type { Trx } from '../../db/knex.js';
import {
  deleteTrackingEvents,
  insertConversions,
  insertTrackingEventsIgnoringDuplicates,
  type NewConversion,
  type NewTrackingEvent,
  saleIdsByOrder,
  trackingEventsOfIntake,
} from '../../repositories/events.js';
import { reserveConversions } from '../../repositories/usage.js';
import { earn, type Earning, type FlushRules, secondTier } from './commission.js';
import { whyIgnored } from './ignored.js';
import {
  type Candidate,
  counted,
  type IntakeJob,
  MonthlyLimitReached,
  newConversion,
  newTrackingEvent,
  orderValueCents,
  type Skip,
  type Stored,
  type Written,
} from './records.js';
import { customerHash, customerKey, judgePayments } from './recurring.js';

export const newIntakeId = () => randomBytes(12).toString('hex');

/** A stored tracking event of the request, with its sale's earning when it is a conversion. */
interface Kept {
  candidate: Candidate;
  row: NewTrackingEvent;
  trackingEventId: number;
  earning?: Earning;
}

/**
 * The recurring limit (spec §12.4) on the request's sales that name a customer: those past it
 * are dropped (their tracking events too, so a replay is judged again) and reported as
 * `recurring_limit_reached`; the others learn which of their customer's payments they are.
 */
async function applyRecurring(trx: Trx, job: IntakeJob, intakeId: string, kept: Kept[], skipped: Skip[]) {
  const named = kept.flatMap((entry) => {
    const key = entry.earning && customerKey(entry.candidate.event, job.providerCustomers?.get(entry.candidate.index));
    return key === undefined || !entry.earning ? [] : [{ entry, earning: entry.earning, hash: customerHash(key) }];
  });
  if (named.length === 0 || !job.limit) return kept;
  const payments = named.map(({ earning, hash, entry }) => ({
    customerHash: hash,
    occurredAt: entry.row.occurredAt,
    recurring: earning.recurring,
  }));
  const verdicts = await judgePayments(trx, job.limit.campaignId, intakeId, payments, job.now);
  const dropped = new Set<Kept>();
  named.forEach(({ entry, earning }, i) => {
    const verdict = verdicts[i];
    if (!verdict) return;
    if (!verdict.earns) {
      dropped.add(entry);
      skipped.push({ index: entry.candidate.index, reason: 'recurring_limit_reached' });
      return;
    }
    earning.rule = { ...earning.rule, recurring: earning.recurring, paymentNumber: verdict.paymentNumber };
  });
  if (dropped.size === 0) return kept;
  await deleteTrackingEvents(
    trx,
    [...dropped].map((entry) => entry.trackingEventId),
  );
  return kept.filter((entry) => !dropped.has(entry));
}

/** The second-tier conversions of the request's sales (spec §12.5), linked to the sales just stored. */
async function secondTiers(
  trx: Trx,
  rules: FlushRules,
  sales: readonly { candidate: Candidate; sale: NewConversion }[],
) {
  const shares = sales.flatMap(({ candidate, sale }) => {
    const share = secondTier(candidate.target, sale.commissionCents, rules);
    return share ? [{ sale, share }] : [];
  });
  if (shares.length === 0) return;
  const [first] = shares;
  const ids = await saleIdsByOrder(
    trx,
    first?.sale.campaignId ?? 0,
    shares.map(({ sale }) => sale.orderId),
  );
  const tiers = shares.flatMap(({ sale, share }): NewConversion[] => {
    const sourceConversionId = ids.get(sale.orderId);
    if (sourceConversionId === undefined) return [];
    return [
      {
        ...sale,
        affiliateId: share.parentId,
        trackingEventId: null,
        commissionCents: share.commissionCents,
        rule: share.rule,
        flags: [],
        sourceConversionId,
      },
    ];
  });
  await insertConversions(trx, tiers);
}

/**
 * One request with conversions: a multi-row insert-ignore of its tracking events, one read of
 * what it stored, each sale's commission by the flush's rules, the recurring limit, the month's
 * conversion reservation, a multi-row insert of the sales and one of their second-tier
 * conversions. The unique indexes decide every duplicate, so the answer holds under concurrency
 * and across daemons (spec §10.7, §10.8). Throws MonthlyLimitReached when the month has no room.
 */
export async function storeWithConversions(
  trx: Trx,
  job: IntakeJob,
  candidates: readonly Candidate[],
  rules: FlushRules,
): Promise<{ stored: Stored; written: Written }> {
  const { limit, now } = job;
  if (!limit) throw new Error('conversions need the campaign and its monthly limit');
  const intakeId = newIntakeId();
  const rows = candidates.map((candidate) => newTrackingEvent(candidate, intakeId, now));
  await insertTrackingEventsIgnoringDuplicates(trx, rows);
  const byEventId = new Map<string, number>();
  const byOrderId = new Map<string, number>();
  for (const stored of await trackingEventsOfIntake(trx, intakeId)) {
    if (stored.eventId !== null) byEventId.set(`${stored.campaignId}\n${stored.eventId}`, stored.id);
    if (stored.orderId !== null) byOrderId.set(`${stored.campaignId}\n${stored.orderId}`, stored.id);
  }

  let kept: Kept[] = [];
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
    const earning =
      orderId === undefined ? undefined : earn(candidate.target, event, orderValueCents(candidate), rules);
    kept.push({ candidate, row, trackingEventId, earning });
  });

  const skipped = await whyIgnored(trx, ignored);
  kept = await applyRecurring(trx, job, intakeId, kept, skipped);
  const sales = kept.flatMap(({ candidate, trackingEventId, earning }) =>
    earning ? [{ candidate, sale: newConversion(candidate, trackingEventId, earning, now) }] : [],
  );
  const conversions = sales.map(({ sale }) => sale);
  if (conversions.length > 0) {
    const reservation = await reserveConversions(
      trx,
      limit.campaignId,
      now,
      conversions.length,
      limit.maxMonthlyConversions,
    );
    if (!reservation.ok) throw new MonthlyLimitReached(reservation.current);
    await insertConversions(trx, conversions);
    await secondTiers(trx, rules, sales);
  }
  const saleOf = new Map(sales.map(({ candidate, sale }) => [candidate, sale]));
  return {
    stored: { accepted: kept.length, skipped },
    written: { events: kept.map(({ candidate, row }) => counted(row, saleOf.get(candidate))), conversions },
  };
}
