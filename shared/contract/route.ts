import type { z } from 'zod';

/**
 * One route of the API as data (one contract, three uses: docs/architecture.md). The server registers and
 * validates from it, the client derives its calls and answer parsing from it, and the OpenAPI
 * document is generated from it, so the three can never disagree.
 */
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call: `apiKey` answers a revoked key with 401 (spec §5.6), `apiKeyEvents` with 403
 * (spec §5.7), `none` takes no key (the browser SDK, health, the documents).
 */
export type AuthPolicy = 'apiKey' | 'apiKeyEvents' | 'none';

/** spec §8: `/v1/events` per key, `/v1/sdk/events` per IP, everything else `default`; `none` is not counted. */
export type RateLimitBucket = 'default' | 'events' | 'sdk' | 'none';

/** A response that is not JSON (the tracking script, the HTML reference). */
export interface ContentResponse {
  contentType: string;
  schema: z.ZodType;
}
export type ResponseSpec = z.ZodType | ContentResponse;

/**
 * What the document shows, and what its reference page's "Try it out" sends: a request that
 * succeeds in the example world (shared/contract/examples.ts) and the answer it gets there.
 * Required of every route; tests check each against the route's schemas and the daemon.
 */
export interface RouteExamples {
  params?: Record<string, string | number>;
  query?: Record<string, string | number>;
  body?: unknown;
  /** The answer of the route's first success status. */
  response: unknown;
}

/**
 * A body its sender signed (billing providers' webhooks): read as raw bytes, not parsed, and
 * handed with the signature header to the handler, whose service checks the signature before
 * anything reads the body (docs/integrations.md). `schema` documents what the body is once verified.
 */
export interface SignedBody {
  /** The request header carrying the signature, e.g. `Stripe-Signature`. */
  header: string;
  description: string;
  /** The header's form (a real one is computed over the body, within minutes of sending). */
  example: string;
  schema: z.ZodType;
  /** Further headers the check needs (PayPal signs with five), handed over by their lower-case names. */
  otherHeaders?: readonly string[];
}

/** What a handler of a signed-body route receives: the bytes as they arrived and the signature header. */
export interface SignedDelivery {
  body: Buffer;
  signature: string | undefined;
  /** The route's `otherHeaders`, by lower-case name. */
  headers?: Readonly<Record<string, string | undefined>>;
}

/** A rule that outranks validation: checked on the raw body first (e.g. conversions from browsers are 403). */
export type BodyGuard = (body: unknown) => { status: 403; message: string } | undefined;

export interface RouteSpec {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI form: `/v1/affiliates/{id}`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: AuthPolicy;
  rateLimit: RateLimitBucket;
  /** Open to every origin (spec §10.11: only the browser SDK routes). */
  cors?: boolean;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** A signed body read raw (never with `body`): the handler gets it as `signed`. */
  signedBody?: SignedBody;
  guard?: BodyGuard;
  /** Success statuses and their bodies; the first 2xx is what the handler's return value is sent with. */
  responses: Partial<Record<200 | 201 | 202 | 204, ResponseSpec>>;
  /** The handler sets an ETag: an `If-None-Match` that matches it is answered 304 with no body. */
  etag?: boolean;
  /** Error statuses the route can answer, each with the spec's error body (429 and 500 are implied). */
  errors: readonly number[];
  examples: RouteExamples;
}

export function defineRoute<const R extends RouteSpec>(route: R): R {
  return route;
}

export function isContentResponse(spec: ResponseSpec): spec is ContentResponse {
  return typeof spec === 'object' && spec !== null && 'contentType' in spec;
}

export function schemaOf(spec: ResponseSpec): z.ZodType {
  return isContentResponse(spec) ? spec.schema : spec;
}

/** The status a handler's return value is sent with. */
export function successStatus(route: RouteSpec): number {
  const statuses = Object.keys(route.responses).map(Number).sort();
  return statuses[0] ?? 200;
}

type SchemaOf<S> = S extends ContentResponse ? S['schema'] : S extends z.ZodType ? S : never;
type FirstSuccess<R extends RouteSpec> = R['responses'] extends { 200: infer S }
  ? S
  : R['responses'] extends { 201: infer S }
    ? S
    : R['responses'] extends { 202: infer S }
      ? S
      : never;

/** What a route answers on success, as parsed. */
export type ResponseOf<R extends RouteSpec> = z.output<SchemaOf<FirstSuccess<R>>>;

type Part<S, Use extends 'input' | 'output'> = S extends z.ZodType
  ? Use extends 'input'
    ? z.input<S>
    : z.output<S>
  : undefined;

/** What a handler receives once validation passed. */
export interface ValidatedInput<R extends RouteSpec> {
  params: Part<R['params'], 'output'>;
  query: Part<R['query'], 'output'>;
  body: Part<R['body'], 'output'>;
  signed: R['signedBody'] extends SignedBody ? SignedDelivery : undefined;
}

/** What a client sends: path parameters by name, the query and body before defaults apply. */
export type ClientInput<R extends RouteSpec> = (R['params'] extends z.ZodObject
  ? { params: { [K in keyof z.input<R['params']>]: string | number } }
  : { params?: undefined }) &
  (R['query'] extends z.ZodType ? { query?: z.input<R['query']> } : { query?: undefined }) &
  (R['body'] extends z.ZodType ? { body: z.input<R['body']> } : { body?: undefined });

/** A group of routes (one resource), keyed by the name the client calls them by. */
export type RouteGroup = Record<string, RouteSpec>;
