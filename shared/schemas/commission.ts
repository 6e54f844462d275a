import { z } from 'zod';
import { COMMISSION_TYPES, MAX_FIXED_COMMISSION, MAX_PRODUCT_RULES, MAX_RECURRING_MONTHS } from '../vocabulary.js';

/**
 * The parts of a commission rule (docs/commissions.md): a rate, product rules, the recurring
 * limit, the second tier's percent, and the explanation every conversion keeps.
 */
export { COMMISSION_TYPES, MAX_FIXED_COMMISSION, MAX_PRODUCT_RULES, MAX_RECURRING_MONTHS };
export const commissionType = z.enum(COMMISSION_TYPES);
export type CommissionType = z.infer<typeof commissionType>;

/** A percent: 0 to 100, to the hundredth (more decimals are rounded half up). */
export const percent = z.number().min(0).max(100);

/** Any rate's value: percent rules stop at 100, which `rateRule` adds with the type beside it. */
const rateValue = z.number().min(0).max(MAX_FIXED_COMMISSION).meta({
  description:
    "percent: 0 to 100 (10 is 10 %); fixed: an amount of the campaign's currency per conversion, 0 to 10000000. Two decimals.",
});

export const COMMISSION_MESSAGES = Object.freeze({
  percentOver100: 'must not be greater than 100 for a percent commission',
  productListedTwice: (product: string) => `lists product ${JSON.stringify(product)} more than once`,
  recurring: `must be "lifetime", "first" or { "months": N } with N a whole number from 1 to ${MAX_RECURRING_MONTHS}`,
});

/** What the document says of a type and a value side by side: a percent stops at 100. */
const PERCENT_AT_MOST_100 = {
  if: { properties: { commissionType: { const: 'percent' } }, required: ['commissionType'] },
  then: { properties: { commissionValue: { maximum: 100 } } },
};

/** `{ commissionType, commissionValue }` with the percent bound checked against the type beside it. */
function checkPercent(rule: { commissionType?: CommissionType; commissionValue?: number }, ctx: z.RefinementCtx) {
  if (rule.commissionType === 'percent' && rule.commissionValue !== undefined && rule.commissionValue > 100) {
    ctx.addIssue({ code: 'custom', path: ['commissionValue'], message: COMMISSION_MESSAGES.percentOver100 });
  }
}

/** A rate: the shape of an affiliate's override and of a product rule's rate. */
export const rateFields = { commissionType, commissionValue: rateValue };

export const commissionOverrideSchema = z
  .strictObject(rateFields)
  .superRefine(checkPercent)
  .meta({
    ...PERCENT_AT_MOST_100,
    description: "The affiliate's own rate: beats every group, product and campaign rule",
  });
export type CommissionOverride = z.infer<typeof commissionOverrideSchema>;

export const productRuleSchema = z
  .strictObject({
    product: z
      .string()
      .min(1)
      .max(255)
      .meta({ description: "Matched exactly (case and spaces) on the event's properties.product" }),
    ...rateFields,
  })
  .superRefine(checkPercent)
  .meta(PERCENT_AT_MOST_100);
export type ProductRule = z.infer<typeof productRuleSchema>;

/** A level's product rules: each product once. */
export const productsSchema = z
  .array(productRuleSchema)
  .max(MAX_PRODUCT_RULES)
  .superRefine((rules, ctx) => {
    const seen = new Set<string>();
    rules.forEach((rule, index) => {
      if (seen.has(rule.product)) {
        ctx.addIssue({
          code: 'custom',
          path: [index, 'product'],
          message: COMMISSION_MESSAGES.productListedTwice(rule.product),
        });
      }
      seen.add(rule.product);
    });
  })
  .meta({ description: `Up to ${MAX_PRODUCT_RULES} product rules, each product once (the list is replaced whole)` });

/** A campaign's product rules as the operator sets them, so messages name `products.<n>`. */
export const productRulesInput = z.strictObject({ products: productsSchema });

/**
 * `lifetime` (every payment of a customer earns), `first` (only the first), or `{ months: N }`
 * (payments within N calendar months of the customer's first attributed payment).
 */
export const recurringSchema = z.union(
  [z.enum(['lifetime', 'first']), z.strictObject({ months: z.number().int().min(1).max(MAX_RECURRING_MONTHS) })],
  { error: COMMISSION_MESSAGES.recurring },
);
export type Recurring = z.infer<typeof recurringSchema>;

export const RULE_SOURCES = ['campaign', 'group', 'affiliate', 'product', 'second_tier'] as const;
export type RuleSource = (typeof RULE_SOURCES)[number];

/** Why a conversion earns what it earns, kept on it when it arrives. */
export const commissionRuleSchema = z.object({
  source: z.enum(RULE_SOURCES),
  /** The group whose rule (or product rule, or second-tier percent) decided. */
  groupId: z.number().int().optional(),
  commissionType,
  /** percent: 10 is 10 % (of the order value; of the sale's commission for second_tier); fixed: BRL. */
  commissionValue: z.number(),
  /** The recurring limit in force, when the event named a customer. */
  recurring: recurringSchema.optional(),
  /** Which of the customer's payments this was (1: the first), when the event named a customer. */
  paymentNumber: z.number().int().optional(),
});
export type CommissionRule = z.infer<typeof commissionRuleSchema>;

/** The checks of a body holding a type and a value (a group, a PATCH), for schemas that build on them. */
export const percentRule = { check: checkPercent, meta: PERCENT_AT_MOST_100 };
