import { moneyOfAmount, plainAmount } from './money.js';
import type { Payout } from './schemas/payout.js';
import { csvLines } from './csv.js';

/**
 * The columns of `payouts export --format csv`: what a bank or PayPal mass-payment upload needs,
 * what a rail made of it (docs/payouts.md#payout-rails: empty for a payout settled by hand), then
 * the rules its commissions were earned by (last, so an upload may ignore it).
 */
export const CSV_HEADER = [
  'payout_id',
  'affiliate_id',
  'name',
  'email',
  'payout_method',
  'pix_key_type',
  'payout_account',
  'amount',
  'currency',
  'rail',
  'reference',
  'receipt',
  'failure_reason',
  'commission_rules',
] as const;

function csvRow(payout: Payout, rules: ReadonlyMap<number, string>) {
  return [
    payout.id,
    payout.affiliateId,
    payout.affiliateName ?? '',
    payout.affiliateEmail,
    // Where to send it, as the affiliate entered it in the portal; empty until then.
    payout.payoutMethod ?? '',
    payout.pixKeyType ?? '',
    payout.payoutAccount ?? '',
    // Machine-readable: the currency's own decimals (12.50, JPY 1235, KWD 1.235), a dot, no
    // thousands separator; never a float's `12.5` or `0.30000000000000004`.
    plainAmount(moneyOfAmount(payout.amount, payout.currency)),
    payout.currency,
    // The reference is what to search the provider's dashboard by; the receipt what it paid with.
    payout.rail ?? '',
    payout.reference ?? '',
    payout.receipt ?? '',
    payout.failureReason ?? '',
    rules.get(payout.id) ?? '',
  ];
}

/** The whole file: header, one line per payout, CRLF line ends. */
export function payoutsCsv(payouts: readonly Payout[], rules: ReadonlyMap<number, string> = new Map()): string {
  return csvLines(
    CSV_HEADER,
    payouts.map((payout) => csvRow(payout, rules)),
  );
}
