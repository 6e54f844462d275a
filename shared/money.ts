/**
 * Money is BRL held as integer centavos (spec §11). Amounts arrive as JSON numbers or CLI
 * text; they are rounded to the centavo half up *as written in decimal*: `1.045` is 1.05 and
 * `1.005` is 1.01, although the doubles nearest to them lie below (`(1.045).toFixed(2)` is
 * `1.04`, `Math.round(1.005 * 100)` is 100).
 */

/** `1e-7`, `12.345`, `-3`: what `String(number)` and a person may write. */
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/**
 * Decimal text → hundredths, half away from zero; undefined when it is not a finite number.
 * BigInt arithmetic, so no digit is lost however long the text.
 */
export function decimalTextToHundredths(text: string): number | undefined {
  const match = DECIMAL.exec(text.trim());
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  if (whole === '' && fraction === '') return undefined;
  const digits = BigInt(`${whole}${fraction}` || '0');
  // value = digits × 10^exponent; hundredths = digits × 10^(exponent + 2).
  const shift = Number(exponentText) - fraction.length + 2;
  let magnitude: bigint;
  if (shift >= 0) {
    if (shift > 40) return undefined;
    magnitude = digits * 10n ** BigInt(shift);
  } else {
    const divisor = 10n ** BigInt(-shift);
    magnitude = (digits + divisor / 2n) / divisor;
  }
  const hundredths = Number(sign === '-' ? -magnitude : magnitude);
  return Number.isSafeInteger(hundredths) ? hundredths : undefined;
}

/** A JSON number of reais → centavos, half up as written (`String(n)` is the shortest round-trip text). */
export function toCents(amount: number): number {
  const cents = Number.isFinite(amount) ? decimalTextToHundredths(String(amount)) : undefined;
  if (cents === undefined) throw new RangeError(`${amount} is not an amount of money`);
  return cents;
}

/** Integer centavos → BRL as a JSON number (`1250` → `12.5`): exact, an integer divided by 100. */
export function fromCents(cents: number | string | null | undefined): number {
  return Number(cents ?? 0) / 100;
}

/** `1250` → `"12.50"`: for tables and CSV, without a float in between. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * `round_half_up(cents × numerator / denominator)` for whole non-negative numbers, exactly
 * (BigInt: the product passes 2^53 for large orders). A commission's share of a refunded order,
 * a percent of a commission (`denominator` 10,000 for hundredths of a percent).
 */
export function shareOf(cents: number, numerator: number, denominator: number): number {
  if (denominator <= 0) return 0;
  const scaled = BigInt(cents) * BigInt(numerator) * 2n + BigInt(denominator);
  return Number(scaled / (BigInt(denominator) * 2n));
}
