/**
 * JSON text with parts no JavaScript value can express through JSON.stringify: `1e309`, 5,000
 * levels of nesting (stringify would overflow), duplicate keys, an own `__proto__` key.
 */
export class Raw {
  constructor(readonly text: string) {}
}

export type Tree = null | boolean | number | string | Raw | Tree[] | { [key: string]: Tree };

/** Serialises a tree, writing `Raw` parts as they are. The trees built here are shallow. */
export function toJsonText(value: Tree): string {
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .map((key) => `${JSON.stringify(key)}:${toJsonText(value[key] as Tree)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Sets an own property, even `__proto__` (plain assignment would change the prototype). */
export function setOwn(target: { [key: string]: Tree }, key: string, value: Tree): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Paths into a tree (the root is []), at most `limit` of them in document order, for a mutation to pick one. */
export function pathsOf(value: Tree, limit = 2000): (string | number)[][] {
  const paths: (string | number)[][] = [];
  const stack: { node: Tree; path: (string | number)[] }[] = [{ node: value, path: [] }];
  while (stack.length > 0 && paths.length < limit) {
    const { node, path } = stack.pop() as { node: Tree; path: (string | number)[] };
    paths.push(path);
    if (node instanceof Raw || node === null || typeof node !== 'object') continue;
    const keys: (string | number)[] = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string | number;
      stack.push({ node: (node as Record<string, Tree>)[key] as Tree, path: [...path, key] });
    }
  }
  return paths;
}

/** A copy of `value` with the node at `path` replaced (or removed when `replacement` is undefined). */
export function replaceAt(value: Tree, path: (string | number)[], replacement: Tree | undefined): Tree {
  if (path.length === 0) return replacement === undefined ? null : replacement;
  if (value === null || typeof value !== 'object' || value instanceof Raw) return value;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(value)) {
    const copy = [...value];
    const index = Number(head);
    if (rest.length === 0 && replacement === undefined) copy.splice(index, 1);
    else copy[index] = replaceAt(copy[index] as Tree, rest, replacement);
    return copy;
  }
  const copy: { [key: string]: Tree } = {};
  for (const key of Object.keys(value)) {
    if (key === String(head)) {
      if (rest.length === 0 && replacement === undefined) continue;
      setOwn(copy, key, replaceAt(value[key] as Tree, rest, replacement));
    } else setOwn(copy, key, value[key] as Tree);
  }
  return copy;
}
