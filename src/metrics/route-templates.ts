/**
 * The route templates of the express routers the app serves, in dispatch order, so that a request
 * answered before its route's handler ran (a parent resolver's 404, a 401 of the admin middleware)
 * is still labelled with the template of the route it addressed: `route()` (rest/http.ts) captures the
 * template only inside the matched route, and a middleware mounted at a parent only knows the parent's
 * (`/admin/realms/:realm/users/:id/*`).
 */
type RouteInfo = { path: string | RegExp; methods?: string[]; router?: Listable };
type Listable = { listRoutes?: () => RouteInfo[] };

interface Entry {
  template: string;
  /** Literal segments lower-cased (express matches paths case-insensitively); null: a `:param`. */
  segments: Array<string | null>;
  /** A trailing `*name`: one or more further segments. */
  wildcard: boolean;
  methods: Set<string>;
}

export class RouteTemplates {
  private readonly entries: Entry[] = [];

  /** Adds every route of `router` (express 5's `listRoutes()`, walked into sub-routers) mounted at `prefix`. */
  add(prefix: string, router: unknown): this {
    const r = router as Listable;
    if (typeof r?.listRoutes !== 'function') return this;
    for (const info of r.listRoutes()) {
      const path = typeof info.path === 'string' ? (info.path === '/' ? '' : info.path) : '/*path';
      if (info.router) this.add(prefix + path, info.router);
      if (info.methods?.length) this.entries.push(entryOf(prefix + path, info.methods));
    }
    return this;
  }

  /**
   * The template of the first route (in the routers' order, as express dispatches) that serves
   * `method` at `path` (no query string); undefined when no route does.
   */
  match(method: string, path: string): string | undefined {
    const parts = path.split('/').slice(1);
    if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop(); // a trailing slash (express is not strict)
    const m = method.toUpperCase();
    for (const e of this.entries) {
      if (!e.methods.has(m) && !e.methods.has('_ALL') && !(m === 'HEAD' && e.methods.has('GET'))) continue;
      if (matches(e, parts)) return e.template;
    }
    return undefined;
  }
}

function entryOf(template: string, methods: string[]): Entry {
  const raw = template.split('/').slice(1);
  const wildcard = raw.length > 0 && raw[raw.length - 1].startsWith('*');
  const segments = (wildcard ? raw.slice(0, -1) : raw).map((s) => (s.startsWith(':') ? null : s.toLowerCase()));
  return { template: template || '/', segments, wildcard, methods: new Set(methods.map((x) => x.toUpperCase())) };
}

function matches(e: Entry, parts: string[]): boolean {
  if (e.wildcard ? parts.length <= e.segments.length : parts.length !== e.segments.length) return false;
  for (let i = 0; i < e.segments.length; i++) {
    const s = e.segments[i];
    if (s === null ? parts[i] === '' : parts[i].toLowerCase() !== s) return false;
  }
  return true;
}

/**
 * The `uri` label of a request: the template captured by its matched route; else (a parent's template
 * ending in `/*`, or none) the template of the route the path and method address; else the parent's
 * template, `/graphql`, `unmatched` (a 404 of no route) or `other`. Never a raw path.
 */
export function uriLabel(
  templates: RouteTemplates,
  req: { method: string; originalUrl: string },
  captured: unknown,
  status: number,
): string {
  if (typeof captured === 'string' && !captured.endsWith('/*')) return captured;
  const path = req.originalUrl.split('?')[0];
  if (path === '/graphql' || path.startsWith('/graphql/')) return '/graphql';
  const template = templates.match(req.method, path);
  if (template) return template;
  if (typeof captured === 'string') return captured;
  return status === 404 ? 'unmatched' : 'other';
}
