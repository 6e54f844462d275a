import { InvalidArgumentError } from 'commander';
import { amountOption, moneyText } from './money.js';
import { MAX_FIXED_COMMISSION, MAX_RECURRING_MONTHS } from './vocabulary.js';

/**
 * Options and texts of commission rules (docs/commissions.md), shared by `campaigns`, `groups`
 * and `affiliates`. No zod here: command declarations load this at start-up.
 */

export type RecurringOption = 'lifetime' | 'first' | { months: number };
export interface RateOption {
  commissionType: 'percent' | 'fixed';
  commissionValue: number;
}
export type ProductOption = RateOption & { product: string };

/** `--recurring lifetime|first|<N>m` (12m: twelve months from the customer's first payment). */
export function recurringOption(value: string): RecurringOption {
  if (value === 'lifetime' || value === 'first') return value;
  const months = /^(\d+)m$/.exec(value)?.[1];
  const n = Number(months);
  if (months === undefined || n < 1 || n > MAX_RECURRING_MONTHS) {
    throw new InvalidArgumentError(
      `must be lifetime, first, or a number of months such as 12m (1m to ${MAX_RECURRING_MONTHS}m).`,
    );
  }
  return { months: n };
}

/** A percent from 0 to 100 (`--second-tier-percent`, `--commission-percent`). */
export function percentOption(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) {
    throw new InvalidArgumentError('must be a number from 0 to 100.');
  }
  return n;
}

/** `--product "Pro plan=20%"` (a percent) or `--product "Pro plan=15"` (the campaign's currency per conversion); repeatable. */
export function productOption(value: string, previous: ProductOption[] = []): ProductOption[] {
  const at = value.lastIndexOf('=');
  const product = at <= 0 ? '' : value.slice(0, at);
  const rate = at <= 0 ? '' : value.slice(at + 1).trim();
  const percent = rate.endsWith('%');
  const n = Number(percent ? rate.slice(0, -1) : rate);
  const max = percent ? 100 : MAX_FIXED_COMMISSION;
  if (product === '' || rate === '' || !Number.isFinite(n) || n < 0 || n > max) {
    throw new InvalidArgumentError(
      `must be NAME=PERCENT% (e.g. "Pro plan=20%") or NAME=AMOUNT in the campaign's currency (e.g. "Pro plan=15"); the name as events send it in product, or a Stripe or Paddle product id (product_id).`,
    );
  }
  return [...previous, { product, commissionType: percent ? 'percent' : 'fixed', commissionValue: n }];
}

/** `--commission-percent X` or `--commission-fixed X`, not both; undefined when neither is given. */
export function rateOfOptions(options: {
  commissionPercent?: number;
  commissionFixed?: number;
}): RateOption | undefined {
  const { commissionPercent: percent, commissionFixed: fixed } = options;
  if (percent !== undefined && fixed !== undefined) {
    throw new InvalidArgumentError('give either --commission-percent or --commission-fixed, not both.');
  }
  if (fixed !== undefined) return { commissionType: 'fixed', commissionValue: fixed };
  if (percent !== undefined) return { commissionType: 'percent', commissionValue: percent };
  return undefined;
}

/**
 * The fixed amounts among a command's rule flags, read in the campaign's currency: a JPY
 * campaign's `--commission-fixed 5.5` is refused (exit 2), as the one parser refuses it.
 * `currency` is asked only when there is an amount to check.
 */
export async function checkRuleAmounts(
  flags: { commissionFixed?: number; payoutMinimum?: number; product?: readonly ProductOption[] },
  currency: () => Promise<string>,
): Promise<void> {
  const amounts: Array<[string, number | undefined]> = [
    ['--commission-fixed', flags.commissionFixed],
    ['--payout-minimum', flags.payoutMinimum],
    ...(flags.product ?? [])
      .filter((rule) => rule.commissionType === 'fixed')
      .map((rule): [string, number] => [`--product ${rule.product}`, rule.commissionValue]),
  ];
  const given = amounts.filter((amount): amount is [string, number] => amount[1] !== undefined);
  if (given.length === 0) return;
  const code = await currency();
  for (const [option, value] of given) amountOption(option, String(value), code);
}

/** `12.5%`, or a fixed amount in the campaign's currency: `BRL 5.00`, `JPY 500`. */
export const rateText = (rate: RateOption, currency: string) =>
  rate.commissionType === 'percent' ? `${rate.commissionValue}%` : moneyText(rate.commissionValue, currency);

/** `lifetime`, `first payment only`, `12 months`. */
export const recurringText = (recurring: RecurringOption) =>
  recurring === 'first'
    ? 'first payment only'
    : recurring === 'lifetime'
      ? 'lifetime'
      : `${recurring.months} month${recurring.months === 1 ? '' : 's'}`;

/** `Pro plan 20%, Starter BRL 5.00`, or `-`. */
export const productsText = (products: readonly ProductOption[], currency: string) =>
  products.length === 0 ? '-' : products.map((rule) => `${rule.product} ${rateText(rule, currency)}`).join(', ');

/** A conversion's `commissionRule`, as `conversions get` and the lists show it. */
export interface RuleExplanation extends RateOption {
  source: 'campaign' | 'group' | 'affiliate' | 'product' | 'second_tier';
  groupId?: number;
  recurring?: RecurringOption;
  paymentNumber?: number;
}

/** `group 3 15%`, `product rule (group 3) 20%`, `second tier 5% of the sale's commission · payment 2 of 12 months`. */
export function ruleText(rule: RuleExplanation, currency: string): string {
  const group = rule.groupId === undefined ? '' : ` (group ${rule.groupId})`;
  const rate = rateText(rule, currency);
  const where = {
    campaign: `campaign ${rate}`,
    group: `group ${rule.groupId ?? '?'} ${rate}`,
    affiliate: `affiliate override ${rate}`,
    product: `product rule${group || ' (campaign)'} ${rate}`,
    second_tier: `second tier${group} ${rate} of the sale's commission`,
  }[rule.source];
  if (rule.paymentNumber === undefined) return where;
  const limit = rule.recurring === undefined ? '' : `, ${recurringText(rule.recurring)}`;
  return `${where} · payment ${rule.paymentNumber}${limit}`;
}

/** Which rule an affiliate earns by: `override 12%`, `group 3`, `campaign`. */
export function affiliateRuleText(
  affiliate: { groupId: number | null; commissionOverride: RateOption | null },
  currency: string,
): string {
  if (affiliate.commissionOverride) return `override ${rateText(affiliate.commissionOverride, currency)}`;
  return affiliate.groupId === null ? 'campaign' : `group ${affiliate.groupId}`;
}
