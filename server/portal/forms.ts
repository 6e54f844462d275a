import type { Context } from 'koa';
import getRawBody from 'raw-body';
import type { FormFields } from '../services/portal/index.js';

/** A portal form is a few short fields: more is not a form of ours. */
export const FORM_LIMIT_BYTES = 16 * 1024;
const MAX_FIELDS = 32;

export class FormRefused extends Error {
  constructor(readonly status: 413 | 415 | 400) {
    super(`form refused (${status})`);
  }
}

/** The posted `application/x-www-form-urlencoded` fields (the first value of each name); more than `maxFields` is a 413. */
export async function readForm(ctx: Context, maxFields = MAX_FIELDS): Promise<FormFields> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new FormRefused(415);
  let text: string;
  try {
    text = await getRawBody(ctx.req, { limit: FORM_LIMIT_BYTES, encoding: 'utf-8' });
  } catch (err) {
    throw new FormRefused((err as { type?: string }).type === 'entity.too.large' ? 413 : 400);
  }
  const fields: Record<string, string> = {};
  let count = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    if (++count > maxFields) throw new FormRefused(413);
    if (!(name in fields)) fields[name] = value;
  }
  return fields;
}
