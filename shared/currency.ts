/**
 * Currencies (ISO 4217) and provider amounts. A campaign keeps its money as integer hundredths
 * of its currency's unit (the centavos of BRL), as everywhere else in the daemon. Providers send
 * amounts in the currency's smallest unit, whose size is the currency's own: a yen has no
 * subunit, a Kuwaiti dinar has 1,000 fils. Conversion is integer arithmetic on the digits.
 */

/** Active ISO 4217 codes. */
const CODES = `AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP
BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP
GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW
KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD
NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE
SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES
VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG`;
const ISO_CODES: ReadonlySet<string> = new Set(CODES.split(/\s+/));

/** ISO 4217 minor-unit exponents other than 2. */
const ISO_EXPONENTS: ReadonlyMap<string, number> = new Map([
  ...'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF'.split(' ').map((c) => [c, 0] as const),
  ...'BHD IQD JOD KWD LYD OMR TND'.split(' ').map((c) => [c, 3] as const),
  ...'CLF UYW'.split(' ').map((c) => [c, 4] as const),
]);

/**
 * Where a provider counts a currency's smallest unit otherwise than ISO 4217 (Stripe's list of
 * zero-decimal currencies and its special cases: ISK and UGX amounts are sent as hundredths,
 * MGA has no subunit).
 */
const PROVIDER_EXPONENTS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  stripe: { ISK: 2, UGX: 2, MGA: 0 },
  paddle: {},
};

export const DEFAULT_CURRENCY = 'BRL';

export function isCurrencyCode(code: string): boolean {
  return ISO_CODES.has(code);
}

/** How many decimal places the provider's smallest unit of `currency` is worth. */
export function minorUnitExponent(currency: string, provider?: string): number {
  const upper = currency.toUpperCase();
  return (provider ? PROVIDER_EXPONENTS[provider]?.[upper] : undefined) ?? ISO_EXPONENTS.get(upper) ?? 2;
}

/**
 * An amount in the currency's smallest unit (an integer, or its decimal text as Paddle sends it)
 * → hundredths of the unit, as the campaign stores money. Sub-hundredths (the third decimal of a
 * dinar) are rounded half up, as amounts sent to `/v1/events` are. Undefined when the amount is
 * not a whole number or does not fit.
 */
export function minorToHundredths(amount: number | string, exponent: number): number | undefined {
  const text = typeof amount === 'number' ? (Number.isSafeInteger(amount) ? String(amount) : '') : amount.trim();
  if (!/^-?\d{1,30}$/.test(text)) return undefined;
  const minor = BigInt(text);
  let hundredths: bigint;
  if (exponent <= 2) {
    hundredths = minor * 10n ** BigInt(2 - exponent);
  } else {
    const divisor = 10n ** BigInt(exponent - 2);
    const magnitude = ((minor < 0n ? -minor : minor) + divisor / 2n) / divisor;
    hundredths = minor < 0n ? -magnitude : magnitude;
  }
  const value = Number(hundredths);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** `amount × part / whole`, half up, exact: a share of an amount (a partial refund). */
export function proportion(amount: number, part: bigint, whole: bigint): number {
  if (whole <= 0n) return 0;
  return Number((BigInt(amount) * part * 2n + whole) / (2n * whole));
}
