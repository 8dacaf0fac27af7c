import type { Router } from 'express';
import { type GraphQLField, type GraphQLSchema, getNamedType, isInterfaceType, isObjectType } from 'graphql';
import { adminRouter } from '../../rest';
import { gatewaySchema } from '../../resolvers/schema';
import { createClient, createGroup, createRole, expectStatus } from '../helpers/fixtures';
import { type AdminApi, type TestServer, startTestServer } from '../helpers/server';
import { ALIASES, MAPPED, NOT_IMPLEMENTED, OWN_ISSUE, PENDING, type Path, type Twin } from './rest-graphql-map';

/**
 * Every operation of the REST admin front has its GraphQL twin (issue 9, item 1), like a schema drift
 * test: the route table is read from the routers rest/index.ts mounts (router 2's public
 * `listRoutes()`, recursing into mounted routers), and each route must have exactly one entry in
 * rest-graphql-map.ts whose coordinates exist in the built schema.
 */

type RouteInfo = { path: string | RegExp; methods?: string[]; router?: Listable };
type Listable = { listRoutes?: () => RouteInfo[] };

/** Methods that are operations; HEAD (automatic for GET) and OPTIONS (CORS preflight) are not. */
const OPERATIONS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']);
const NOT_OPERATIONS = new Set(['HEAD', 'OPTIONS']);

/** A path template as written; a RegExp route (group-by-path's `/.*\/`) becomes express's `*path` wildcard. */
function template(path: string | RegExp): string {
  if (typeof path === 'string') return path === '/' ? '' : path;
  if (path.source === '.*') return '/*path';
  return `/(${path.source})`;
}

/** `METHOD /admin/...` for every route the admin router serves. */
function restRoutes(router: Router): { routes: string[]; other: string[] } {
  const routes: string[] = [];
  const other: string[] = [];
  const walk = (r: Listable, prefix: string) => {
    if (typeof r.listRoutes !== 'function') throw new Error('router.listRoutes() is missing: the route table needs router >= 2.3');
    for (const info of r.listRoutes()) {
      const at = prefix + template(info.path);
      if (info.router) walk(info.router, at);
      for (const m of info.methods ?? []) {
        if (OPERATIONS.has(m)) routes.push(`${m} ${at}`);
        else if (!NOT_OPERATIONS.has(m)) other.push(`${m} ${at}`);
      }
    }
  };
  walk(router as unknown as Listable, '/admin');
  return { routes: [...new Set(routes)].sort(), other };
}

const pathOf = (twin: Twin): Path => ('path' in twin ? twin.path : (twin as Path));
const pathsOf = (twin: Twin): Path[] => ('path' in twin ? [twin.path, ...(twin.also ?? [])] : [twin as Path]);

/** `Type.field` or `Type.field(arg:)` → its field (and argument), or why it does not exist. */
function resolveCoordinate(schema: GraphQLSchema, coordinate: string): { field: GraphQLField<unknown, unknown> } | { error: string } {
  const m = /^(\w+)\.(\w+)(?:\((\w+):\))?$/.exec(coordinate);
  if (!m) return { error: `${coordinate}: not a schema coordinate (Type.field or Type.field(arg:))` };
  const [, typeName, fieldName, argName] = m;
  const type = schema.getType(typeName);
  if (!type || !(isObjectType(type) || isInterfaceType(type))) return { error: `${coordinate}: no object type ${typeName}` };
  const field = type.getFields()[fieldName] as GraphQLField<unknown, unknown> | undefined;
  if (!field) return { error: `${coordinate}: ${typeName} has no field ${fieldName}` };
  if (argName && !field.args.some((a) => a.name === argName))
    return { error: `${coordinate}: ${typeName}.${fieldName} has no argument ${argName}` };
  return { field };
}

