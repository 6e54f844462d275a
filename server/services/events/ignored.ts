import { TransactionOvertaken, type Trx } from '../../db/knex.js';
import { heldDedupeKeys } from '../../repositories/events.js';
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
  const reasons = new Map<IgnoredEvent, Skip['reason']>();
  for (const campaignId of new Set(ignored.map((c) => c.campaignId))) {
    const ofCampaign = ignored.filter((c) => c.campaignId === campaignId);
    const eventIds = await heldDedupeKeys(
      trx,
      campaignId,
      'event_id',
      idsOf(ofCampaign, (c) => c.event.event_id),
    );
    for (const c of ofCampaign) {
      if (c.event.event_id !== undefined && eventIds.has(c.event.event_id)) reasons.set(c, 'duplicate_event_id');
    }
    // Only an event whose event_id no row holds can have been kept out by its order_id.
    const rest = ofCampaign.filter((c) => !reasons.has(c));
    const orderIds = await heldDedupeKeys(
      trx,
      campaignId,
      'order_id',
      idsOf(rest, (c) => c.orderId),
    );
    for (const c of rest) {
      if (c.orderId !== undefined && orderIds.has(c.orderId)) reasons.set(c, 'duplicate_order_id');
    }
  }
  return ignored.map((c): Skip => {
    const reason = reasons.get(c);
    if (reason === undefined) throw new TransactionOvertaken('a row that kept an event out of the insert is gone');
    return { index: c.index, reason };
  });
}

function idsOf(events: readonly IgnoredEvent[], id: (c: IgnoredEvent) => string | undefined): string[] {
  return events.flatMap((c) => {
    const value = id(c);
    return value === undefined ? [] : [value];
  });
}
