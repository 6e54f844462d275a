import { z } from 'zod';

/** Path ids (spec §4.3): a numeric string, else 400 `Validation failed (numeric string is expected)`. */
export const NUMERIC_ID = /^\d+$/;

/**
 * A whole-number query parameter in decimal digits only: `z.coerce.number()` is JavaScript's
 * `Number()`, which also reads `0x10`, `0b11`, `0o7`, `1e1`, ` 5` and an empty string (as 0).
 * A negative or fractional decimal is read, so that its message names the broken rule.
 */
const DECIMAL = /^-?\d+(\.\d+)?$/;
export const NOT_DECIMAL = 'must be written in decimal digits (0-9)';

/**
 * Over HTTP the value is always a string; the client may pass a number, which it sends in
 * decimal digits. The document shows what the parameter is once read: an integer with its
 * bounds and default (OpenAPI sends an integer parameter in decimal digits).
 */
const integerParam = (description: string, min: number, max?: number) => {
  let number = z.number().int().min(min);
  if (max !== undefined) number = number.max(max);
  return z
    .union([z.string(), z.number()], { error: 'must be a number' })
    .superRefine((value, ctx) => {
      if (typeof value === 'number' || DECIMAL.test(value)) return;
      const numeric = value.trim() === '' || !Number.isNaN(Number(value));
      ctx.addIssue({ code: 'custom', message: numeric ? NOT_DECIMAL : 'must be a number' });
    })
    .transform(Number)
    .pipe(number)
    .optional()
    .meta({ description });
};

/**
 * An id filter of a list (`affiliateId`, `groupId`, ...): decimal digits, as the document's
 * integer says; `z.coerce.number()` also took `0x10`, `1e1` and ` 5`, which the document refuses.
 */
export const idQuery = (description: string) => integerParam(description, 1);

/** `page` and `limit` query parameters (spec §4.2, §10.2). */
export const paginationQuery = {
  page: integerParam('Page of results, from 1 (decimal digits)', 1).default(1),
  limit: integerParam('Results per page, 1 to 100 (decimal digits)', 1, 100).default(50),
};

export const paginationFields = {
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  totalPages: z.number().int(),
};

/**
 * Money is a JSON number of the campaign's currency (its `currency`), to the hundredth (spec §11,
 * docs/architecture.md "Money").
 */
export const money = z.number();

/** An ISO 4217 code as answers carry it: `BRL`, `USD`, `JPY`. */
export const currencyCode = z.string().regex(/^[A-Z]{3}$/);

export const isoDate = z.string();

export const deleteResponseSchema = z.object({ success: z.boolean(), message: z.string() });

/** Ids are unsigned 32-bit integers in the schema; a larger numeric id simply does not exist. */
export const MAX_ID = 4294967295;

/**
 * A path id (spec §4.3): a numeric string, else 400 `Validation failed (numeric string is
 * expected)`. An id too large to exist becomes 0, which no row has, so it is the same 404 as
 * any other absent id.
 */
export const idParam = z
  .string()
  .regex(NUMERIC_ID)
  .transform((raw) => {
    const id = Number(raw);
    return Number.isSafeInteger(id) && id <= MAX_ID ? id : 0;
  })
  // The document shows the id a client sends: any other numeric id is simply not found.
  .meta({ type: 'integer', minimum: 1, maximum: MAX_ID, description: 'A numeric id (decimal digits)' });

/**
 * Text trimmed of surrounding whitespace before `schema` checks it. A transform that comes
 * first lets the document show `schema`'s own rules (zod documents what follows it).
 */
export const trimmed = <S extends z.ZodType<string, string>>(schema: S) =>
  z.transform((value: string) => (typeof value === 'string' ? value.trim() : value)).pipe(schema);

/**
 * 1 to `max` characters once trimmed. The document says the same with `\S` (a character that
 * is not whitespace: JavaScript's `trim` and `\s` mean one set), since JSON Schema cannot trim.
 */
export const trimmedText = (max: number) => trimmed(z.string().min(1).max(max).meta({ pattern: '\\S' }));

export const idParams = z.object({ id: idParam });

/** The spec's error body (spec §7). */
export const errorBodySchema = z.object({
  statusCode: z.number().int(),
  message: z.union([z.string(), z.array(z.string())]),
  error: z.string(),
});
