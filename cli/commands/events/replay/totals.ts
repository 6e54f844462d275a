import { SKIP_REASONS, type SkipReason } from '../../../../shared/schemas/event.js';

/** Running counts of a replay (kept in the checkpoint, so a resumed run reports the whole file). */
export interface Totals {
  /** Non-blank lines handled: every one ends accepted, skipped or rejected. */
  lines: number;
  /** Events sent to the daemon (each counted once, however often it was retried). */
  sent: number;
  accepted: number;
  skipped: Record<SkipReason, number>;
  rejected: number;
}

export function emptyTotals(): Totals {
  const skipped = Object.fromEntries(SKIP_REASONS.map((reason) => [reason, 0])) as Record<SkipReason, number>;
  return { lines: 0, sent: 0, accepted: 0, skipped, rejected: 0 };
}

export const skippedCount = (totals: Totals) => Object.values(totals.skipped).reduce((a, b) => a + b, 0);
