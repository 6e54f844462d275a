import { z } from 'zod';

/** Path ids (seed-spec §4.3): a numeric string, else 400 `Validation failed (numeric string is expected)`. */
export const NUMERIC_ID = /^\d+$/;

const integerParam = (name: string, min: number, max?: number) => {
  let schema = z.coerce.number().int().min(min);
  if (max !== undefined) schema = schema.max(max);
  return schema.optional().describe(name);
};

/** `page` and `limit` query parameters (seed-spec §4.2, product §3.2). */
export const paginationQuery = {
  page: integerParam('page', 1).default(1),
  limit: integerParam('limit', 1, 100).default(50),
};

export const paginationFields = {
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  totalPages: z.number().int(),
};

/** Money is BRL with two decimals, sent as JSON numbers (product §2). */
export const money = z.number();

export const isoDate = z.string();

export const deleteResponseSchema = z.object({ success: z.boolean(), message: z.string() });
