import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { buildOpenApiDocument, openApiPath } from '../../rest/openapi';
import { type RouteEntry, routeTable } from '../../rest/route-table';
import { OPERATIONS } from '../../rest/openapi-operations';
import { openApiText } from '../../scripts/print-openapi';
import { representations } from '../../src/representations/schema';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The OpenAPI 3.1 document of the REST facade (issue 11, item 5): checked in and up to date, one
 * operation per route of the routers' own table and no other, structurally valid (no OpenAPI validator
 * is installed: every $ref resolves, every path parameter is declared, operationIds are unique ...),
 * and served unauthenticated at GET /openapi.json.
 */

// biome-ignore lint/suspicious/noExplicitAny: the test walks the JSON of the document
type Json = Record<string, any>;
const FILE = join(__dirname, '..', '..', 'openapi', 'openapi.json');
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

let routes: RouteEntry[];
let doc: Json;
beforeAll(() => {
  routes = routeTable({ oidc: true });
  doc = buildOpenApiDocument(routes);
});

/** `METHOD /path` of every operation of a document. */
const operationsOf = (d: Json) =>
  Object.entries(d.paths as Json).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => METHODS.includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
const routeKeys = (rs: RouteEntry[]) => rs.map((r) => `${r.method} ${openApiPath(r.template).path}`);

/** Routes without an operation and operations without a route, between a route table and a document. */
function drift(rs: RouteEntry[], d: Json): { missing: string[]; extra: string[] } {
  const ops = new Set(operationsOf(d));
  const keys = new Set(routeKeys(rs));
  return { missing: [...keys].filter((k) => !ops.has(k)), extra: [...ops].filter((o) => !keys.has(o)) };
}

describe('openapi/openapi.json', () => {
  test('the checked-in file is up to date', () => {
    const file = readFileSync(FILE, 'utf8');
    if (file !== openApiText()) throw new Error('openapi/openapi.json is stale: run `npm run openapi` and commit the result');
  });

  test('the route table is read from the routers (admin, OIDC and theme bundles), mounts included', () => {
    expect(routes.length).toBeGreaterThan(300);
    const keys = routes.map((r) => `${r.method} ${r.template}`);
    for (const known of [
      'GET /admin/realms',
      'POST /admin/realms/:realm/users',
      'GET /admin/realms/:realm/group-by-path/*path',
      'GET /admin/:realm/console/whoami',
      'POST /realms/:realm/protocol/openid-connect/token',
      'GET /resources/:realm/:themeType/:locale',
    ]) {
      expect(keys).toContain(known);
    }
  });
});

describe('drift between routes and operations', () => {
  test('every route has exactly one entry in the operation table, and every entry names a route', () => {
    const keys = routes.map((r) => `${r.method} ${r.template}`);
    const missing = keys.filter((k) => !Object.hasOwn(OPERATIONS, k));
    const stale = Object.keys(OPERATIONS).filter((k) => !keys.includes(k));
    if (missing.length || stale.length) {
      throw new Error(
        [
          missing.length ? `routes without an entry in rest/openapi-operations.ts:\n  ${missing.join('\n  ')}` : '',
          stale.length ? `entries for routes that no longer exist (remove them):\n  ${stale.join('\n  ')}` : '',
        ]
          .filter(Boolean)
          .join('\n'),
      );
    }
  });

  test('every route has exactly one operation in the checked-in document and every operation a route', () => {
    const checkedIn = JSON.parse(readFileSync(FILE, 'utf8')) as Json;
    const { missing, extra } = drift(routes, checkedIn);
    if (missing.length || extra.length) {
      throw new Error(
        `openapi/openapi.json and the routers disagree (run \`npm run openapi\`):\n  routes without an operation: ${missing.join(', ')}\n  operations without a route: ${extra.join(', ')}`,
      );
    }
    // Two routes on one path and method would collapse into one operation.
    expect(new Set(routeKeys(routes)).size).toBe(routes.length);
    expect(operationsOf(checkedIn)).toHaveLength(routes.length);
  });

  test('the drift check sees a route added without its operation and an operation left without its route', () => {
    const extraRoute: RouteEntry = { method: 'GET', template: '/admin/realms/:realm/widgets/:id' };
    expect(drift([...routes, extraRoute], doc)).toEqual({ missing: ['GET /admin/realms/{realm}/widgets/{id}'], extra: [] });
    expect(drift(routes.slice(1), doc).extra).toEqual([routeKeys(routes.slice(0, 1))[0]]);
    // The generator itself refuses a route the operation table does not know.
    expect(() => buildOpenApiDocument([...routes, extraRoute])).toThrow('GET /admin/realms/:realm/widgets/:id');
  });
});

/** Every `$ref` of a value, with where it is. */
function refs(value: unknown, at = '#', out: Array<[string, string]> = []): Array<[string, string]> {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) refs(v, `${at}/${i}`, out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push([at, v]);
      else refs(v, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
    }
  }
  return out;
}

