import { MESSAGES } from '../../shared/errors.js';
import type { ConversionStatus, SettableConversionStatus } from '../../shared/schemas/conversion.js';

export type Judgement = { kind: 'move' } | { kind: 'unchanged' } | { kind: 'conflict'; message: string };

/**
 * spec §10.9, by hand: `pending → approved`, `pending → rejected`, `approved → rejected`
 * while in no payout. Asking for the status a conversion already has changes nothing (200).
 * `paid` comes only through a payout, and a paid conversion leaves it only through a refund.
 * repositories/conversions.ts `whereMayBecome` is the same rule as the SQL of the update.
 */
export function judgeTransition(
  current: { id: number; status: ConversionStatus; payoutId: number | null; sourceConversionId: number | null },
  to: SettableConversionStatus,
): Judgement {
  if (current.status === to) return { kind: 'unchanged' };
  // spec §12.5: a second-tier conversion follows its sale; it never moves on its own.
  if (current.sourceConversionId !== null) {
    return { kind: 'conflict', message: MESSAGES.secondTierConversion(current.id, current.sourceConversionId) };
  }
  if (current.status === 'pending') return { kind: 'move' };
  if (to === 'rejected' && current.status === 'approved') {
    return current.payoutId === null
      ? { kind: 'move' }
      : { kind: 'conflict', message: MESSAGES.conversionInPayout(current.payoutId) };
  }
  if (to === 'rejected' && current.status === 'paid') {
    return { kind: 'conflict', message: MESSAGES.conversionPaid };
  }
  return { kind: 'conflict', message: MESSAGES.illegalTransition('Conversion', current.status, to) };
}
