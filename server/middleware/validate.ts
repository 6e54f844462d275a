import type { Context } from 'koa';
import type { z } from 'zod';
import { MESSAGES } from '../../shared/errors.js';
import { NUMERIC_ID } from '../../shared/schemas/common.js';
import { parseWith } from '../../shared/schemas/validation.js';
import { NotFoundError, ValidationError } from '../errors.js';

/** Parses with a shared zod schema; every failed rule becomes one message of a 400. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = parseWith(schema, input);
  if (!result.ok) throw new ValidationError(result.messages);
  return result.data;
}

export const validateBody = <S extends z.ZodType>(ctx: Context, schema: S) =>
  validate(schema, ctx.request.body);
export const validateQuery = <S extends z.ZodType>(ctx: Context, schema: S) =>
  validate(schema, { ...ctx.query });

/**
 * spec 4.3: a non-numeric id is 400 `Validation failed (numeric string is expected)`. A numeric
 * id too large to exist is simply not found, with the same 404 as any other absent id.
 */
export function numericId(ctx: Context, notFoundMessage: string, param = 'id'): number {
  const raw = ctx.params[param] ?? '';
  if (!NUMERIC_ID.test(raw)) throw new ValidationError(MESSAGES.numericId);
  const id = Number(raw);
  if (!Number.isSafeInteger(id) || id > 4294967295) throw new NotFoundError(notFoundMessage);
  return id;
}
