import fc from 'fast-check';
import { pathsOf, Raw, replaceAt, setOwn, toJsonText, type Tree } from './json.js';

/** The JSON Schema zod writes for a route's params, query or body (`z.toJSONSchema`, input side). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  enum?: Tree[];
  const?: Tree;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
}

/** Values for fields the schema cannot describe (a real campaign, a real referral code). */
export type Hints = Record<string, fc.Arbitrary<Tree>>;

const clamp = (value: number | undefined, low: number, high: number, fallback: number) =>
  Math.min(high, Math.max(low, value ?? fallback));

function stringFor(schema: JsonSchema): fc.Arbitrary<Tree> {
  const minLength = schema.minLength ?? 0;
  const maxLength = clamp(schema.maxLength, minLength, Math.max(minLength, 40), 40);
  if (schema.format === 'date-time') {
    return fc
      .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2035-12-31T00:00:00Z'), noInvalidDate: true })
      .map((date) => date.toISOString());
  }
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.pattern) {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((text) => text.length >= minLength && text.length <= (schema.maxLength ?? Infinity));
  }
  return fc.string({ minLength, maxLength, unit: fc.constantFrom('a', 'B', '7', ' ', 'é', '-', '_', '😀') });
}

/** A value the schema describes; every optional field comes and goes, open objects get extra keys. */
export function fromJsonSchema(schema: JsonSchema, hints: Hints, name = ''): fc.Arbitrary<Tree> {
  const hinted = hints[name];
  if (hinted) return hinted;
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices) return fc.oneof(...choices.map((choice) => fromJsonSchema(choice, hints, name)));
  if (Array.isArray(schema.type)) {
    return fc.oneof(...schema.type.map((type) => fromJsonSchema({ ...schema, type }, hints, name)));
  }
  switch (schema.type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({ min: clamp(schema.minimum, -1e6, 1e6, 0), max: clamp(schema.maximum, -1e6, 1e6, 1e6) });
    case 'number':
      return fc.double({
        min: clamp(schema.minimum, -1e6, 1e6, -1e6),
        max: clamp(schema.maximum, -1e6, 1e6, 1e6),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromJsonSchema(schema.items ?? {}, hints, `${name}[]`), {
        minLength: schema.minItems ?? 0,
        maxLength: clamp(schema.maxItems, schema.minItems ?? 0, 4, 4),
      });
    case 'object':
      return objectFor(schema, hints);
    default:
      return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Tree>;
  }
}

function objectFor(schema: JsonSchema, hints: Hints): fc.Arbitrary<Tree> {
  const properties = schema.properties ?? {};
  const model: Record<string, fc.Arbitrary<Tree>> = {};
  for (const [key, property] of Object.entries(properties)) model[key] = fromJsonSchema(property, hints, key);
  const known = fc.record(model, { requiredKeys: schema.required ?? [] });
  const open = schema.additionalProperties !== undefined && schema.additionalProperties !== false;
  if (!open) return known as fc.Arbitrary<Tree>;
  const extra = fc.dictionary(
    fc.string({ minLength: 1, maxLength: 8 }).filter((key) => !(key in properties)),
    fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Tree>,
    { maxKeys: 3 },
  );
  return fc.tuple(known, extra).map(([fields, more]) => {
    const merged: { [key: string]: Tree } = {};
    for (const [key, value] of Object.entries({ ...more, ...fields })) setOwn(merged, key, value as Tree);
    return merged;
  });
}

const MEGABYTE = 1024 * 1024;
const ONE_MB_ASCII = 'x'.repeat(MEGABYTE);
const ONE_MB_UTF8 = 'é'.repeat(MEGABYTE / 2);
const deep = (levels: number, open: string, close: string, inner = '1') =>
  new Raw(`${open.repeat(levels)}${inner}${close.repeat(levels)}`);

/** Lone surrogates of every kind, and strings of any code unit at all. */
const illFormed = fc.oneof(
  fc.constantFrom('A\ud800', '\udc00', 'x\ud83d', '\ude00x', '\udfff\ud800'),
  fc.string({
    unit: fc.integer({ min: 0xd7f0, max: 0xe00f }).map((code) => String.fromCharCode(code)),
    minLength: 1,
    maxLength: 6,
  }),
);

/** The hostile values of the fuzzing in docs/reliability.md: wrong types, huge and deep values, `__proto__`, ill-formed text, 1e309, 1 MB. */
export const nastyValue: fc.Arbitrary<Tree> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<Tree>(null, true, false, 0, -1, 1.5, 2 ** 53 + 2, 1e21, -1e-7) },
  { weight: 3, arbitrary: fc.constantFrom<Tree>('', ' ', '0', '1', 'true', 'null', '0x10', '1e3', '-0', 'NaN') },
  { weight: 2, arbitrary: fc.constantFrom<Tree>([], {}, [null], [[]], { a: {} }, [1, 'a', null]) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      new Raw('1e309'),
      new Raw('-1e309'),
      new Raw('1e-400'),
      new Raw('123456789012345678901234567890'),
      new Raw('-0.0'),
      new Raw('0.1e1'),
    ),
  },
  { weight: 3, arbitrary: illFormed },
  {
    weight: 2,
    arbitrary: fc.constantFrom<Tree>(
      '\u0000',
      'a\u202eb',
      '\ufeff',
      '😀'.repeat(100),
      'İ'.repeat(255),
      'ß'.repeat(300),
      "'; DROP TABLE affiliates; --",
      '%s%n',
      '../../etc/passwd',
      '<script>alert(1)</script>',
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) as fc.Arbitrary<Tree> },
  { weight: 1, arbitrary: fc.constantFrom<Tree>(ONE_MB_ASCII, ONE_MB_UTF8) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      deep(9, '{"a":', '}'),
      deep(33, '[', ']'),
      deep(5000, '{"a":', '}'),
      deep(5000, '[', ']'),
      deep(100_000, '[', ']', ''),
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      new Raw('{"__proto__":{"polluted":true}}'),
      new Raw('{"constructor":{"prototype":{"polluted":true}}}'),
      new Raw('{"__proto__":null,"a":1}'),
    ),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Tree> },
);

