import { ApiError } from '../../../../shared/client/index.js';
import type { SkipReason } from '../../../../shared/schemas/event.js';
import type { BatchEvents } from './body.js';
import type { Transport } from './transport.js';

export interface Rejection {
  line: number;
  reasons: string[];
}

export interface Delivery {
  accepted: number;
  skipped: { line: number; reason: SkipReason }[];
  rejected: Rejection[];
}

/** What a batch with nothing to send comes back with. */
export const emptyDelivery = (): Delivery => ({ accepted: 0, skipped: [], rejected: [] });

export function merge(a: Delivery, b: Delivery): Delivery {
  return {
    accepted: a.accepted + b.accepted,
    skipped: [...a.skipped, ...b.skipped],
    rejected: [...a.rejected, ...b.rejected],
  };
}

const INDEXED = /\bevents\.(\d+)(?:\.|\s|$)/;

/** `events.3.properties.order_value must be ...` → index 3, `properties.order_value must be ...`. */
export function splitIndexedMessage(message: string): { index: number; reason: string } | undefined {
  const match = INDEXED.exec(message);
  if (!match?.[1]) return undefined;
  const reason = `${message.slice(0, match.index)}${message.slice(match.index + match[0].length)}`.trim();
  return { index: Number(match[1]), reason: reason.replace(/\s{2,}/g, ' ') };
}

/**
 * Sends one batch (its events at `indices`, or all of them). The server refuses a batch whole
 * when any event breaks a rule (spec §10.6), so a 400 is taken apart: events its messages name
 * by index are rejected with those messages and the rest is sent again; when the messages name
 * no index (or a body is too large, 413), the batch is split in halves until the bad lines
 * stand alone.
 */
export async function deliver(
  events: BatchEvents,
  transport: Transport,
  signal?: AbortSignal,
  indices?: readonly number[],
): Promise<Delivery> {
  const count = indices?.length ?? events.count;
  if (count === 0) return emptyDelivery();
  /** The batch's index of the k-th event sent. */
  const at = (k: number) => (indices ? (indices[k] ?? -1) : k);
  try {
    const answer = await transport.post(events.body(indices), signal);
    const skipped = answer.skipped.map((skip) => ({ line: events.lineOf(at(skip.index)), reason: skip.reason }));
    return { accepted: answer.accepted, skipped, rejected: [] };
  } catch (err) {
    if (!(err instanceof ApiError) || (err.statusCode !== 400 && err.statusCode !== 413)) throw err;
    if (count === 1) {
      const reasons =
        err.statusCode === 413
          ? ['event is larger than the daemon accepts in one request']
          : err.messages.map((m) => splitIndexedMessage(m)?.reason ?? m);
      return { accepted: 0, skipped: [], rejected: [{ line: events.lineOf(at(0)), reasons }] };
    }
    const sent = Array.from({ length: count }, (_, k) => at(k));
    if (err.statusCode === 400) {
      const named = namedRejections(count, err.messages);
      if (named) {
        const rest = sent.filter((_, k) => !named.has(k));
        const rejected = [...named].map(([k, reasons]) => ({ line: events.lineOf(at(k)), reasons }));
        return merge({ accepted: 0, skipped: [], rejected }, await deliver(events, transport, signal, rest));
      }
    }
    const middle = Math.ceil(count / 2);
    const first = await deliver(events, transport, signal, sent.slice(0, middle));
    return merge(first, await deliver(events, transport, signal, sent.slice(middle)));
  }
}

/** Every message must name an event of this request; otherwise the messages are not trusted for splitting. */
function namedRejections(count: number, messages: string[]): Map<number, string[]> | undefined {
  const byIndex = new Map<number, string[]>();
  for (const message of messages) {
    const split = splitIndexedMessage(message);
    if (!split || split.index >= count) return undefined;
    byIndex.set(split.index, [...(byIndex.get(split.index) ?? []), split.reason]);
  }
  return byIndex.size > 0 ? byIndex : undefined;
}
