import { type Contract, contract } from '../contract/index.js';
import {
  type ClientInput,
  isContentResponse,
  type ResponseOf,
  type RouteGroup,
  type RouteSpec,
  schemaOf,
  successStatus,
} from '../contract/route.js';
import { type ClientOptions, callApi, RawJsonBody, type Reply } from './http.js';

export { ApiError, ConnectionError, type RateLimitInfo, UnexpectedResponseError } from './errors.js';
export { type ClientOptions, RawJsonBody, type Reply } from './http.js';

/** A route's input with its body already written as JSON (see `RawJsonBody`). */
export type RawJsonBodyInput<R extends RouteSpec> = Omit<ClientInput<R>, 'body'> & { body: RawJsonBody };

/** Calling a route: its input (nothing when it takes none), its parsed success body back. */
type Call<R extends RouteSpec> = (
  ...input: Record<string, never> extends ClientInput<R> ? [input?: ClientInput<R>] : [input: ClientInput<R>]
) => Promise<ResponseOf<R>>;

type ClientGroup<G extends RouteGroup> = { [K in keyof G]: Call<G[K]> };

/**
 * The typed `/v1` client shared by the CLI and anyone scripting against the daemon, derived from
 * the route contract: one method per route (`client.affiliates.get({ params: { id } })`), answers
 * parsed with the same zod schemas the server validates with.
 */
export type ApiClient = { readonly baseUrl: string } & { [G in keyof Contract]: ClientGroup<Contract[G]> } & {
  /** The whole reply (status and rate-limit headers too), for callers that pace themselves. */
  request<R extends RouteSpec>(route: R, input: ClientInput<R> | RawJsonBodyInput<R>): Promise<Reply<ResponseOf<R>>>;
};

/** `/v1/affiliates/{id}` with `{ id: 7 }` → `/v1/affiliates/7`. */
export function pathOf(route: RouteSpec, params: Record<string, string | number> = {}): string {
  return route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${route.operationId} needs the path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}

export function createApiClient(options: ClientOptions): ApiClient {
  async function request<R extends RouteSpec>(
    route: R,
    input: ClientInput<R> | RawJsonBodyInput<R>,
  ): Promise<Reply<ResponseOf<R>>> {
    const spec = route.responses[successStatus(route) as keyof RouteSpec['responses']];
    if (!spec || isContentResponse(spec)) throw new TypeError(`${route.operationId} does not answer JSON`);
    const { params, query, body } = input as {
      params?: Record<string, string | number>;
      query?: object;
      body?: unknown;
    };
    return callApi(options, route.method.toUpperCase() as 'GET', pathOf(route, params), schemaOf(spec), {
      query: query as Record<string, string | number | boolean | undefined> | undefined,
      body,
    }) as Promise<Reply<ResponseOf<R>>>;
  }

  return clientFrom(options.baseUrl, request);
}

/**
 * A client whose every call goes through `request`: the typed methods of `createApiClient` over
 * another way of sending (the CLI's `pacedClient` waits out the rate limit around each call).
 */
export function clientFrom(baseUrl: string, request: ApiClient['request']): ApiClient {
  const groups = Object.fromEntries(
    Object.entries(contract).map(([groupName, group]) => [
      groupName,
      Object.fromEntries(
        Object.entries(group as RouteGroup).map(([name, route]) => [
          name,
          async (input: ClientInput<RouteSpec> = {} as ClientInput<RouteSpec>) => (await request(route, input)).body,
        ]),
      ),
    ]),
  ) as unknown as { [G in keyof Contract]: ClientGroup<Contract[G]> };

  return { baseUrl, request, ...groups };
}