function resolve(d: Json, pointer: string): unknown {
  if (!pointer.startsWith('#/')) return undefined;
  let node: unknown = d;
  for (const raw of pointer.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!node || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

describe('the document is a valid OpenAPI 3.1 document (structural checks)', () => {
  test('version, info, paths and components', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(typeof doc.info.title).toBe('string');
    expect(typeof doc.info.version).toBe('string');
    for (const path of Object.keys(doc.paths)) expect(path).toMatch(/^\/[^?#]*$/);
    expect(Object.keys(doc.components.schemas).sort()).toEqual(
      [...Object.keys(representations), 'ErrorRepresentation', 'OAuthError'].sort(),
    );
  });

  test('every $ref resolves', () => {
    const broken = refs(doc).filter(([, target]) => resolve(doc, target) === undefined);
    expect(broken).toEqual([]);
    expect(refs(doc).length).toBeGreaterThan(500);
  });

  test('every path parameter is declared once, as required, and no two paths are the same template', () => {
    const problems: string[] = [];
    const shapes = new Map<string, string>();
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      if (new Set(names).size !== names.length) problems.push(`${path}: a parameter name repeats`);
      const shape = path.replace(/\{[^}]+\}/g, '{}');
      if (shapes.has(shape)) problems.push(`${path} and ${shapes.get(shape)} are the same template`);
      shapes.set(shape, path);
      for (const [method, op] of Object.entries(item as Json)) {
        const params = (op.parameters ?? []) as Json[];
        const declared = params.filter((p) => p.in === 'path').map((p) => p.name);
        if ([...declared].sort().join() !== [...names].sort().join())
          problems.push(`${method} ${path}: path parameters ${declared} ≠ ${names}`);
        if (params.some((p) => p.in === 'path' && p.required !== true))
          problems.push(`${method} ${path}: a path parameter is not required`);
        const keys = params.map((p) => `${p.in}:${p.name}`);
        if (new Set(keys).size !== keys.length) problems.push(`${method} ${path}: a parameter is declared twice`);
        if (params.some((p) => !p.schema)) problems.push(`${method} ${path}: a parameter without a schema`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('operationIds are unique; every operation has responses, a declared tag, and security as its endpoint needs', () => {
    const ids = new Map<string, string>();
    const problems: string[] = [];
    const tags = new Set((doc.tags as Json[]).map((t) => t.name));
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        const where = `${method} ${path}`;
        if (!METHODS.includes(method)) problems.push(`${where}: not an HTTP method`);
        if (ids.has(op.operationId)) problems.push(`${where}: operationId ${op.operationId} also on ${ids.get(op.operationId)}`);
        ids.set(op.operationId, where);
        if (!op.responses || !Object.keys(op.responses).length) problems.push(`${where}: no responses`);
        for (const code of Object.keys(op.responses ?? {})) if (!/^[1-5]\d\d$/.test(code)) problems.push(`${where}: response ${code}`);
        if (!op.tags?.length || !op.tags.every((t: string) => tags.has(t))) problems.push(`${where}: tag ${op.tags}`);
        const admin = path.startsWith('/admin');
        if (admin && JSON.stringify(op.security) !== JSON.stringify([{ bearer: [] }])) problems.push(`${where}: no bearer security`);
        if (!admin && op.security?.length) problems.push(`${where}: public endpoint with security`);
      }
    }
    expect(problems).toEqual([]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });
});

describe('what the document says', () => {
  const op = (method: string, path: string) => doc.paths[path]?.[method];

  test('a create is 201 with Location, an update and a delete 204, a read 200 with its representation', () => {
    const create = op('post', '/admin/realms/{realm}/users');
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/UserRepresentation' });
    expect(create.responses['201'].headers.Location).toEqual({ $ref: '#/components/headers/Location' });
    expect(create.responses['409']).toEqual({ $ref: '#/components/responses/Conflict' });
    expect(Object.keys(op('put', '/admin/realms/{realm}/users/{user-id}').responses)).toContain('204');
    expect(Object.keys(op('delete', '/admin/realms/{realm}/users/{user-id}').responses)).toContain('204');
    expect(op('get', '/admin/realms/{realm}/users/{user-id}').responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/UserRepresentation',
    });
    const list = op('get', '/admin/realms/{realm}/users');
    expect(list.responses['200'].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/UserRepresentation' },
    });
    const first = list.parameters.find((p: Json) => p.name === 'first');
    expect(first).toMatchObject({ in: 'query', schema: { type: 'integer', format: 'int32' } });
    expect(list.parameters.map((p: Json) => p.name)).toEqual(expect.arrayContaining(['realm', 'max', 'search', 'briefRepresentation']));
    expect(op('post', '/admin/realms/{realm}/users/{user-id}/role-mappings/realm').requestBody.content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/RoleRepresentation' },
    });
  });

  test('errors have Keycloak bodies; an unknown shape is said to be unknown, not invented', () => {
    const { responses, schemas } = doc.components;
    expect(responses.NotFound.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/OAuthError' });
    expect(responses.Conflict.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorRepresentation' });
    expect(schemas.OAuthError.required).toEqual(['error']);
    const events = op('get', '/admin/realms/{realm}/events').responses['200'].content['application/json'].schema;
    expect(events.type).toBeUndefined();
    expect(events.description).toMatch(/EventRepresentation.*not described/);
  });

  test('schemas follow the field table: int64, int32, maps, enums and refs', () => {
    const { schemas } = doc.components;
    expect(schemas.UserRepresentation.properties.createdTimestamp).toMatchObject({ type: 'integer', format: 'int64' });
    expect(schemas.RealmRepresentation.properties.accessTokenLifespan).toMatchObject({ type: 'integer', format: 'int32' });
    expect(schemas.GroupRepresentation.properties.attributes).toMatchObject({
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    });
    expect(schemas.RealmRepresentation.properties.bruteForceStrategy).toMatchObject({ type: 'string', enum: ['LINEAR', 'MULTIPLE'] });
    expect(schemas.UserRepresentation.properties.credentials).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/CredentialRepresentation' },
    });
    expect(schemas.UserRepresentation.properties.username.description).toEqual(expect.any(String));
  });
});

describe('GET /openapi.json', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer();
  });
  afterAll(() => ts.close());

  test('serves the checked-in document without authentication', async () => {
    const res = await request(ts.app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(readFileSync(FILE, 'utf8')));
    // The same bytes again: built once.
    expect((await request(ts.app).get('/openapi.json')).text).toBe(res.text);
  });
});
