import type { Trx } from '../../db/knex.js';
import { findAffiliatesByReferralKeys, type ReferralTarget } from '../../repositories/events.js';
import type { ClickDecision, ClickDecisions } from './clickAttribution.js';
import type { Candidate, IntakeJob, Skip } from './records.js';

/**
 * Attribution and in-batch dedupe (spec §10.5, §10.7): what is left is what the database
 * is asked to store. Skips are decided in event order, so the first of two duplicates wins.
 */
export function attribute(
  job: IntakeJob,
  affiliates: ReadonlyMap<string, ReferralTarget>,
  clicks: ReadonlyMap<number, ClickDecision> = new Map(),
) {
  const candidates: Candidate[] = [];
  const skipped: Skip[] = [];
  const seenEventIds = new Set<string>();
  const seenOrderIds = new Set<string>();
  job.events.forEach((event, index) => {
    const campaignId = job.campaignIds[index] ?? 0;
    // docs/analytics.md: a click decides before the code, and past its window nobody earns.
    const click = clicks.get(index);
    if (click === 'expired') {
      skipped.push({ index, reason: 'attribution_expired' });
      return;
    }
    const affiliate = affiliates.get(click?.referralKey ?? event.affiliate_id.toUpperCase());
    // Codes are unique across campaigns; another campaign's affiliate is unknown here.
    if (!affiliate || affiliate.campaignId !== campaignId) {
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
    candidates.push({ index, campaignId, target: affiliate, event, orderId, clickId: click?.clickId });
  });
  return { candidates, skipped };
}

/** The affiliates behind every referral code of the flush, in one read. */
export async function referralTargets(
  trx: Trx,
  jobs: readonly IntakeJob[],
  clicks: ClickDecisions,
): Promise<Map<string, ReferralTarget>> {
  const keys = new Set<string>();
  for (const job of jobs) for (const event of job.events) keys.add(event.affiliate_id.toUpperCase());
  for (const decided of clicks.values()) {
    for (const decision of decided.values()) if (decision !== 'expired') keys.add(decision.referralKey);
  }
  const rows = await findAffiliatesByReferralKeys(trx, [...keys]);
  return new Map(rows.map((target) => [target.referralKey, target]));
}
