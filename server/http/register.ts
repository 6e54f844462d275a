import { type Router, RouterEvents } from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { ResponseOf, RouteGroup, RouteSpec, ValidatedInput } from '../../shared/contract/route.js';
import { isContentResponse, successStatus } from '../../shared/contract/route.js';
import { MESSAGES } from '../../shared/errors.js';
import { parseWith } from '../../shared/schemas/validation.js';
import { HttpError, ValidationError } from '../errors.js';
import { authOf, requireApiKey } from '../middleware/auth.js';
import { jsonBody, noBody, rawBody } from '../middleware/body.js';
import { allowBrowsers } from '../middleware/cors.js';
import { methodGate } from '../middleware/methods.js';
import type { RateLimit } from '../middleware/rateLimit.js';
import { actingAs, keyActor } from '../services/audit.js';
import type { AuthenticatedCampaign, ApiKeyAuthenticator } from '../services/auth.js';
import type { Services } from '../services/index.js';
import { contractPaths, routerPath } from './routeTable.js';

/** What a handler may say about the HTTP answer besides its body (headers such as ETag). */
export interface ReplyControl {
  /** A request header, lower-case name. */
  requestHeader(name: string): string;
  setHeader(name: string, value: string): void;
}

export type RouteInput<R extends RouteSpec> = ValidatedInput<R> & {
  /** The key's campaign, on routes whose policy asks for a key. */
  auth: R['auth'] extends 'none' ? undefined : AuthenticatedCampaign;
};

/** A route's handler: validated input in, the response body out; no rules here (docs/architecture.md). */
export type HandlerFn<R extends RouteSpec> = (
  input: RouteInput<R>,
  services: Services,
  reply: ReplyControl,
) => Promise<ResponseOf<R>> | ResponseOf<R>;

/**
 * A rule of validation that needs the request's context (the key's campaign, the database): it
 * reads the input as it arrived, valid or not, and names each failure, so that one 400 lists
 * them with the schema's (spec §10.6). It asks a service; the rule lives there.
 */
export type ContextCheck<R extends RouteSpec> = (
  input: { auth: RouteInput<R>['auth']; body: unknown },
  services: Services,
) => Promise<string[]> | string[];

export type Handler<R extends RouteSpec> = HandlerFn<R> | { check: ContextCheck<R>; handle: HandlerFn<R> };

export type Handlers<G extends RouteGroup> = { [K in keyof G]: Handler<G[K]> };

/**
 * A bad path id is the message of spec §4.3, as it is; another path parameter (a provider's
 * name) names its rule, as a query's would.
 */
function validateParams(route: RouteSpec, ctx: Context): unknown {
  if (!route.params) return undefined;
  const result = parseWith(route.params, { ...ctx.params });
  if (result.ok) return result.data;
  const ids = result.messages.some((message) => /^(?:id|deliveryId) /.test(message));
  throw new ValidationError(ids ? MESSAGES.numericId : result.messages);
}

/** The schema's failures of one part of the request, as messages (none when it is valid). */
function validatePart(schema: RouteSpec['query' | 'body'], input: unknown, failures: string[]): unknown {
  if (!schema) return undefined;
  const result = parseWith(schema, input);
  if (result.ok) return result.data;
  failures.push(...result.messages);
  return undefined;
}

/** `events.3.…` → 3; -1 for a message about no item of a list. */
function itemIndex(message: string): number {
  const match = /^(?:property )?\w+\.(\d+)\./.exec(message);
  return match ? Number(match[1]) : -1;
}

/** The context's messages among the schema's, each after the schema's messages of the same item. */
function merge(schemaMessages: string[], contextMessages: string[]): string[] {
  const merged = [...schemaMessages];
  for (const message of contextMessages) {
    const index = itemIndex(message);
    const before = merged.findIndex((other) => itemIndex(other) > index);
    merged.splice(before === -1 ? merged.length : before, 0, message);
  }
  return merged;
}

function guardBody(route: RouteSpec): Middleware {
  return async function guard(ctx: Context, next: Next): Promise<void> {
    const refused = route.guard?.(ctx.request.body);
    if (refused) throw new HttpError(refused.status, refused.message);
    return next();
  };
}

/**
 * An object answer as its JSON's UTF-8 bytes, typed as Koa types JSON: Koa would stringify it,
 * count its bytes, then encode the text again to write it, three passes over an answer that may
 * be hundreds of kilobytes (a month of analytics by day by affiliate); this is one.
 */
function jsonBytes(ctx: Context, answer: unknown): unknown {
  if (answer === null || typeof answer !== 'object' || Buffer.isBuffer(answer)) return answer;
  const proto: unknown = Object.getPrototypeOf(answer);
  if (proto !== Object.prototype && !Array.isArray(answer)) return answer;
  ctx.type = 'json';
  return Buffer.from(JSON.stringify(answer));
}

