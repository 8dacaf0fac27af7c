import { oidcRouter } from '../src/oidc/router';
import { themeResourcesRouter } from '../src/oidc/theme-resources-router';
import { adminRouter } from '.';

/**
 * The routes the server serves, read from the routers themselves (router >= 2.3 `listRoutes()`): the
 * one route table the OpenAPI document (rest/openapi.ts), the GraphQL coverage test and the fuzz
 * suite walk. The routers are only built here, never served: no database handle is touched.
 */
export interface RouteEntry {
  method: string;
  /** Express template, e.g. `/admin/realms/:realm/users/:id`; group-by-path's RegExp route is `/*path`. */
  template: string;
}

type RouteInfo = { path: string | RegExp; methods?: string[]; router?: Listable };
type Listable = { listRoutes?: () => RouteInfo[] };

/** Methods that are operations: HEAD (automatic for GET) and OPTIONS (CORS preflight) are not. */
const NOT_OPERATIONS = new Set(['HEAD', 'OPTIONS']);

function walk(router: unknown, prefix: string, out: Map<string, RouteEntry>): void {
  const r = router as Listable;
  if (typeof r.listRoutes !== 'function') throw new Error('router.listRoutes() is missing: the route table needs router >= 2.3');
  for (const info of r.listRoutes()) {
    const p = typeof info.path === 'string' ? (info.path === '/' ? '' : info.path) : '/*path';
    if (info.router) walk(info.router, prefix + p, out);
    for (const method of info.methods ?? []) {
      if (!NOT_OPERATIONS.has(method)) out.set(`${method} ${prefix}${p}`, { method, template: prefix + p });
    }
  }
}

/**
 * Every admin route (`/admin/...`), and with `oidc` the public endpoints too: OIDC (`/realms/...`) and
 * the theme message bundles (`/resources/...`).
 */
export function routeTable(opts: { oidc?: boolean } = {}): RouteEntry[] {
  const out = new Map<string, RouteEntry>();
  walk(
    adminRouter({} as never, () => ''),
    '/admin',
    out,
  );
  if (opts.oidc)
    walk(
      oidcRouter({} as never, () => ''),
      '/realms',
      out,
    );
  if (opts.oidc) walk(themeResourcesRouter({} as never), '/resources', out);
  return [...out.values()];
}
