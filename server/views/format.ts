import { DEFAULT_CURRENCY } from '../../shared/currency.js';
import { formatMoney as moneyText, moneyOfAmount, moneyOfHundredths } from '../../shared/money.js';
import type { Locale } from './locale.js';

const dates = new Map<Locale, Intl.DateTimeFormat>([
  ['pt-BR', new Intl.DateTimeFormat('pt-BR', { dateStyle: 'short', timeZone: 'America/Sao_Paulo' })],
  ['en', new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'America/Sao_Paulo' })],
]);
const counts = new Map<Locale, Intl.NumberFormat>([
  ['pt-BR', new Intl.NumberFormat('pt-BR')],
  ['en', new Intl.NumberFormat('en-US')],
]);

/** The locale each portal language writes numbers in. */
const NUMBER_LOCALES: Readonly<Record<Locale, string>> = { 'pt-BR': 'pt-BR', en: 'en-US' };

/**
 * Stored hundredths of `currency` (the campaign's) as the reader writes money: `R$ 1.234,56` in
 * pt-BR, `R$1,234.56` in English, `$1,234.56`, `¥1,235`, `KWD 1.235` (shared/money.ts).
 */
export function formatMoney(hundredths: number, locale: Locale, currency = DEFAULT_CURRENCY): string {
  return moneyText(moneyOfHundredths(hundredths, currency), NUMBER_LOCALES[locale] ?? 'en-US');
}

/** An amount as the API answers it (a number of `currency`'s unit), as the reader writes money. */
export function formatAmount(amount: number, locale: Locale, currency: string): string {
  return moneyText(moneyOfAmount(amount, currency), NUMBER_LOCALES[locale] ?? 'en-US');
}

/** A day as the reader writes it, in Brasília's time (the programme's). */
export function formatDate(at: Date, locale: Locale): string {
  return (dates.get(locale) ?? dates.get('en'))?.format(at) ?? at.toISOString().slice(0, 10);
}

export function formatCount(n: number, locale: Locale): string {
  return (counts.get(locale) ?? counts.get('en'))?.format(n) ?? String(n);
}
