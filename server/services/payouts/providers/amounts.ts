import { minorUnitExponent } from '../../../../shared/currency.js';
import type { MinorAmount } from './types.js';

/**
 * Amounts as each provider writes them, by integer and string arithmetic only: the daemon's
 * intents count ISO 4217 minor units; Asaas wants reais with decimals, PayPal a decimal string,
 * Stripe integers of its own minor unit.
 */

/** `1234` at exponent 2 → `"12.34"`; at 0 → `"1234"`; at 3 → `"1.234"`. Undefined for a negative or unsafe amount. */
export function decimalText(minor: number, exponent: number): string | undefined {
  if (!Number.isSafeInteger(minor) || minor < 0) return undefined;
  if (exponent === 0) return String(minor);
  const digits = String(minor).padStart(exponent + 1, '0');
  return `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/**
 * The campaign's hundredths (how the daemon stores money) → ISO minor units of the currency.
 * Undefined when the amount has no exact minor-unit value (150 hundredths of a yen).
 */
export function hundredthsToMinor(hundredths: number, currency: string): MinorAmount | undefined {
  const exponent = minorUnitExponent(currency);
  const value = BigInt(hundredths);
  let minor: bigint;
  if (exponent >= 2) minor = value * 10n ** BigInt(exponent - 2);
  else {
    const divisor = 10n ** BigInt(2 - exponent);
    if (value % divisor !== 0n) return undefined;
    minor = value / divisor;
  }
  const result = Number(minor);
  return Number.isSafeInteger(result) ? { minor: result, currency: currency.toUpperCase() } : undefined;
}

/** The intent's ISO minor units re-counted in a provider's minor unit (Stripe counts ISK in hundredths). */
export function providerMinor(amount: MinorAmount, provider: string): number | undefined {
  const iso = minorUnitExponent(amount.currency);
  const theirs = minorUnitExponent(amount.currency, provider);
  if (theirs >= iso) {
    const minor = amount.minor * 10 ** (theirs - iso);
    return Number.isSafeInteger(minor) ? minor : undefined;
  }
  const divisor = 10 ** (iso - theirs);
  return amount.minor % divisor === 0 ? amount.minor / divisor : undefined;
}
