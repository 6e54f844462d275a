/**
 * Bounds on the shape of parsed JSON, checked without recursion so that no input, however
 * deep, can overflow the stack (a 2 MiB body can nest a million levels).
 */

/** In `u` mode a surrogate pair is one code point, so this matches lone surrogates only. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Well-formed UTF-16: no lone surrogate (`String.prototype.isWellFormed`, ES2024). */
export const isWellFormed = (text: string) => !LONE_SURROGATE.test(text);

/** Why a body was refused: one message per problem, each starting with the path it concerns. */
export interface ShapeIssue {
  path: (string | number)[];
  kind: 'ill_formed_text' | 'ill_formed_key' | 'too_deep';
}

/**
 * Depth of a JSON value: 0 for a scalar, 1 for `{}` or `[]`, one more for each level of
 * nesting. Stops counting past `limit`, so the cost is bounded by the part it looked at.
 */
export function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const top = stack.pop() as { value: unknown; depth: number };
    if (typeof top.value !== 'object' || top.value === null) continue;
    const depth = top.depth + 1;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Object.values(top.value)) stack.push({ value: child, depth });
  }
  return deepest;
}

interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | undefined;
  key: string | number;
}

/** A frame's path, built only when there is something to report. */
function pathOf(frame: Frame): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Frame | undefined = frame; at?.parent; at = at.parent) path.unshift(at.key);
  return path;
}

/**
 * Walks a parsed body once, in document order: strings and keys that are not well-formed
 * UTF-16 (a lone surrogate, which no database stores as sent), and nesting past `maxDepth`.
 * Nesting stops the walk at once; text issues are all collected.
 */
export function jsonShapeIssues(body: unknown, maxDepth: number): ShapeIssue[] {
  const issues: ShapeIssue[] = [];
  const stack: Frame[] = [{ value: body, depth: 0, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    const { value } = frame;
    if (typeof value === 'string') {
      if (!isWellFormed(value)) issues.push({ path: pathOf(frame), kind: 'ill_formed_text' });
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (frame.depth >= maxDepth) return [{ path: [], kind: 'too_deep' }];
    const depth = frame.depth + 1;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], depth, parent: frame, key: i });
      continue;
    }
    const keys = Object.keys(value);
    if (keys.some((key) => !isWellFormed(key))) issues.push({ path: pathOf(frame), kind: 'ill_formed_key' });
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      stack.push({ value: (value as Record<string, unknown>)[key], depth, parent: frame, key });
    }
  }
  return issues;
}

/** UTF-8 size of a value written as JSON; call it only on a value of bounded depth. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(jsonText(value) ?? '', 'utf8');
}

/** JSON texts of objects already stringified: validation measures them, storage writes the same text. */
const texts = new WeakMap<object, string>();

/**
 * `JSON.stringify`, remembered per object: an event's `properties` are stringified once, when
 * their size is checked, and the row stores that text. Only for objects nothing mutates after.
 */
export function jsonText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const known = texts.get(value);
  if (known !== undefined) return known;
  const text = JSON.stringify(value);
  texts.set(value, text);
  return text;
}
