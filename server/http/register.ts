import type Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { ResponseOf, RouteGroup, RouteSpec, ValidatedInput } from '../../shared/contract/route.js';
import { isContentResponse, successStatus } from '../../shared/contract/route.js';
import { MESSAGES } from '../../shared/errors.js';
import { parseWith } from '../../shared/schemas/validation.js';
import { HttpError, ValidationError } from '../errors.js';
import { authOf, requireApiKey } from '../middleware/auth.js';
import { jsonBody, noBody, rawBody } from '../middleware/body.js';
import type { AuthenticatedCampaign, ApiKeyAuthenticator } from '../services/auth.js';
import type { Services } from '../services/index.js';
import { RouteTable } from './routeTable.js';

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
        ? { body: ctx.request.rawBody ?? Buffer.alloc(0), signature: ctx.get(route.signedBody.header) || undefined }
        : undefined,
      auth: route.auth === 'none' ? undefined : authOf(ctx),
    } as RouteInput<RouteSpec>;
    const context = check ? await check({ auth: input.auth, body: ctx.request.body }, services) : [];
    if (failures.length + context.length > 0) throw new ValidationError(merge(failures, context));
    const reply: ReplyControl = {
      requestHeader: (name) => ctx.get(name),
      setHeader: (name, value) => ctx.set(name, value),
    };
    const answer = await run(input, services, reply);
    ctx.status = status;
    if (contentType) ctx.type = contentType;
    ctx.body = answer;
    // A route that declares an ETag answers 304, with no body, to a client that has it already.
    if (route.etag && ctx.response.get('ETag') && ctx.fresh) ctx.status = 304;
  };
}

/**
 * Registers every route of the contract: the key policy, the JSON body reader, the route's
 * guard, validation of params, query and body, then the handler. A route without a handler is
 * a type error, so the router and the contract list the same routes.
 */
export function registerRoutes<C extends Record<string, RouteGroup>>(
  router: Router,
  contract: C,
  handlers: { [G in keyof C]: Handlers<C[G]> },
  deps: { services: Services; authenticator: ApiKeyAuthenticator },
): void {
  const body = jsonBody();
  const raw = rawBody();
  const bodiless = noBody();
  for (const [groupName, group] of Object.entries(contract)) {
    const groupHandlers = handlers[groupName] as Record<string, Handler<RouteSpec> | undefined>;
    for (const [name, route] of Object.entries(group)) {
      const handler = groupHandlers[name];
      if (!handler) throw new Error(`no handler for ${route.operationId}`);
      // A body where none is taken is refused first: before a key lookup, and before anything acts.
      const chain: Middleware[] = route.body || route.signedBody ? [] : [bodiless];
      if (route.auth !== 'none') {
        chain.push(requireApiKey(deps.authenticator, route.auth === 'apiKeyEvents' ? 'events' : 'affiliates'));
      }
      if (route.body) chain.push(body);
      if (route.signedBody) chain.push(raw);
      if (route.guard) chain.push(guardBody(route));
      chain.push(handle(route, handler, deps.services));
      router.register(RouteTable.routerPath(route), [route.method.toUpperCase()], chain, {
        name: route.operationId,
      });
    }
  }
}
