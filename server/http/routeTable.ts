import type { HttpMethod, RouteSpec } from '../../shared/contract/route.js';

/** Every route at one path of the contract, such as `/v1/conversions/{id}` (GET and PATCH). */
interface PathTemplate {
  path: string;
  pattern: RegExp;
  /** One character per segment, `0` literal, `1` parameter: the lowest rank matches first. */
  rank: string;
  routes: RouteSpec[];
}

/** The order methods are listed in an `Allow` header; HEAD comes with GET (the router serves both). */
const METHOD_ORDER: readonly HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * Finds the contract route of a request before routing, so that middleware that runs first
 * (CORS, rate limit, the method check) reads the route's policy instead of matching paths of its
 * own. A literal segment outranks a parameter, as a reader of the document expects:
 * `/v1/conversions/bulk` is that path, never `/v1/conversions/{id}` with the id `bulk`.
 */
export class RouteTable {
  private readonly templates: PathTemplate[];

  constructor(routes: readonly RouteSpec[]) {
    const byPath = new Map<string, PathTemplate>();
    for (const route of routes) {
      let template = byPath.get(route.path);
      if (!template) {
        template = {
          path: route.path,
          pattern: new RegExp(`^${route.path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
          rank: route.path
            .split('/')
            .map((segment) => (segment.startsWith('{') ? '1' : '0'))
            .join(''),
          routes: [],
        };
        byPath.set(route.path, template);
      }
      template.routes.push(route);
    }
    // Paths a request can match have as many segments as it has, so ranks compare segment by segment.
    this.templates = [...byPath.values()].sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0));
  }

  private templateOf(path: string): PathTemplate | undefined {
    return this.templates.find((template) => template.pattern.test(path));
  }

  /** The route a request is for; when only the method differs, a route at that path. */
  find(method: string, path: string): RouteSpec | undefined {
    const template = this.templateOf(path);
    if (!template) return undefined;
    const lower = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    return template.routes.find((route) => route.method === lower) ?? template.routes[0];
  }

  /** The contract's methods at a path (for a CORS preflight); empty for a path no route has. */
  methodsAt(path: string): HttpMethod[] {
    const methods = new Set(this.templateOf(path)?.routes.map((route) => route.method));
    return METHOD_ORDER.filter((method) => methods.has(method));
  }

  /** What an `Allow` header lists for a path: its methods, HEAD with GET; undefined for an unknown path. */
  allowedAt(path: string): string[] | undefined {
    const methods = this.methodsAt(path).map((method) => method.toUpperCase());
    if (methods.length === 0) return undefined;
    return methods.includes('GET') ? ['HEAD', ...methods] : methods;
  }

  /** Koa-router's form of a contract path: `/v1/affiliates/{id}` → `/v1/affiliates/:id`. */
  static routerPath(route: RouteSpec): string {
    return route.path.replace(/\{([^}]+)\}/g, ':$1');
  }
}