/** Keys a strict body must refuse, and keys that have bitten JavaScript servers before. */
const strangeKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'id',
  'createdAt',
  'campaignId',
  'totalPaid',
  '',
  'k\ud800',
  'x'.repeat(1000),
);

type Mutation = (tree: Tree) => fc.Arbitrary<Tree>;

const replaceSomewhere: Mutation = (tree) =>
  fc.tuple(fc.constantFrom(...pathsOf(tree)), nastyValue).map(([path, value]) => replaceAt(tree, path, value));

const removeSomewhere: Mutation = (tree) => {
  const paths = pathsOf(tree).filter((path) => path.length > 0);
  if (paths.length === 0) return fc.constant(tree);
  return fc.constantFrom(...paths).map((path) => replaceAt(tree, path, undefined));
};

function objectPaths(tree: Tree): (string | number)[][] {
  return pathsOf(tree).filter((path) => {
    let node: Tree = tree;
    for (const step of path) node = (node as Record<string, Tree>)[step] as Tree;
    return node !== null && typeof node === 'object' && !Array.isArray(node) && !(node instanceof Raw);
  });
}

const nodeAt = (tree: Tree, path: (string | number)[]) =>
  path.reduce<Tree>((node, step) => (node as Record<string, Tree>)[step] as Tree, tree);

const addKey: Mutation = (tree) => {
  const paths = objectPaths(tree);
  if (paths.length === 0) return fc.constant(tree);
  return fc.tuple(fc.constantFrom(...paths), strangeKey, nastyValue).map(([path, key, value]) => {
    const copy: { [key: string]: Tree } = {};
    const node = nodeAt(tree, path) as { [key: string]: Tree };
    for (const name of Object.keys(node)) setOwn(copy, name, node[name] as Tree);
    setOwn(copy, key, value);
    return replaceAt(tree, path, copy);
  });
};

/** The same key twice in one object: JSON.parse keeps the last, so the first may hide anything. */
const duplicateKey: Mutation = (tree) => {
  const paths = objectPaths(tree).filter((path) => Object.keys(nodeAt(tree, path) as object).length > 0);
  if (paths.length === 0) return fc.constant(tree);
  return fc.tuple(fc.constantFrom(...paths), nastyValue).map(([path, value]) => {
    const node = nodeAt(tree, path) as { [key: string]: Tree };
    const first = Object.keys(node)[0] as string;
    const text = `{${JSON.stringify(first)}:${JSON.stringify(value instanceof Raw ? null : value)},${Object.keys(node)
      .map((key) => `${JSON.stringify(key)}:${JSON.stringify(node[key] instanceof Raw ? null : node[key])}`)
      .join(',')}}`;
    return replaceAt(tree, path, new Raw(text));
  });
};

/** A batch past the 1,000-event cap, or exactly at it. */
const manyEvents: Mutation = (tree) => {
  const events =
    tree !== null && typeof tree === 'object' && !Array.isArray(tree) && !(tree instanceof Raw)
      ? tree.events
      : undefined;
  if (!Array.isArray(events) || events.length === 0) return fc.constant(tree);
  // Past 3 MB a body says nothing new (2 MiB is the limit) and costs time to build and send.
  const size = toJsonText(events[0] as Tree).length + 1;
  return fc
    .constantFrom(1000, 1001, 5000)
    .map((count) => Math.min(count, Math.max(1, Math.floor((3 * MEGABYTE) / size))))
    .map((count) =>
      replaceAt(
        tree,
        ['events'],
        Array.from({ length: count }, (_, i) => events[i % events.length] as Tree),
      ),
    );
};

const MUTATIONS: { weight: number; arbitrary: (tree: Tree) => fc.Arbitrary<Tree> }[] = [
  { weight: 8, arbitrary: replaceSomewhere },
  { weight: 3, arbitrary: removeSomewhere },
  { weight: 3, arbitrary: addKey },
  { weight: 1, arbitrary: duplicateKey },
  { weight: 1, arbitrary: manyEvents },
];

/** 0 to 3 mutations of a valid value (0 keeps valid requests in the mix, so 2xx paths are fuzzed too). */
export function mutated(base: fc.Arbitrary<Tree>): fc.Arbitrary<{ value: Tree; mutations: number }> {
  return fc.tuple(base, fc.constantFrom(0, 1, 1, 1, 2, 3)).chain(([value, count]) => {
    let arbitrary: fc.Arbitrary<Tree> = fc.constant(value);
    for (let i = 0; i < count; i++) {
      arbitrary = arbitrary.chain((tree) =>
        fc.oneof(...MUTATIONS.map(({ weight, arbitrary: mutate }) => ({ weight, arbitrary: mutate(tree) }))),
      );
    }
    return arbitrary.map((tree) => ({ value: tree, mutations: count }));
  });
}