function handle(route: RouteSpec, handler: Handler<RouteSpec>, services: Services): Middleware {
  const status = successStatus(route);
  const spec = route.responses[status as keyof RouteSpec['responses']];
  const contentType = spec && isContentResponse(spec) ? spec.contentType : undefined;
  const { check, handle: run } = typeof handler === 'function' ? { check: undefined, handle: handler } : handler;
  return async function respond(ctx: Context): Promise<void> {
    // spec §10.6: every failed rule is one message of a single 400, context rules included.
    const failures: string[] = [];
    const input = {
      params: validateParams(route, ctx),
      query: validatePart(route.query, { ...ctx.query }, failures),
      body: validatePart(route.body, ctx.request.body, failures),
      signed: route.signedBody
        ? {
            body: ctx.request.rawBody ?? Buffer.alloc(0),
            signature: ctx.get(route.signedBody.header) || undefined,
            headers: Object.fromEntries(
              (route.signedBody.otherHeaders ?? []).map((name) => [name.toLowerCase(), ctx.get(name) || undefined]),
            ),
          }
        : undefined,
      auth: route.auth === 'none' ? undefined : authOf(ctx),
    } as RouteInput<RouteSpec>;
    const context = check ? await check({ auth: input.auth, body: ctx.request.body }, services) : [];
    if (failures.length + context.length > 0) throw new ValidationError(merge(failures, context));
    const reply: ReplyControl = {
      requestHeader: (name) => ctx.get(name),
      setHeader: (name, value) => ctx.set(name, value),
    };
    // What the handler changes is recorded as the key's doing, from this client's address.
    const answer = input.auth
      ? await actingAs(keyActor(input.auth, ctx.ip), async () => run(input, services, reply))
      : await run(input, services, reply);
    ctx.status = status;
    if (contentType) ctx.type = contentType;
    ctx.body = contentType ? answer : jsonBytes(ctx, answer);
    // A route that declares an ETag answers 304, with no body, to a client that has it already.
    if (route.etag && ctx.response.get('ETag') && ctx.fresh) ctx.status = 304;
  };
}

/**
 * Registers every route of the contract. Per path, most specific first, the method gate (405,
 * `OPTIONS`); per route, its chain: CORS where the route is open to browsers, its rate limit's
 * bucket, the refusal of a body where none is taken, the key policy, the JSON body reader, the
 * route's guard, validation of params, query and body, then the handler. A request no route
 * has is counted as `default` and left to what follows the router (404, 501). A route without a
 * handler is a type error, so the router and the contract list the same routes.
 */
export function registerRoutes<C extends Record<string, RouteGroup>>(
  router: Router,
  contract: C,
  handlers: { [G in keyof C]: Handlers<C[G]> },
  deps: { services: Services; authenticator: ApiKeyAuthenticator; rateLimit: RateLimit },
): void {
  const body = jsonBody();
  const raw = rawBody();
  const bodiless = noBody();
  const chainOf = (route: RouteSpec, handler: Handler<RouteSpec>): Middleware[] => {
    const chain: Middleware[] = route.cors ? [allowBrowsers] : [];
    if (route.rateLimit !== 'none') chain.push(deps.rateLimit(route.rateLimit));
    // A body where none is taken is refused first: before a key lookup, and before anything acts.
    if (!route.body && !route.signedBody) chain.push(bodiless);
    if (route.auth !== 'none') {
      chain.push(requireApiKey(deps.authenticator, route.auth === 'apiKeyEvents' ? 'events' : 'affiliates'));
    }
    if (route.body) chain.push(body);
    if (route.signedBody) chain.push(raw);
    if (route.guard) chain.push(guardBody(route));
    chain.push(handle(route, handler, deps.services));
    return chain;
  };
  const routeHandlers = new Map<RouteSpec, Handler<RouteSpec>>();
  for (const [groupName, group] of Object.entries(contract)) {
    const groupHandlers = handlers[groupName] as Record<string, Handler<RouteSpec> | undefined>;
    for (const [name, route] of Object.entries(group)) {
      const handler = groupHandlers[name];
      if (!handler) throw new Error(`no handler for ${route.operationId}`);
      routeHandlers.set(route, handler);
    }
  }
  const gates = new Map<string, Middleware>();
  // Most specific path first, each path's gate before its routes: the router runs every layer a
  // request matches in the order they were registered, and a route's chain ends the request.
  for (const at of contractPaths([...routeHandlers.keys()])) {
    const path = routerPath(at.path);
    const [first] = at.routes;
    const gate = methodGate(at, deps.rateLimit(first?.rateLimit ?? 'default'));
    router.register(path, [], gate);
    gates.set(path, gate);
    for (const route of at.routes) {
      const handler = routeHandlers.get(route);
      if (!handler) continue;
      router.register(path, [route.method.toUpperCase()], chainOf(route, handler), { name: route.operationId });
    }
  }
  // No route has the method at a path of the contract: that path's gate answers. No path at all:
  // counted as `default`, then what follows the router (docs assets, 404, 501).
  const unrouted = deps.rateLimit('default');
  router.on(RouterEvents.NotFound, (ctx, next) => {
    // Layers are in the order they were registered: the first path is the most specific.
    const gate = ctx.matched?.map((layer) => gates.get(String(layer.path))).find((found) => found !== undefined);
    return (gate ?? unrouted)(ctx, next);
  });
}
