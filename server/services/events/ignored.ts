import { TransactionOvertaken, type Trx } from '../../db/knex.js';
import { heldDedupeKeys, type HeldKeys } from '../../repositories/events.js';
import type { Candidate, Skip } from './records.js';

/** What an event left out of the insert is judged by. */
export type IgnoredEvent = Pick<Candidate, 'index' | 'campaignId' | 'event' | 'orderId'>;

/**
 * Why the insert-ignore left out each of these events: another row holds its event_id, or its
 * order_id (spec §10.7). Every one must still be held, read with a lock until the commit. A
 * row the insert met and that is gone now belonged to a transaction that was rolled back
 * after the insert saw it (seen on a Galera node while another node died: a whole request
 * answered "duplicate" for events nobody stored). The whole flush then runs again
 * (TransactionOvertaken), and stores them.
 */
export async function whyIgnored(trx: Trx, ignored: readonly IgnoredEvent[]): Promise<Skip[]> {
  const held = new Map<number, HeldKeys>();
  for (const campaignId of new Set(ignored.map((c) => c.campaignId))) {
    const ofCampaign = ignored.filter((c) => c.campaignId === campaignId);
    held.set(
      campaignId,
      await heldDedupeKeys(
        trx,
        campaignId,
        ofCampaign.flatMap((c) => (c.event.event_id === undefined ? [] : [c.event.event_id])),
        ofCampaign.flatMap((c) => (c.orderId === undefined ? [] : [c.orderId])),
      ),
    );
  }
  return ignored.map(({ index, campaignId, event, orderId }): Skip => {
    const keys = held.get(campaignId);
    if (event.event_id !== undefined && keys?.eventIds.has(event.event_id)) {
      return { index, reason: 'duplicate_event_id' };
    }
    if (orderId !== undefined && keys?.orderIds.has(orderId)) return { index, reason: 'duplicate_order_id' };
    throw new TransactionOvertaken('a row that kept an event out of the insert is gone');
  });
}
