import { ApiError } from '../../../../shared/client/index.js';
import type { SkipReason } from '../../../../shared/schemas/event.js';
import type { Transport } from './transport.js';

export interface PendingEvent {
  line: number;
  event: object;
  /** The line as written, for the rejects file should the server refuse it. */
  raw?: string;
}

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

function merge(a: Delivery, b: Delivery): Delivery {
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
 * Sends one batch. The server refuses a batch whole when any event breaks a rule (spec
 * §10.6), so a 400 is taken apart: events its messages name by index are rejected with those
 * messages and the rest is sent again; when the messages name no index (or a body is too
 * large, 413), the batch is split in halves until the bad lines stand alone.
 */
export async function deliver(
  items: readonly PendingEvent[],
  transport: Transport,
  signal?: AbortSignal,
): Promise<Delivery> {
  if (items.length === 0) return emptyDelivery();
  try {
    const answer = await transport.post(
      items.map((item) => item.event),
      signal,
    );
    const skipped = answer.skipped.map((skip) => ({
      line: items[skip.index]?.line ?? 0,
      reason: skip.reason,
    }));
    return { accepted: answer.accepted, skipped, rejected: [] };
  } catch (err) {
    if (!(err instanceof ApiError) || (err.statusCode !== 400 && err.statusCode !== 413)) throw err;
    if (items.length === 1) {
      const only = items[0] as PendingEvent;
      const reasons =
        err.statusCode === 413
          ? ['event is larger than the daemon accepts in one request']
          : err.messages.map((m) => splitIndexedMessage(m)?.reason ?? m);
      return { accepted: 0, skipped: [], rejected: [{ line: only.line, reasons }] };
    }
    if (err.statusCode === 400) {
      const named = namedRejections(items, err.messages);
      if (named) {
        const rest = items.filter((_, index) => !named.has(index));
        const rejected = [...named].map(([index, reasons]) => ({ line: items[index]?.line ?? 0, reasons }));
        return merge({ accepted: 0, skipped: [], rejected }, await deliver(rest, transport, signal));
      }
    }
    const middle = Math.ceil(items.length / 2);
    const first = await deliver(items.slice(0, middle), transport, signal);
    return merge(first, await deliver(items.slice(middle), transport, signal));
  }
}

/** Every message must name an event of this batch; otherwise the messages are not trusted for splitting. */
function namedRejections(items: readonly PendingEvent[], messages: string[]): Map<number, string[]> | undefined {
  const byIndex = new Map<number, string[]>();
  for (const message of messages) {
    const split = splitIndexedMessage(message);
    if (!split || split.index >= items.length) return undefined;
    byIndex.set(split.index, [...(byIndex.get(split.index) ?? []), split.reason]);
  }
  return byIndex.size > 0 ? byIndex : undefined;
}
