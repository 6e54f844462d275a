import { formatCents, toCents } from '../../../shared/money.js';
import type { Payout } from '../../../shared/schemas/payout.js';

/** The columns of `payouts export --format csv`: what a bank or PayPal mass-payment upload needs. */
export const CSV_HEADER = ['payout_id', 'affiliate_id', 'name', 'email', 'amount', 'currency'] as const;

/**
 * RFC 4180: a field with a comma, a quote or a line break is quoted, quotes doubled. A text
 * field that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a
 * leading `'` (OWASP's CSV-injection advice): names and e-mails come from affiliates.
 */
export function csvField(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(payout: Payout): string {
  return [
    payout.id,
    payout.affiliateId,
    payout.affiliateName ?? '',
    payout.affiliateEmail,
    // Two decimals, from centavos: never a float's `12.5` or `0.30000000000000004`.
    formatCents(toCents(payout.amount)),
    payout.currency,
  ]
    .map(csvField)
    .join(',');
}

/** The whole file: header, one line per payout, CRLF line ends. */
export function payoutsCsv(payouts: readonly Payout[]): string {
  return [CSV_HEADER.join(','), ...payouts.map(csvRow)].map((line) => `${line}\r\n`).join('');
}
