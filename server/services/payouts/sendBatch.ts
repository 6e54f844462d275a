import { createHash } from 'node:crypto';
import type { LeasedItem } from '../../jobs/queue.js';
import { type ClaimedSend, claimSends, heldSends, joinBatch } from '../../repositories/payoutSends.js';
import type { Db } from '../../db/knex.js';

/**
 * What one attempt of the send queue carries (docs/payouts-providers.md#paypal): PayPal payouts
 * due together for one campaign leave as one batch, one `POST /v1/payments/payouts`; a Pix or a
 * Stripe payout leaves alone. The sends of a batch share one lease, so no other daemon holds any
 * of them while it is in flight.
 */
export interface SendWork extends LeasedItem {
  sends: ClaimedSend[];
}

/**
 * The PayPal batch a send left in: the one written before its call, or, for a send called by a
 * daemon that sent one payout a batch, its own reference; null when no call has carried it yet.
 */
export function batchOf(send: ClaimedSend): string | null {
  if (send.batchReference !== null) return send.batchReference;
  return send.calledAt === null ? null : send.reference;
}

/**
 * A new batch's `sender_batch_id`, derived from what is in it: a batch of one is its payout's
 * reference; a larger one a digest of its references, so the same sends always make the same id.
 * It is written on each send before the call, so a retry carries it again whatever is due then.
 */
export function batchReferenceOf(sends: readonly ClaimedSend[]): string {
  const stored = sends.map(batchOf).find((reference) => reference !== null);
  if (stored) return stored;
  if (sends.length === 1 && sends[0]) return sends[0].reference;
  const digest = createHash('sha256');
  for (const reference of sends.map((send) => send.reference).sort()) digest.update(`${reference}\n`);
  return `aff-batch-${digest.digest('hex').slice(0, 40)}`;
}

/**
 * Claims the due sends `ids` and, under the same lease, what leaves with their PayPal ones: the
 * rest of a batch already sent (it goes again whole), or up to `batchMax` due PayPal sends of
 * the campaign that no call has carried. Answers the work: one item a batch or a payout.
 */
export async function claimWork(
  db: Db,
  ids: readonly number[],
  options: { now: Date; leaseMs: number; batchMax: number },
): Promise<SendWork[]> {
  const claimed = await claimSends(db, ids, options);
  if (!claimed) return [];
  const { token } = claimed;
  let joined = 0;
  const asked = new Set<string>();
  for (const send of claimed.sends) {
    if (send.rail !== 'paypal') continue;
    const batchReference = batchOf(send);
    const key = `${send.campaignId}:${batchReference ?? ''}`;
    if (asked.has(key)) continue;
    asked.add(key);
    const fresh = claimed.sends.filter(
      (other) => other.rail === 'paypal' && other.campaignId === send.campaignId && batchOf(other) === null,
    ).length;
    // A batch sent by an older daemon is its one payout: nothing joins it.
    if (batchReference !== null && send.batchReference === null) continue;
    const limit = batchReference === null ? options.batchMax - fresh : 0;
    joined += await joinBatch(db, token, { campaignId: send.campaignId, batchReference }, { ...options, limit });
  }
  return workOf(joined > 0 ? await heldSends(db, token) : claimed.sends, options.batchMax);
}

/** Groups claimed sends: PayPal ones by batch (new ones by campaign, `batchMax` at most), the others alone. */
export function workOf(sends: readonly ClaimedSend[], batchMax: number): SendWork[] {
  const groups = new Map<string, ClaimedSend[]>();
  const work: ClaimedSend[][] = [];
  for (const send of sends) {
    if (send.rail !== 'paypal') {
      work.push([send]);
      continue;
    }
    const key = `${send.campaignId}:${batchOf(send) ?? ''}`;
    const group = groups.get(key) ?? [];
    groups.set(key, group);
    group.push(send);
  }
  for (const [key, group] of groups) {
    if (!key.endsWith(':')) work.push(group);
    else for (let i = 0; i < group.length; i += batchMax) work.push(group.slice(i, i + batchMax));
  }
  return work.flatMap((group) => {
    const [head] = group;
    return head ? [{ id: head.id, leaseToken: head.leaseToken, attemptCount: head.attemptCount, sends: group }] : [];
  });
}