/** Problems of one path: unknown coordinates, a first step off the root types, a step off the previous step's type. */
function pathProblems(schema: GraphQLSchema, path: Path): string[] {
  if (!path.length) return ['empty path'];
  const problems: string[] = [];
  const roots = new Set([schema.getQueryType()?.name, schema.getMutationType()?.name, schema.getSubscriptionType()?.name]);
  let previous: string | undefined;
  for (const [i, coordinate] of path.entries()) {
    const found = resolveCoordinate(schema, coordinate);
    if ('error' in found) {
      problems.push(found.error);
      return problems;
    }
    const typeName = coordinate.split('.')[0];
    if (i === 0 && !roots.has(typeName)) problems.push(`${coordinate}: a path starts on Query, Mutation or Subscription`);
    if (i > 0 && typeName !== previous) problems.push(`${coordinate}: the step before returns ${previous}, not ${typeName}`);
    previous = getNamedType(found.field.type).name;
  }
  return problems;
}

const LISTS = { MAPPED, ALIASES, NOT_IMPLEMENTED, OWN_ISSUE, PENDING } as const;
const listsOf = (route: string) =>
  Object.entries(LISTS)
    .filter(([, list]) => route in list)
    .map(([name]) => name);
/** A route with its parameter names blanked, to tell a renamed parameter from a new route. */
const shape = (route: string) => route.replace(/:\w+/g, ':_');

let routes: string[];
let otherMethods: string[];
let schema: GraphQLSchema;

beforeAll(async () => {
  // The router is only built, never served: the database handle is not touched.
  ({ routes, other: otherMethods } = restRoutes(adminRouter({} as never, () => '')));
  schema = await gatewaySchema();
});

describe('REST → GraphQL coverage', () => {
  test('the route table is read from the routers, mounts included', () => {
    expect(otherMethods).toEqual([]);
    expect(routes.length).toBeGreaterThan(300);
    for (const known of [
      'GET /admin/realms',
      'GET /admin/serverinfo',
      'GET /admin/realms/:realm/users/:userId/groups',
      'POST /admin/realms/:realm/users/:ownerId/role-mappings/realm',
      'GET /admin/realms/:realm/clients/:clientUuid/roles/:roleName/composites',
      'GET /admin/realms/:realm/group-by-path/*path',
      'GET /admin/:realm/console/whoami',
    ]) {
      expect(routes).toContain(known);
    }
  });

  test('every REST route has exactly one entry', () => {
    const entries = new Set(Object.values(LISTS).flatMap((l) => Object.keys(l)));
    const stale = [...entries].filter((r) => !routes.includes(r));
    const missing = routes
      .filter((r) => !entries.has(r))
      .map((r) => {
        const renamed = stale.find((s) => shape(s) === shape(r));
        return renamed ? `${r}   (renamed parameter? the table has ${renamed})` : r;
      });
    const twice = routes.filter((r) => listsOf(r).length > 1).map((r) => `${r}: in ${listsOf(r).join(' and ')}`);
    if (missing.length || twice.length) {
      throw new Error(
        [
          missing.length
            ? `REST routes without a GraphQL twin or an exception in test/graphql/rest-graphql-map.ts:\n  ${missing.join('\n  ')}`
            : '',
          twice.length ? `routes in more than one list:\n  ${twice.join('\n  ')}` : '',
        ]
          .filter(Boolean)
          .join('\n'),
      );
    }
  });

  test('every entry names a route the admin front serves', () => {
    const stale = Object.entries(LISTS).flatMap(([name, list]) =>
      Object.keys(list)
        .filter((r) => !routes.includes(r))
        .map((r) => `${name}: ${r}`),
    );
    if (stale.length) throw new Error(`entries for routes that no longer exist (remove them):\n  ${stale.join('\n  ')}`);
  });

  test('every mapped coordinate exists and each path follows the schema from a root field', () => {
    const problems = Object.entries(MAPPED).flatMap(([route, twin]) =>
      pathsOf(twin).flatMap((p) => pathProblems(schema, p).map((problem) => `${route} → ${p.join(' > ')}: ${problem}`)),
    );
    if (problems.length) throw new Error(`mapped paths the schema does not have:\n  ${problems.join('\n  ')}`);
    expect(Object.values(MAPPED).every((t) => pathOf(t).length > 0)).toBe(true);
  });

  test('an alias names a route with an entry of its own, not another alias', () => {
    const bad = Object.entries(ALIASES)
      .filter(([, a]) => !routes.includes(a.of) || a.of in ALIASES || listsOf(a.of).length === 0)
      .map(([route, a]) => `${route} → ${a.of}`);
    expect(bad).toEqual([]);
    expect(Object.values(ALIASES).every((a) => a.reason.length > 0)).toBe(true);
  });

  test('every exception carries its reason', () => {
    expect(Object.entries(NOT_IMPLEMENTED).filter(([, reason]) => !reason)).toEqual([]);
    expect(Object.entries(OWN_ISSUE).filter(([, o]) => !o.reason || !o.issue)).toEqual([]);
    expect(Object.entries(PENDING).filter(([, p]) => !p.reason)).toEqual([]);
  });

  test('no PENDING twin exists yet (once it does, the route moves to MAPPED)', () => {
    const pending = Object.entries(PENDING);
    const named = pending.filter(([, p]) => p.expect);
    const landed = named.filter(([, p]) => !('error' in resolveCoordinate(schema, p.expect as string)));
    console.log(
      `REST → GraphQL: ${routes.length} routes; ${Object.keys(MAPPED).length} mapped, ${Object.keys(ALIASES).length} aliases, ` +
        `${Object.keys(NOT_IMPLEMENTED).length} not implemented (501), ${Object.keys(OWN_ISSUE).length} own issue, ` +
        `${pending.length} pending (${pending.length - named.length} without an expected coordinate)`,
    );
    if (landed.length) {
      throw new Error(
        `PENDING routes whose twin now exists: check it calls the REST route's service function and move it to MAPPED:\n  ${landed
          .map(([route, p]) => `${route} → ${p.expect}`)
          .join('\n  ')}`,
      );
    }
  });
});

