import { z } from 'zod';
import {
  commissionType,
  percent,
  percentRule,
  productRuleSchema,
  productsSchema,
  rateFields,
  recurringSchema,
} from './commission.js';
import { isoDate, paginationFields, paginationQuery, trimmedText } from './common.js';

/** A group's name: 1 to 100 characters once trimmed, unique in the campaign whatever the case. */
const name = trimmedText(100).meta({ description: 'Unique in the campaign, ignoring case and surrounding spaces' });

const recurring = recurringSchema
  .nullable()
  .meta({ description: "`lifetime`, `first` or `{ months: N }`; null: the campaign's" });
const secondTierPercent = percent.nullable().meta({
  description: "Percent of a child's commission a parent in this group earns; null: the campaign's",
});

/** spec §12.1: a group of affiliates and the rule they earn by. */
export const groupSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  commissionType,
  commissionValue: z.number(),
  recurring: recurringSchema.nullable(),
  products: z.array(productRuleSchema),
  secondTierPercent: z.number().nullable(),
  /** Affiliates in the group now. */
  affiliateCount: z.number().int(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type Group = z.infer<typeof groupSchema>;

export const createGroupSchema = z
  .strictObject({
    name,
    ...rateFields,
    recurring: recurring.optional(),
    products: productsSchema.optional(),
    secondTierPercent: secondTierPercent.optional(),
  })
  .superRefine(percentRule.check)
  .meta(percentRule.meta);
export type CreateGroupInput = z.infer<typeof createGroupSchema>;

/** Every field optional; `null` gives `recurring` and `secondTierPercent` back to the campaign. */
export const updateGroupSchema = z
  .strictObject({
    name: name.optional(),
    commissionType: rateFields.commissionType.optional(),
    commissionValue: rateFields.commissionValue.optional(),
    recurring: recurring.optional(),
    products: productsSchema.optional(),
    secondTierPercent: secondTierPercent.optional(),
  })
  .superRefine(percentRule.check)
  .meta(percentRule.meta);
export type UpdateGroupInput = z.infer<typeof updateGroupSchema>;

export const listGroupsQuerySchema = z.strictObject({ ...paginationQuery });
export type ListGroupsQuery = z.infer<typeof listGroupsQuerySchema>;

export const groupListSchema = z.object({ groups: z.array(groupSchema), ...paginationFields });
export type GroupList = z.infer<typeof groupListSchema>;
