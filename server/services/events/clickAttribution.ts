import type { TrackingEvent } from '../../../shared/schemas/event.js';
import type { Trx } from '../../db/knex.js';
import {
  type ClickForAttribution,
  type CustomerClick,
  findClicksForAttribution,
  findCustomerClicks,
  mergeCustomerClicks,
} from '../../repositories/clicks.js';
import { occurredAt, type IntakeJob } from './records.js';
import { customerHash, customerKey } from './recurring.js';

/** What attribution makes of an event's clicks: the click it counts through, or too late for any. */
export type ClickDecision = { clickId: string; referralKey: string } | 'expired';

/** Per job of the flush, per event index. */
export type ClickDecisions = Map<IntakeJob, Map<number, ClickDecision>>;

const DAY_MS = 86_400_000;

/** The customers an event names: its browser session, and its customer's own id or e-mail (digests). */
function customersOf(event: TrackingEvent): string[] {
  const keys: string[] = [];
  if (event.session_id !== undefined) keys.push(customerHash(`session:${event.session_id}`));
  const customer = customerKey(event);
  if (customer !== undefined) keys.push(customerHash(customer));
  return keys;
}

const weighs = (event: TrackingEvent) => event.event_type !== 'page_view';

/**
 * docs/analytics.md: a lead or sale counts for a click of its customer (the click it names, and
 * the first and last clicks seen with its session or customer) made within the campaign's
 * `cookieDays` before it: the earliest of them under `first_click`, the latest under
 * `last_click`. Clicks that lie outside the window make it `attribution_expired` when it named one
 * itself; otherwise its code decides, as before. A page view counts through the click it names. Every
 * click an event names is remembered with its customers. Two reads and one upsert per flush, and
 * none when no event names a click or a customer.
 */
export async function decideClicks(trx: Trx, jobs: readonly IntakeJob[]): Promise<ClickDecisions> {
  const decisions: ClickDecisions = new Map();
  const customers = new Map<string, { campaignId: number; customerKey: string }>();
  const named = new Set<string>();
  for (const job of jobs) {
    job.events.forEach((event, index) => {
      if (event.click_id !== undefined) named.add(event.click_id);
      if (!weighs(event)) return;
      const campaignId = job.campaignIds[index] ?? 0;
      for (const key of customersOf(event)) customers.set(`${campaignId}\n${key}`, { campaignId, customerKey: key });
    });
  }
  if (named.size === 0 && customers.size === 0) return decisions;
  const remembered = customers.size === 0 ? new Map() : await findCustomerClicks(trx, [...customers.values()]);
  const ids = new Set(named);
  for (const { first, last } of remembered.values()) ids.add(first).add(last);
  if (ids.size === 0) return decisions;
  const clicks = new Map((await findClicksForAttribution(trx, [...ids])).map((click) => [click.id, click]));

  const seen: CustomerClick[] = [];
  for (const job of jobs) {
    const decided = new Map<number, ClickDecision>();
    job.events.forEach((event, index) => {
      const campaignId = job.campaignIds[index] ?? 0;
      const keys = customersOf(event);
      const own = event.click_id === undefined ? undefined : clicks.get(event.click_id);
      const ownClick = own?.campaignId === campaignId ? own : undefined;
      if (ownClick) for (const key of keys) seen.push({ campaignId, customerKey: key, clickId: ownClick.id });
      if (!weighs(event)) {
        if (ownClick) decided.set(index, { clickId: ownClick.id, referralKey: ownClick.referralKey });
        return;
      }
      const candidates: ClickForAttribution[] = ownClick ? [ownClick] : [];
      for (const key of keys) {
        const known = remembered.get(`${campaignId}\n${key}`);
        for (const id of known ? [known.first, known.last] : []) {
          const click = clicks.get(id);
          if (click?.campaignId === campaignId) candidates.push(click);
        }
      }
      if (candidates.length === 0) return;
      const at = occurredAt(event, job.now).getTime();
      const inWindow = candidates.filter((click) => at - click.createdAt.getTime() <= click.cookieDays * DAY_MS);
      if (inWindow.length === 0) {
        // Old clicks remembered with the customer do not outweigh a code that came on its own.
        if (ownClick) decided.set(index, 'expired');
        return;
      }
      const sorted = inWindow.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const chosen = (sorted[0]?.model === 'first_click' ? sorted[0] : sorted.at(-1)) ?? sorted[0];
      if (chosen) decided.set(index, { clickId: chosen.id, referralKey: chosen.referralKey });
    });
    if (decided.size > 0) decisions.set(job, decided);
  }
  await mergeCustomerClicks(trx, seen);
  return decisions;
}
