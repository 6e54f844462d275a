import { minorUnitExponent } from './currency.js';

/**
 * Money (docs/architecture.md "Money"). The daemon stores every amount as integer hundredths of
 * its campaign's currency (the centavos of BRL), and answers them as JSON numbers of the
 * currency's unit. Amounts arrive as JSON numbers or CLI text; they are rounded to the hundredth
 * half up *as written in decimal*: `1.045` is 1.05 and `1.005` is 1.01, although the doubles
 * nearest to them lie below (`(1.045).toFixed(2)` is `1.04`, `Math.round(1.005 * 100)` is 100).
 *
 * What people read is a `Money`: an amount in the currency's own minor unit (ISO 4217: a yen has
 * none, a Kuwaiti dinar 1,000 fils) with its code, written by `formatMoney` and read from an
 * operator by `parseMoney`. Nothing else writes or reads a currency.
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

/** An amount in its currency's minor unit (an integer: cents, yen, fils) with its ISO 4217 code. */
export interface Money {
  readonly minor: number;
  readonly currency: string;
}

/** How the stored hundredths are scaled: the one place that knows the daemon keeps hundredths. */
const STORED_EXPONENT = 2;

/**
 * Stored hundredths → the currency's minor unit: ×10 for a dinar's fils; for a currency without
 * a subunit (JPY), rounded half away from zero to the unit, as the reader can only be paid in it.
 */
export function moneyOfHundredths(hundredths: number | string | null | undefined, currency: string): Money {
  const code = currency.toUpperCase();
  const stored = BigInt(Math.trunc(Number(hundredths ?? 0)));
  const shift = minorUnitExponent(code) - STORED_EXPONENT;
  let minor: bigint;
  if (shift >= 0) minor = stored * 10n ** BigInt(shift);
  else {
    const divisor = 10n ** BigInt(-shift);
    const magnitude = ((stored < 0n ? -stored : stored) * 2n + divisor) / (2n * divisor);
    minor = stored < 0n ? -magnitude : magnitude;
  }
  // `+ 0` turns a -0 into 0: no "-¥0".
  return { minor: Number(minor) + 0, currency: code };
}

/** An amount as the API answers it (a JSON number of the currency's unit) → Money. */
export function moneyOfAmount(amount: number, currency: string): Money {
  return moneyOfHundredths(toCents(amount), currency);
}

/** `{ minor: -123456, currency: 'BRL' }` → `-1234.56`; JPY `1235`; KWD `1.235`: digits only, exact. */
export function plainAmount(money: Money): string {
  const exponent = minorUnitExponent(money.currency);
  const digits = String(Math.abs(money.minor)).padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = exponent === 0 ? '' : `.${digits.slice(digits.length - exponent)}`;
  return `${money.minor < 0 ? '-' : ''}${whole}${fraction}`;
}

/** Money → the JSON number the API takes (`12.34`, `500`). */
export function amountOf(money: Money): number {
  return Number(plainAmount(money));
}

/**
 * How `formatMoney` names the currency: its `symbol` for the reader's locale (`R$`, `$`, `¥`,
 * or the code where the locale has no symbol: `KWD`), its `code` (`BRL 1,234.56`: the CLI's
 * sentences), or nothing (`1,234.56`: a table cell under a header or note that names it).
 */
export type MoneyDisplay = 'symbol' | 'code' | 'none';

const formats = new Map<string, Intl.NumberFormat>();

function numberFormat(locale: string, currency: string, display: MoneyDisplay): Intl.NumberFormat {
  const key = `${locale} ${currency} ${display}`;
  let format = formats.get(key);
  if (!format) {
    // ISO 4217's exponent, not CLDR's display digits (Intl shows COP, HUF or IQD without
    // decimals): every minor unit the money holds is written, and nothing is rounded here.
    const digits = minorUnitExponent(currency);
    format = new Intl.NumberFormat(locale, {
      ...(display === 'none' ? { style: 'decimal' } : { style: 'currency', currency, currencyDisplay: display }),
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    formats.set(key, format);
  }
  return format;
}

/**
 * Money as a reader of `locale` writes it: `R$ 1.234,56` (pt-BR, BRL), `$1,234.56` (en-US, USD),
 * `¥1,235`, `KWD 1.235`, `-R$ 10,50`. Intl is given the amount as decimal text, so no float ever
 * carries it. Intl puts a no-break space between a code or `R$` and the digits; a plain one
 * copies and reads the same, and tests can write it.
 */
export function formatMoney(money: Money, locale: string, display: MoneyDisplay = 'symbol'): string {
  const text = plainAmount(money) as `${number}`;
  return numberFormat(locale, money.currency, display)
    .format(text)
    .replace(/[\u00a0\u202f]/g, ' ');
}

/** An operator's amount that `parseMoney` refuses; the message says what to write instead. */
export class MoneyInputError extends RangeError {}

const OPERATOR_AMOUNT = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/** `12.34` (USD), `1234` (JPY), `12.345` (KWD): an amount written as the currency allows. */
function example(exponent: number): string {
  return exponent === 0 ? '1234' : `12.${'3456'.slice(0, exponent)}`;
}

/**
 * An operator's amount in `currency` (`--amount 12.34`, `--commission-fixed 500`) → Money,
 * exactly: no rounding, so more decimals than the currency has are refused (a JPY amount has
 * none, a KWD amount three), as are thousands separators and exponents.
 */
export function parseMoney(text: string, currency: string): Money {
  const code = currency.toUpperCase();
  const exponent = minorUnitExponent(code);
  const match = OPERATOR_AMOUNT.exec(text.trim());
  const [, sign = '', whole = '', fraction = ''] = match ?? [];
  if (!match || (whole === '' && fraction === '')) {
    throw new MoneyInputError(
      `${JSON.stringify(text)} is not an amount: write digits, with a dot before the decimals and no thousands separators (e.g. ${example(exponent)})`,
    );
  }
  if (fraction.length > exponent) {
    const allowed = exponent === 0 ? 'no decimals' : `at most ${exponent} decimal${exponent === 1 ? '' : 's'}`;
    throw new MoneyInputError(`${text.trim()} has more decimals than ${code} has: ${code} amounts have ${allowed}`);
  }
  const minor = BigInt(`${whole}${fraction.padEnd(exponent, '0')}` || '0') * (sign === '-' ? -1n : 1n);
  if (minor > BigInt(Number.MAX_SAFE_INTEGER) || -minor > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new MoneyInputError(`${text.trim()} is too large an amount`);
  }
  return { minor: Number(minor) + 0, currency: code };
}
