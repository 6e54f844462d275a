import type { z } from 'zod';

/**
 * Turns zod issues into the spec's validation messages (spec §7): one string per failed rule,
 * each starting with the path of the field (`email must be a valid email`,
 * `events.3.properties.order_value must be a positive number`).
 *
 * Schemas carry their own wording where the spec fixes it; every other rule gets the phrasing
 * below, so no zod default text ("Invalid input: expected string...") reaches a user.
 */
type Issue = z.core.$ZodRawIssue;

function describeIssue(issue: Issue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      if (issue.expected === 'int') return 'must be an integer number';
      return `must be ${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}`;
    case 'too_small':
      if (issue.origin === 'string') return `must be at least ${issue.minimum} characters long`;
      if (issue.origin === 'array') return `must contain at least ${issue.minimum} elements`;
      return `must not be less than ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters long`;
      if (issue.origin === 'array') return `must contain at most ${issue.maximum} elements`;
      return `must not be greater than ${issue.maximum}`;
    case 'invalid_value':
      if (issue.input === undefined) return 'is required';
      return `must be one of the following values: ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'email' ? 'must be a valid email' : `must be a valid ${issue.format}`;
    case 'not_multiple_of':
      return issue.divisor === 1 ? 'must be an integer number' : `must be a multiple of ${issue.divisor}`;
    default:
      return undefined;
  }
}

/** Per-parse error map: keeps the field name out of the text; `formatIssues` adds the path. */
export const errorMap = (issue: Issue): string | undefined => describeIssue(issue);

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  const messages: string[] = [];
  for (const issue of issues) {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) messages.push(`property ${path ? `${path}.` : ''}${key} should not exist`);
      continue;
    }
    messages.push(path ? `${path} ${issue.message}` : `body ${issue.message}`);
  }
  return messages;
}

export type ParseResult<T> = { ok: true; data: T } | { ok: false; messages: string[] };

export function parseWith<S extends z.ZodType>(schema: S, input: unknown): ParseResult<z.output<S>> {
  const result = schema.safeParse(input, { error: errorMap });
  if (result.success) return { ok: true, data: result.data };
  return { ok: false, messages: formatIssues(result.error.issues) };
}
