import type Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { ResponseOf, RouteGroup, RouteSpec, ValidatedInput } from '../../shared/contract/route.js';
import { isContentResponse, successStatus } from '../../shared/contract/route.js';
import { MESSAGES } from '../../shared/errors.js';
import { parseWith } from '../../shared/schemas/validation.js';
import { HttpError, ValidationError } from '../errors.js';
import { authOf, requireApiKey } from '../middleware/auth.js';
import { jsonBody } from '../middleware/body.js';
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

/** A route's handler: validated input in, the response body out; no rules here (style.md). */
export type Handler<R extends RouteSpec> = (
  input: RouteInput<R>,
  services: Services,
  reply: ReplyControl,
) => Promise<ResponseOf<R>> | ResponseOf<R>;

export type Handlers<G extends RouteGroup> = { [K in keyof G]: Handler<G[K]> };

/** Path ids are the only path parameters: a bad one is the spec's 4.3 message, as it is. */
function validateParams(route: RouteSpec, ctx: Context): unknown {
  if (!route.params) return undefined;
  const result = parseWith(route.params, { ...ctx.params });
  if (!result.ok) throw new ValidationError(MESSAGES.numericId);
  return result.data;
}

function validatePart(schema: RouteSpec['query' | 'body'], input: unknown): unknown {
  if (!schema) return undefined;
  const result = parseWith(schema, input);
  // product §3.6: every failed rule is one message of a single 400.
  if (!result.ok) throw new ValidationError(result.messages);
  return result.data;
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
  return async function respond(ctx: Context): Promise<void> {
    const input = {
      params: validateParams(route, ctx),
      query: validatePart(route.query, { ...ctx.query }),
      body: validatePart(route.body, ctx.request.body),
      auth: route.auth === 'none' ? undefined : authOf(ctx),
    } as RouteInput<RouteSpec>;
    const reply: ReplyControl = {
      requestHeader: (name) => ctx.get(name),
      setHeader: (name, value) => ctx.set(name, value),
    };
    const body = await handler(input, services, reply);
    ctx.status = status;
    if (contentType) ctx.type = contentType;
    ctx.body = body;
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
  for (const [groupName, group] of Object.entries(contract)) {
    const groupHandlers = handlers[groupName] as Record<string, Handler<RouteSpec>>;
    for (const [name, route] of Object.entries(group)) {
      const handler = groupHandlers[name];
      if (!handler) throw new Error(`no handler for ${route.operationId}`);
      const chain: Middleware[] = [];
      if (route.auth !== 'none') {
        chain.push(requireApiKey(deps.authenticator, route.auth === 'apiKeyEvents' ? 'events' : 'affiliates'));
      }
      if (route.body) chain.push(body);
      if (route.guard) chain.push(guardBody(route));
      chain.push(handle(route, handler, deps.services));
      router.register(RouteTable.routerPath(route), [route.method.toUpperCase()], chain, {
        name: route.operationId,
      });
    }
  }
}
