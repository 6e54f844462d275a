import type { Locale } from './locale.js';

const money = new Map<Locale, Intl.NumberFormat>([
  ['pt-BR', new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' })],
  ['en', new Intl.NumberFormat('en-US', { style: 'currency', currency: 'BRL' })],
]);
const dates = new Map<Locale, Intl.DateTimeFormat>([
  ['pt-BR', new Intl.DateTimeFormat('pt-BR', { dateStyle: 'short', timeZone: 'America/Sao_Paulo' })],
  ['en', new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'America/Sao_Paulo' })],
]);
const counts = new Map<Locale, Intl.NumberFormat>([
  ['pt-BR', new Intl.NumberFormat('pt-BR')],
  ['en', new Intl.NumberFormat('en-US')],
]);

/**
 * Centavos as the reader writes money: `R$ 1.234,56` in pt-BR, `R$1,234.56` in English. The
 * integer is split before formatting, so no float ever carries the amount.
 */
export function formatMoney(cents: number, locale: Locale): string {
  const format = money.get(locale) ?? new Intl.NumberFormat('en-US', { style: 'currency', currency: 'BRL' });
  const negative = cents < 0;
  const abs = Math.abs(cents);
  const text = format
    .formatToParts(Math.trunc(abs / 100))
    .map((part) => (part.type === 'fraction' ? String(abs % 100).padStart(2, '0') : part.value))
    .join('')
    // Intl puts a no-break space after R$ in pt-BR; a plain one copies and reads the same.
    .replace(/\u00a0/g, ' ');
  return negative ? `-${text}` : text;
}

/** A day as the reader writes it, in Brasília's time (the programme's). */
export function formatDate(at: Date, locale: Locale): string {
  return (dates.get(locale) ?? dates.get('en'))?.format(at) ?? at.toISOString().slice(0, 10);
}

export function formatCount(n: number, locale: Locale): string {
  return (counts.get(locale) ?? counts.get('en'))?.format(n) ?? String(n);
}
