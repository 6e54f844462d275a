import { monthlyRoom } from '../../../problems.js';
import type { BatchEvents } from './body.js';
import { deliver, type Delivery, emptyDelivery, merge } from './deliver.js';
import { StopRun } from './stop.js';
import type { Transport } from './transport.js';

/** How many of `todo`'s events go before the conversion past `left` more: what fits the month. */
function fitting(events: BatchEvents, todo: readonly number[], left: number): number {
  let conversions = 0;
  for (let k = 0; k < todo.length; k++) {
    const index = todo[k] ?? -1;
    if (!events.isConversion(index)) continue;
    if (conversions === left) return k;
    conversions++;
  }
  return todo.length;
}

const roomOf = (err: unknown) =>
  err instanceof StopRun && err.statusCode === 403 ? monthlyRoom(err.messages.join(' ')) : undefined;

/**
 * Sends a batch as `deliver` does; when the plan's monthly conversion limit refuses it (403, the
 * request refused whole: spec §10.8) with slots left, sends the batch's events up to the first
 * conversion past the slots its message names (`Current: 901/1000`: 99), then the rest again
 * (duplicates take no slot, so more may fit), until a refusal leaves nothing that fits. The run
 * then stops at the first event not sent, with the first refusal's words, and the part sent is
 * recorded with it (`StopRun.partial`), so the checkpoint moves up to that line.
 */
export async function deliverWithinLimit(
  events: BatchEvents,
  transport: Transport,
  signal?: AbortSignal,
): Promise<Delivery> {
  /** The batch's events not sent yet, in file order: always the batch's tail. */
  let todo = Array.from({ length: events.count }, (_, k) => k);
  let attempt = todo;
  let sent = emptyDelivery();
  let first: StopRun | undefined;
  const stopWith = (stop: StopRun) => {
    const done = events.count - todo.length;
    if (done > 0) stop.partial = { events: done, delivery: sent };
    return stop;
  };
  for (;;) {
    try {
      const whole = attempt.length === events.count;
      sent = merge(sent, await deliver(events, transport, signal, whole ? undefined : attempt));
      todo = todo.slice(attempt.length);
      if (todo.length === 0) return sent;
      attempt = todo;
    } catch (err) {
      const room = roomOf(err);
      if (!room || !(err instanceof StopRun)) throw err instanceof StopRun ? stopWith(err) : err;
      first ??= err;
      const fits = fitting(events, todo, room.left);
      // Nothing fits, or no fewer than were just refused: another client took the slots.
      if (fits === 0 || fits >= attempt.length) throw stopWith(first);
      attempt = todo.slice(0, fits);
    }
  }
}
