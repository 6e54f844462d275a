import { z } from 'zod';
import { toCents } from '../money.js';

/** Largest order value we accept, so that centavos stay exact integers. */
export const MAX_ORDER_VALUE = 10_000_000_000;
/** The smallest order value worth one centavo once rounded half up as written (shared/money.ts). */
export const MIN_ORDER_VALUE = 0.005;

/** spec §4.6.6 fixes this text for a string, 0 or a negative; a more precise entry may follow it. */
export const POSITIVE = 'must be a positive number';
export const ORDER_VALUE_MESSAGES = Object.freeze({
  positive: POSITIVE,
  belowOneCentavo: `must be at least one centavo (0.01; ${MIN_ORDER_VALUE} and above round up to it)`,
  tooLarge: `must not be greater than ${MAX_ORDER_VALUE}`,
  notANumber: (input: unknown) => `must be a JSON number, not ${kindOf(input)}`,
});

function kindOf(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  if (typeof input === 'object') return 'an object';
  return `a ${typeof input}`;
}

/**
 * spec §2.2: positive, at least one centavo once rounded. Every value reaches the
 * check (not only numbers), so each failure names its own rule: the spec's text for a value that
 * is not positive, then what exactly is wrong with one that is not even a number.
 */
function checkOrderValue(value: unknown, ctx: z.RefinementCtx): void {
  const fail = (message: string) => ctx.addIssue({ code: 'custom', message, input: value });
  if (typeof value !== 'number') {
    fail(POSITIVE);
    fail(ORDER_VALUE_MESSAGES.notANumber(value));
  } else if (Number.isNaN(value) || value <= 0) {
    fail(POSITIVE);
  } else if (value > MAX_ORDER_VALUE || !Number.isFinite(value)) {
    fail(ORDER_VALUE_MESSAGES.tooLarge);
  } else if (value < 1 && toCents(value) < 1) {
    fail(ORDER_VALUE_MESSAGES.belowOneCentavo);
  }
}

export const orderValue = z
  .custom<number>()
  .superRefine(checkOrderValue)
  // What the check enforces, for the document (zod cannot derive it from a custom check).
  .meta({
    type: 'number',
    exclusiveMinimum: 0,
    minimum: MIN_ORDER_VALUE,
    maximum: MAX_ORDER_VALUE,
    description: `Sale value in the campaign's currency (reais by default): positive, at least one centavo once rounded half up (${MIN_ORDER_VALUE} is 0.01), at most ${MAX_ORDER_VALUE}`,
  });