/** Routes excused because of the status they answer, with that status. */
const BY_STATUS: Array<[string, number]> = [
  ...Object.keys(NOT_IMPLEMENTED).map((r): [string, number] => [r, 501]),
  ...Object.entries(OWN_ISSUE)
    .filter(([, o]) => o.status !== undefined)
    .map(([r, o]): [string, number] => [r, o.status as number]),
];

(BY_STATUS.length ? describe : describe.skip)('routes excused by their status answer it', () => {
  const REALM = 'coverage';
  let ts: TestServer;
  let api: AdminApi;
  /** A value for each parameter, by the segment before it: the objects exist, so a lookup before the 501 finds them. */
  const values: Record<string, string> = { 'realms/:realm': REALM, 'instances/:alias': 'no-such-idp' };

  beforeAll(async () => {
    ts = await startTestServer();
    api = await ts.api();
    expectStatus(await api.post('/admin/realms', { realm: REALM, enabled: true, organizationsEnabled: true }), 201, 'realm');
    const org = expectStatus(await api.post(`/admin/realms/${REALM}/organizations`, { name: 'coverage-org' }), 201, 'organization');
    values['organizations/:id'] = String(org.headers.location).split('/').pop() as string;
    values['clients/:clientUuid'] = await createClient(api, REALM, { clientId: 'coverage-client' });
    values['groups/:id'] = await createGroup(api, REALM, 'coverage-group');
    const role = await createRole(api, REALM, 'coverage-role');
    values['roles-by-id/:roleId'] = role.id;
    values['roles/:roleName'] = role.name;
  });
  afterAll(() => ts?.close());

  /** The route's URL with the fixture values; fails on a parameter with none. */
  function url(route: string): string {
    const path = route.slice(route.indexOf(' ') + 1);
    return path.replace(/([^/]+)\/(:\w+)/g, (_whole, segment: string, param: string) => {
      const value = values[`${segment}/${param}`];
      if (value === undefined) throw new Error(`no fixture value for ${segment}/${param} (${route}): add one`);
      return `${segment}/${encodeURIComponent(value)}`;
    });
  }

  test.each(BY_STATUS)('%s answers %i', async (route, status) => {
    const method = route.slice(0, route.indexOf(' '));
    const target = url(route);
    const res = method === 'GET' ? await api.get(target) : method === 'PUT' ? await api.put(target, {}) : await api.post(target, {});
    expect(`${route} → ${res.status}`).toBe(`${route} → ${status}`);
  });
});
