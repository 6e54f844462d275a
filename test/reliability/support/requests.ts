import fc from 'fast-check';
import { z } from 'zod';
import type { RouteSpec } from '../../../shared/contract/route.js';
import { jsonShapeIssues } from '../../../shared/schemas/jsonShape.js';
import { BODY_LIMIT_BYTES, BODY_MAX_DEPTH } from '../../../server/middleware/body.js';
import { fromJsonSchema, type Hints, type JsonSchema, mutated } from './arbitraries.js';
import { Raw, toJsonText, type Tree } from './json.js';

/** One generated request, and whether the contract says it must be refused. */
export interface FuzzRequest {
  route: RouteSpec;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** Why the request must get a 4xx; empty when it may succeed. */
  mustRefuse: string[];
  /** The method is not the route's: 404, 405 or 501 are the only answers. */
  otherMethod: boolean;
  mutations: number;
}

export interface FuzzKeys {
  valid: string;
  revoked: string;
}

const schemaOf = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/** koa's `ctx.query` (lib/search-params.js): URLSearchParams, repeated keys become arrays. */
export function koaQuery(text: string): Record<string, string | string[]> {
  const params = new URLSearchParams(text);
  const parsed: Record<string, string | string[]> = {};
  for (const key of params.keys()) {
    const values = params.getAll(key);
    Object.defineProperty(parsed, key, {
      value: values.length <= 1 ? values[0] : values,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return parsed;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const encode = (text: string) => {
  try {
    return encodeURIComponent(text);
  } catch {
    // A lone surrogate cannot be percent-encoded as UTF-8: send the replacement bytes.
    return encodeURIComponent(text.replace(/\p{Cs}/gu, '\ufffd'));
  }
};

/** Query values: as the schema says (as text), or hostile. */
const nastyQueryValue = fc.oneof(
  fc.constantFrom('0x10', '0b11', '0o7', '1e1', '-1', '0', '101', '1.5', '', ' ', 'abc', '+5', 'Infinity'),
  fc.constantFrom('9007199254740993', '99999999999999999999999', 'x'.repeat(10_000), 'İ'.repeat(300)),
  fc.constantFrom(new Raw('%'), new Raw('%ZZ'), new Raw('%ED%A0%80'), new Raw('%00'), new Raw('%FF%FE')),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const strangeQueryKey = fc.constantFrom(
  'sort',
  '__proto__',
  'constructor',
  'toString',
  'page[]',
  'limit[x]',
  '',
  'x'.repeat(300),
);

type QueryPair = [string | Raw, string | Raw];

function queryPairs(route: RouteSpec, hints: Hints): fc.Arbitrary<QueryPair[]> {
  const base: fc.Arbitrary<QueryPair[]> = route.query
    ? fromJsonSchema(schemaOf(route.query), hints).map((value) =>
        Object.entries((value ?? {}) as Record<string, Tree>).map(([k, v]): QueryPair => [k, String(v)]),
      )
    : fc.constant([]);
  const mutation = fc.oneof(
    { weight: 3, arbitrary: fc.constant((pairs: QueryPair[]) => pairs) },
    {
      weight: 4,
      arbitrary: nastyQueryValue.chain((value) =>
        fc.nat().map((n) => (pairs: QueryPair[]) => {
          if (pairs.length === 0) return [['page', value] as QueryPair];
          const copy = [...pairs];
          const at = n % copy.length;
          copy[at] = [(copy[at] as QueryPair)[0], value];
          return copy;
        }),
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(strangeQueryKey, nastyQueryValue)
        .map(([key, value]) => (pairs: QueryPair[]) => [...pairs, [key, value] as QueryPair]),
    },
    { weight: 1, arbitrary: fc.constant((pairs: QueryPair[]) => [...pairs, ...pairs]) },
  );
  return fc.tuple(base, mutation).map(([pairs, change]) => change(pairs));
}

const queryText = (pairs: QueryPair[]) =>
  pairs.map(([k, v]) => `${k instanceof Raw ? k.text : encode(k)}=${v instanceof Raw ? v.text : encode(v)}`).join('&');

const nastySegment = fc.constantFrom(
  '-1',
  '1.5',
  '0x10',
  '1e3',
  '99999999999999999999',
  '4294967296',
  '0',
  '%00',
  '%ED%A0%80',
  '..%2F..%2Fetc',
  'abc',
  '%20',
  encode('😀'),
  '00000001',
  'x'.repeat(5000),
  '%',
  '1%2F2',
);

const KEY_KINDS = ['valid', 'missing', 'unknown', 'revoked', 'padded', 'huge', 'garbage'] as const;
type KeyKind = (typeof KEY_KINDS)[number];

function keyHeader(kind: KeyKind, keys: FuzzKeys): string | undefined {
  switch (kind) {
    case 'valid':
      return keys.valid;
    case 'missing':
      return undefined;
    case 'unknown':
      return `afk_${'Z'.repeat(32)}`;
    case 'revoked':
      return keys.revoked;
    case 'padded':
      return `  ${keys.valid}\t`;
    case 'huge':
      return `afk_${'a'.repeat(20_000)}`;
    case 'garbage':
      return 'Bearer \u00ff\u00fe';
  }
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
];
const jsonLike = (type: string) => /^application\/(json|[\w.-]+\+json)\b/.test(type);

/** Headers a client may add, sensible or not; the answer must stay in the contract either way. */
const EXTRA_HEADERS: Record<string, string>[] = [
  {},
  { accept: 'text/html' },
  { accept: 'application/xml;q=1, */*;q=0' },
  { origin: 'https://evil.example' },
  { 'x-forwarded-for': '203.0.113.7, not-an-ip' },
  { 'content-encoding': 'gzip' },
  { 'accept-encoding': 'br, gzip, identity;q=0' },
  { 'if-none-match': '*' },
  { cookie: 'session=1; __proto__=x' },
  { 'x-api-key-2': 'afk_x', 'x-http-method-override': 'DELETE' },
];

const RAW_BODIES = [
  '',
  '{',
  '{"a":1',
  'null',
  '[]',
  '"text"',
  '\ufeff{}',
  'not json',
  '{"a":1}{"b":2}',
  ' '.repeat(5000),
  'true',
];
const OTHER_METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'PROPFIND', 'TRACE', 'PURGE', 'SEARCH', 'MKCOL'];

/** The contract's verdict on a body: the reasons it must be refused (none: it may pass). */
function bodyVerdict(route: RouteSpec, text: string | undefined, contentType: string): string[] {
  // A route that takes no body refuses one (413), whatever it holds (docs/spec.md §10.13).
  if (!route.body) return text === undefined || text === '' ? [] : ['a body where the route takes none'];
  if (text === undefined || text === '') {
    return route.body.safeParse(undefined).success ? [] : ['no body'];
  }
  if (!jsonLike(contentType)) return ['not JSON'];
  if (Buffer.byteLength(text) > BODY_LIMIT_BYTES) return ['too large'];
  let parsed: unknown;
  try {
    // A leading byte-order mark is ignored, as RFC 8259 §8.1 allows (docs/spec.md §7).
    parsed = JSON.parse(text.replace(/^\ufeff/, ''));
  } catch {
    return ['malformed JSON'];
  }
  if (jsonShapeIssues(parsed, BODY_MAX_DEPTH).length > 0) return ['ill-formed text or too deep'];
  return route.body.safeParse(parsed).success ? [] : ['invalid per the contract'];
}

/** A request for one route: valid as the contract's schemas describe it, then mutated. */
export function requestFor(route: RouteSpec, hints: Hints, keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  const segment = fc.oneof(
    { weight: 7, arbitrary: (hints.id ?? fc.constant('1')).map(String) },
    { weight: 3, arbitrary: nastySegment },
  );
  const body = route.body
    ? fc.oneof(
        {
          weight: 9,
          arbitrary: mutated(fromJsonSchema(schemaOf(route.body), hints)).map(({ value, mutations }) => ({
            text: toJsonText(value),
            mutations,
          })),
        },
        { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES).map((text) => ({ text, mutations: 1 })) },
      )
    : fc.option(fc.constant({ text: '{"ignored":true}', mutations: 0 }), { freq: 20, nil: undefined });
  const keyKind = fc.constantFrom<KeyKind>(
    ...KEY_KINDS.flatMap((kind) => (kind === 'valid' ? Array(12).fill(kind) : [kind])),
  );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/json') },
    { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  );
  const method = fc.oneof(
    { weight: 19, arbitrary: fc.constant(route.method.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) },
  );
  const extra = fc.oneof(
    { weight: 4, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.constantFrom(...EXTRA_HEADERS) },
  );
  return fc
    .record({ segment, pairs: queryPairs(route, hints), body, keyKind, contentType, method, extra })
    .map(({ segment: id, pairs, body: sent, keyKind: kind, contentType: type, method: verb, extra: added }) => {
      const mustRefuse: string[] = [];
      const path = route.path.replace('{id}', id);
      if (route.params && !route.params.safeParse({ id: safeDecode(id) }).success) mustRefuse.push('bad path id');
      const query = queryText(pairs);
      if (route.query && !route.query.safeParse({ ...koaQuery(query) }).success) mustRefuse.push('bad query');
      const headers: Record<string, string> = { ...added };
      const key = keyHeader(kind, keys);
      if (key !== undefined) headers['x-api-key'] = key;
      if (route.auth !== 'none' && !['valid', 'padded'].includes(kind)) mustRefuse.push(`${kind} key`);
      // undici sends no body with a GET, so a GET route is judged on the body it really gets.
      const text = verb === 'GET' && !route.body ? undefined : sent?.text;
      if (sent !== undefined) headers['content-type'] = type;
      mustRefuse.push(...bodyVerdict(route, text, type));
      const otherMethod = verb !== route.method.toUpperCase();
      const mutations = (sent?.mutations ?? 0) + (kind === 'valid' ? 0 : 1) + (pairs.length > 0 ? 1 : 0);
      const request: FuzzRequest = {
        route,
        method: verb,
        path: query === '' ? path : `${path}?${query}`,
        headers,
        body: text,
        mustRefuse: otherMethod ? [] : mustRefuse,
        otherMethod,
        mutations,
      };
      // fast-check prints a counterexample with this, not the route's zod schemas or a 1 MB body.
      return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
    });
}

/** A request in one line, its body cut to 300 characters. */
export function describeRequest(request: FuzzRequest): string {
  const body = request.body;
  const shown =
    body === undefined ? '' : ` ${body.length > 300 ? `${body.slice(0, 300)}… (${body.length} chars)` : body}`;
  const headers = Object.entries(request.headers)
    .map(([name, value]) => `${name}: ${value.length > 60 ? `${value.slice(0, 60)}… (${value.length} chars)` : value}`)
    .join('; ');
  return `${request.method} ${request.path.slice(0, 300)} [${headers}]${shown}`;
}
