import type { HttpMethod, RouteSpec } from '../../shared/contract/route.js';

/** Every route at one path of the contract, such as `/v1/conversions/{id}` (GET and PATCH). */
export interface ContractPath {
  /** The contract's form, `/v1/conversions/{id}`. */
  path: string;
  routes: RouteSpec[];
  /** The path's methods, upper-case, in the order an `Allow` header lists them. */
  methods: string[];
  /** What an `Allow` header lists: the methods, HEAD with GET (the router serves both). */
  allow: string[];
}

/** The order methods are listed in an `Allow` header. */
const METHOD_ORDER: readonly HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

/** One character per segment, `0` literal, `1` parameter: the lowest rank matches first. */
const rankOf = (path: string) =>
  path
    .split('/')
    .map((segment) => (segment.startsWith('{') ? '1' : '0'))
    .join('');

/**
 * The contract's routes by path, most specific first: a literal segment outranks a parameter, as
 * a reader of the document expects (`/v1/conversions/bulk` is that path, never
 * `/v1/conversions/{id}` with the id `bulk`). The router registers paths in this order.
 */
export function contractPaths(routes: readonly RouteSpec[]): ContractPath[] {
  const byPath = new Map<string, RouteSpec[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  return [...byPath.entries()]
    .map(([path, at]): ContractPath => {
      const present = new Set(at.map((route) => route.method));
      const methods = METHOD_ORDER.filter((method) => present.has(method)).map((method) => method.toUpperCase());
      return { path, routes: at, methods, allow: methods.includes('GET') ? ['HEAD', ...methods] : methods };
    })
    .sort((a, b) => {
      // Paths a request can match have as many segments as it has, so ranks compare segment by segment.
      const [ra, rb] = [rankOf(a.path), rankOf(b.path)];
      return ra < rb ? -1 : ra > rb ? 1 : 0;
    });
}

/** Koa-router's form of a contract path: `/v1/affiliates/{id}` → `/v1/affiliates/:id`. */
export const routerPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');
