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
/** The keys an ignored event is judged by, in order: its event_id first, then its order_id. */
const KEYS = [
  { key: 'event_id', of: (c: IgnoredEvent) => c.event.event_id, reason: 'duplicate_event_id' },
  { key: 'order_id', of: (c: IgnoredEvent) => c.orderId, reason: 'duplicate_order_id' },
] as const;

export async function whyIgnored(trx: Trx, ignored: readonly IgnoredEvent[]): Promise<Skip[]> {
  const reasons = new Map<IgnoredEvent, Skip['reason']>();
  for (const campaignId of new Set(ignored.map((c) => c.campaignId))) {
    for (const { key, of, reason } of KEYS) {
      // Only an event no earlier key explains is asked about by the next.
      const open = ignored.filter((c) => c.campaignId === campaignId && !reasons.has(c));
      const held = await heldDedupeKeys(
        trx,
        campaignId,
        key,
        open.flatMap((c) => of(c) ?? []),
      );
      for (const c of open) {
        const id = of(c);
        if (id !== undefined && held.has(id)) reasons.set(c, reason);
      }
    }
  }
  return ignored.map((c): Skip => {
    const reason = reasons.get(c);
    if (reason === undefined) throw new TransactionOvertaken('a row that kept an event out of the insert is gone');
    return { index: c.index, reason };
  });
}
