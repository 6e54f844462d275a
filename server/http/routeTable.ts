import type { RouteSpec } from '../../shared/contract/route.js';

interface CompiledRoute {
  route: RouteSpec;
  pattern: RegExp;
}

/**
 * Finds the contract route of a request before routing, so that middleware that runs first
 * (CORS, rate limit) reads the route's policy instead of matching paths of its own.
 */
export class RouteTable {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly RouteSpec[]) {
    this.compiled = routes.map((route) => ({
      route,
      pattern: new RegExp(`^${route.path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
    }));
  }

  /** The route a request is for; when only the method differs, a route at that path. */
  find(method: string, path: string): RouteSpec | undefined {
    const atPath = this.compiled.filter((entry) => entry.pattern.test(path));
    const lower = method.toLowerCase();
    return (atPath.find((entry) => entry.route.method === lower) ?? atPath[0])?.route;
  }

  /** Methods of the routes at a path (for a CORS preflight). */
  methodsAt(path: string): string[] {
    return this.compiled.filter((entry) => entry.pattern.test(path)).map((entry) => entry.route.method);
  }

  /** Koa-router's form of a contract path: `/v1/affiliates/{id}` → `/v1/affiliates/:id`. */
  static routerPath(route: RouteSpec): string {
    return route.path.replace(/\{([^}]+)\}/g, ':$1');
  }
}
