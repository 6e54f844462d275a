import { fromCents, toCents } from '../../shared/money.js';
import type { ProductRule, Recurring } from '../../shared/schemas/commission.js';
import type { CommissionType, ProductRuleJson, RecurringKind } from '../db/rows.js';

/**
 * The columns that hold a commission rule (campaigns, groups, affiliates' overrides), both ways.
 * Rates are stored in hundredths, as the campaign's always were: of a percent, or of a real.
 */

/** A rate as the rules compute with it: integers, so every commission is exact. */
export interface Rate {
  type: CommissionType;
  /** Hundredths of a percent, or centavos. */
  hundredths: number;
}

export interface ProductRate extends Rate {
  product: string;
}

/** One level's rule (a campaign's, or a group's where `recurring` and the percent may be null). */
export interface LevelRule {
  rate: Rate;
  products: ProductRate[];
  recurring: Recurring | null;
  /** Hundredths of a percent of a child's commission; null: the campaign's. */
  secondTierHundredths: number | null;
}

/** An API rate (`{ commissionType, commissionValue }`) in hundredths. */
export const rateOf = (rule: { commissionType: CommissionType; commissionValue: number }): Rate => ({
  type: rule.commissionType,
  hundredths: toCents(rule.commissionValue),
});

export const apiRate = (rate: Rate) => ({ commissionType: rate.type, commissionValue: fromCents(rate.hundredths) });

export function productsColumn(products: readonly ProductRate[]): string | null {
  if (products.length === 0) return null;
  const stored: ProductRuleJson[] = products.map((rule) => ({
    product: rule.product,
    type: rule.type,
    value: rule.hundredths,
  }));
  return JSON.stringify(stored);
}

/** API product rules in hundredths. */
export const productRatesOf = (products: readonly ProductRule[]): ProductRate[] =>
  products.map((rule) => ({ product: rule.product, ...rateOf(rule) }));

export function productsOf(column: string | null): ProductRate[] {
  if (column === null) return [];
  return (JSON.parse(column) as ProductRuleJson[]).map((rule) => ({
    product: rule.product,
    type: rule.type,
    hundredths: Number(rule.value),
  }));
}

export const apiProducts = (products: readonly ProductRate[]): ProductRule[] =>
  products.map((rule) => ({ product: rule.product, ...apiRate(rule) }));

export function recurringColumns(recurring: Recurring | null): {
  recurring: RecurringKind | null;
  recurring_months: number | null;
} {
  if (recurring === null) return { recurring: null, recurring_months: null };
  if (typeof recurring === 'string') return { recurring, recurring_months: null };
  return { recurring: 'months', recurring_months: recurring.months };
}

export function recurringOf(kind: RecurringKind | null, months: number | null): Recurring | null {
  if (kind === null) return null;
  if (kind === 'months') return { months: Number(months ?? 1) };
  return kind;
}
