import type { Request, Response } from 'express';
import { COMPATIBLE_KEYCLOAK_VERSION } from '../src/keycloak/server-info-catalogues';
import { fieldDescription } from '../src/representations/descriptions';
import { type FieldType, OPEN_REPRESENTATIONS, representations } from '../src/representations/schema';
import { type RouteEntry, routeTable } from './route-table';
import { type Answer, type Body, OPERATIONS, type OperationSpec, QUERY_PARAMS, type Shape } from './openapi-operations';

/**
 * The OpenAPI 3.1 document of the REST facade, built from the tables the server itself runs on: the
 * route table of the routers (router's `listRoutes()`), the operation table (rest/openapi-operations.ts)
 * and the representation field table with its descriptions. Pure: no database, so `npm run openapi`
 * (scripts/print-openapi.ts) and the server (`GET /openapi.json`) build the same document.
 */

type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------
// Paths in Keycloak's spelling.

/** A parameter's Keycloak name, by the literal segments before it (most specific first). */
const PARAM_NAMES: Array<[RegExp, string]> = [
  [/brute-force\/users$/, 'userId'],
  [/offline-sessions$/, 'clientUuid'],
  [/(role-mappings|scope-mappings)\/clients$/, 'client-id'],
  [/composites\/clients$/, 'clientUuid'],
  [/credentials\/P\/moveAfter$/, 'newPreviousCredentialId'],
  [/flows$/, ':alias=flowAlias'],
  [/protocol-mappers\/models$/, 'id'],
  [/executions$/, 'executionId'],
  [/consents$/, 'client'],
  [/federated-identity$/, 'provider'],
  [/(default|optional)-client-scopes$/, 'clientScopeId'],
  [/identity-provider\/providers$/, 'provider_id'],
  [/(^|\/)users$/, 'user-id'],
  [/(^|\/)groups$/, ':ownerId,:id=group-id'],
  [/(^|\/)clients$/, 'client-uuid'],
  [/(^|\/)(client-scopes|client-templates)$/, 'client-scope-id'],
  [/(^|\/)roles$/, 'role-name'],
  [/(^|\/)roles-by-id$/, 'role-id'],
];

function keycloakParam(before: string, name: string): string {
  for (const [re, rule] of PARAM_NAMES) {
    if (!re.test(before)) continue;
    // `:a,:b=x`: only these express names are renamed here; others keep theirs.
    const m = /^((?::\w+,?)+)=(.+)$/.exec(rule);
    if (!m) return rule;
    if (m[1].split(',').includes(`:${name}`)) return m[2];
  }
  return name;
}

/** `/admin/realms/:realm/users/:id` → `/admin/realms/{realm}/users/{user-id}`, with the names used. */
export function openApiPath(template: string): { path: string; params: Array<{ express: string; name: string }> } {
  const literal: string[] = [];
  const params: Array<{ express: string; name: string }> = [];
  const out = template.split('/').map((seg) => {
    if (seg.startsWith(':') || seg.startsWith('*')) {
      const express = seg.slice(1);
      const name = express === 'realm' ? 'realm' : keycloakParam(literal.join('/'), express);
      params.push({ express, name });
      literal.push('P');
      return `{${name}}`;
    }
    literal.push(seg);
    return seg;
  });
  return { path: out.join('/'), params };
}

const PARAM_DESCRIPTIONS: Record<string, string> = {
  realm: 'Realm name (not id).',
  'user-id': 'User id.',
  userId: 'User id.',
  'group-id': 'Group id.',
  groupId: 'Group id.',
  'client-uuid': 'Internal id of the client (not its clientId).',
  clientUuid: 'Internal id of the client (not its clientId).',
  'client-id': 'Internal id of the client whose roles are mapped.',
  'client-scope-id': 'Client scope id.',
  clientScopeId: 'Client scope id.',
  'role-name': 'Role name.',
  'role-id': 'Role id.',
  path: 'Group path, slashes included (`/parent/child`).',
  flowAlias: 'Flow alias.',
  executionId: 'Execution id.',
  credentialId: 'Credential id.',
  newPreviousCredentialId: 'Id of the credential the moved one goes after.',
  alias: 'Alias.',
  attr: 'Client attribute holding the certificate (e.g. `jwt.credential`).',
  locale: 'Locale (e.g. `en`).',
  themeType: 'Theme type: `login`, `account`, `admin`, `email`, `common` or `welcome` (any case).',
  key: 'Localization key.',
  client: 'clientId of the client.',
  provider: 'Identity provider alias.',
  roleContainerId: 'Realm name or internal client id.',
};

// ---------------------------------------------------------------------------------------------------
// Schemas.

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function fieldSchema(t: FieldType): Json {
  if (t === 'string') return { type: 'string' };
  if (t === 'boolean') return { type: 'boolean' };
  if (t === 'int') return { type: 'integer', format: 'int64' };
  if (t === 'int32') return { type: 'integer', format: 'int32' };
  if (t === 'number') return { type: 'number' };
  if (t === 'map') return { type: 'object', additionalProperties: true };
  if (t === 'any') return {};
  if ('array' in t) return { type: 'array', items: fieldSchema(t.array) };
  if ('map' in t) return { type: 'object', additionalProperties: fieldSchema(t.map) };
  if ('enum' in t) return { type: 'string', enum: [...t.enum] };
  return ref(t.ref);
}

/** `components.schemas`: one per representation of the field table, plus Keycloak's two error bodies. */
function componentSchemas(): Json {
  const schemas: Json = {};
  for (const [name, fields] of Object.entries(representations as Record<string, Record<string, FieldType>>)) {
    const properties: Json = {};
    for (const [field, t] of Object.entries(fields)) {
      const description = fieldDescription(name, field);
      properties[field] = description ? { ...fieldSchema(t), description } : fieldSchema(t);
    }
    const open = OPEN_REPRESENTATIONS[name];
    // Not `additionalProperties: false`: the table is what input may hold (an unknown field is a 400, as
    // Jackson's), and is not promised to list every field an answer carries. These two are maps that keep any key.
    schemas[name] = open
      ? { type: 'object', properties, additionalProperties: fieldSchema(open) }
      : { type: 'object', properties, description: `Keycloak's ${name}: a field not listed here is refused on input (400).` };
  }
  schemas.ErrorRepresentation = {
    type: 'object',
    description: 'A rule violation (409 "User exists with same username", 400 validation errors).',
    properties: {
      errorMessage: { type: 'string' },
      field: { type: 'string' },
      params: { type: 'array', items: { type: 'string' } },
      errors: { type: 'array', items: ref('ErrorRepresentation') },
    },
    required: ['errorMessage'],
  };
  schemas.OAuthError = {
    type: 'object',
    description: 'Not found, forbidden, unauthorized or a malformed request: `{"error": ..., "error_description"?: ...}`.',
    properties: { error: { type: 'string' }, error_description: { type: 'string' } },
    required: ['error'],
  };
  return schemas;
}

function shapeSchema(shape: Shape): Json {
  if (typeof shape === 'object') return { description: `${shape.json} (shape not described by the representation table)` };
  if (shape === 'string[]') return { type: 'array', items: { type: 'string' } };
  if (shape === 'integer') return { type: 'integer', format: 'int64' };
  if (shape === 'boolean') return { type: 'boolean' };
  if (shape === 'count') return { type: 'object', properties: { count: { type: 'integer', format: 'int64' } }, required: ['count'] };
  if (shape === 'scopeRefs')
    return { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } } };
  if (shape.endsWith('[]')) return { type: 'array', items: ref(shape.slice(0, -2)) };
  return ref(shape);
}

const jsonContent = (schema: Json) => ({ 'application/json': { schema } });

function requestBody(body: Body): Json {
  if (body === 'text') return { required: true, content: { 'text/plain': { schema: { type: 'string' } } } };
  if (body === 'multipart')
    return {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: {
              keystoreFormat: { type: 'string', description: 'Certificate PEM, Public Key PEM, JSON Web Key Set, JKS or PKCS12.' },
              keyAlias: { type: 'string' },
              keyPassword: { type: 'string' },
              storePassword: { type: 'string' },
              file: { type: 'string', contentMediaType: 'application/octet-stream' },
            },
          },
        },
      },
    };
  if (body === 'clientDescription')
    return {
      required: true,
      content: {
        'application/json': { schema: { description: 'A ClientRepresentation or an OpenID Connect client registration.' } },
        'application/xml': { schema: { type: 'string', description: 'SAML entity descriptor.' } },
        'text/plain': { schema: { type: 'string' } },
      },
    };
  if (body === 'form')
    return {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            properties: {
              grant_type: { type: 'string', description: 'password, client_credentials or refresh_token.' },
              client_id: { type: 'string' },
              client_secret: { type: 'string' },
              username: { type: 'string' },
              password: { type: 'string' },
              refresh_token: { type: 'string' },
              scope: { type: 'string' },
            },
            required: ['grant_type'],
          },
        },
      },
    };
  return { required: true, content: jsonContent(shapeSchema(body)) };
}

function answer(a: Answer): [string, Json] {
  const location = { Location: { $ref: '#/components/headers/Location' } };
  if (a === 'created') return ['201', { description: 'Created; `Location` names the new object.', headers: location }];
  if (a === 'none') return ['204', { description: 'No Content.' }];
  if (a === 'notImplemented') return ['501', { $ref: '#/components/responses/NotImplemented' }];
  if (a === 'text') return ['200', { description: 'OK.', content: { 'text/plain': { schema: { type: 'string' } } } }];
  if (a === 'bytes')
    return [
      '200',
      {
        description: 'The keystore file.',
        content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
      },
    ];
  if (typeof a === 'object' && 'file' in a) return ['200', { description: a.file, content: { '*/*': { schema: {} } } }];
  if (typeof a === 'object' && 'created' in a)
    return [
      '201',
      { description: 'Created; `Location` names the new object.', headers: location, content: jsonContent(shapeSchema(a.created)) },
    ];
  return ['200', { description: 'OK.', content: jsonContent(shapeSchema(a)) }];
}

// ---------------------------------------------------------------------------------------------------
// Operations.

/** Tags: the resource families of docs/ARCHITECTURE.md, by path (first match wins). */
const TAGS: Array<[RegExp, string]> = [
  [/^\/realms\/\{realm\}\//, 'OpenID Connect'],
  [/^\/resources\//, 'Themes'],
  [/\/role-mappings(\/|$)/, 'Role mappings'],
  [/\/scope-mappings(\/|$)/, 'Scope mappings'],
  [/\/protocol-mappers\//, 'Protocol mappers'],
  [/\/attack-detection\//, 'Attack detection'],
  [/\/organizations(\/|$)/, 'Organizations'],
  [
    /\/(sessions|user-sessions|offline-sessions|session-count|offline-session-count|client-session-stats|logout|logout-all|push-revocation)(\/|$)/,
    'Sessions',
  ],
  [/\/(roles|roles-by-id)(\/|$)/, 'Roles'],
  [/\/(users|users-management-permissions)(\/|$)/, 'Users'],
  [/\/(groups|group-by-path|default-groups)(\/|$)/, 'Groups'],
  [
    /\/(client-scopes|client-templates|default-default-client-scopes|default-optional-client-scopes|evaluate-scopes)(\/|$)/,
    'Client scopes',
  ],
  [/\/(clients|clients-initial-access|client-registration-policy|client-policies|client-description-converter)(\/|$)/, 'Clients'],
  [/\/identity-provider\//, 'Identity providers'],
  [/\/authentication\//, 'Authentication management'],
  [/\/(components|keys)(\/|$)/, 'Components'],
  [/\/(events|admin-events|testSMTPConnection)(\/|$)/, 'Events'],
  [/\/(partialImport|partial-export)$/, 'Import and export'],
  [/\/localization(\/|$)/, 'Localization'],
  [/^\/admin\/(serverinfo|\{realm\}\/console)/, 'Server info'],
  [/.*/, 'Realms'],
];

const tagOf = (path: string) => (TAGS.find(([re]) => re.test(path)) as [RegExp, string])[1];

/** `get` `/admin/realms/{realm}/users/{user-id}` → `getRealmsByRealmUsersByUserId`: unique because paths are. */
function operationId(method: string, path: string): string {
  const pascal = (s: string) =>
    s.replace(/(^|[^A-Za-z0-9])([A-Za-z0-9])/g, (_m, _p, c: string) => c.toUpperCase()).replace(/[^A-Za-z0-9]/g, '');
  const words = path
    .split('/')
    .filter((s) => s && s !== 'admin')
    .map((s) => (s.startsWith('{') ? `By${pascal(s.slice(1, -1))}` : pascal(s)));
  return method.toLowerCase() + (words.join('') || 'Root');
}

function operation(route: RouteEntry, spec: OperationSpec): { path: string; op: Json } {
  const { path, params } = openApiPath(route.template);
  const admin = route.template.startsWith('/admin');
  const parameters: Json[] = params.map((p) => ({
    name: p.name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    ...(PARAM_DESCRIPTIONS[p.name] ? { description: PARAM_DESCRIPTIONS[p.name] } : {}),
  }));
  for (const name of spec.query ?? []) {
    const q = QUERY_PARAMS[name];
    const schema =
      q.type === 'int32'
        ? { type: 'integer', format: 'int32' }
        : q.type === 'string[]'
          ? { type: 'array', items: { type: 'string' } }
          : { type: q.type };
    parameters.push({ name, in: 'query', required: false, schema, description: q.description });
  }
  const answers = (Array.isArray(spec.res) ? spec.res : [spec.res]) as Answer[];
  const responses: Json = Object.fromEntries(answers.map(answer));
  const error = (name: string) => ({ $ref: `#/components/responses/${name}` });
  if (spec.body || spec.query?.length) responses['400'] = error('BadRequest');
  if (admin) {
    responses['401'] = error('Unauthorized');
    responses['403'] = error('Forbidden');
  } else if (route.method === 'POST') {
    responses['401'] = error('Unauthorized');
  }
  if (params.length) responses['404'] = error('NotFound');
  if (admin && spec.body && (route.method === 'POST' || route.method === 'PUT')) responses['409'] = error('Conflict');
  const op: Json = {
    tags: [tagOf(path)],
    operationId: operationId(route.method, path),
    ...(parameters.length ? { parameters } : {}),
    ...(spec.body ? { requestBody: requestBody(spec.body) } : {}),
    responses,
    // Admin operations take the bearer access token of an admin; the OIDC endpoints are public.
    security: admin ? [{ bearer: [] }] : [],
  };
  return { path, op };
}

/** Builds the OpenAPI 3.1 document. A route without an operation entry (or the reverse) is an error. */
export function buildOpenApiDocument(routes: RouteEntry[] = routeTable({ oidc: true })): Json {
  const paths: Record<string, Json> = {};
  const missing = routes.filter((r) => !Object.hasOwn(OPERATIONS, `${r.method} ${r.template}`));
  if (missing.length)
    throw new Error(`routes without an entry in rest/openapi-operations.ts: ${missing.map((r) => `${r.method} ${r.template}`).join(', ')}`);
  for (const route of routes) {
    const { path, op } = operation(route, OPERATIONS[`${route.method} ${route.template}`]);
    paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: op };
  }
  const sorted = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((p) => [p, paths[p]]),
  );
  const tags = [...new Set(TAGS.map(([, t]) => t))].map((name) => ({ name }));
  const errorResponse = (description: string, schema: string) => ({ description, content: jsonContent(ref(schema)) });
  return {
    openapi: '3.1.0',
    info: {
      title: 'idserver admin REST API',
      version: COMPATIBLE_KEYCLOAK_VERSION,
      description:
        `Keycloak's admin REST API (compatible with Keycloak ${COMPATIBLE_KEYCLOAK_VERSION}) as idserver serves it, and the OpenID Connect ` +
        'endpoints it needs. Generated from the route, operation and representation tables (`npm run openapi`). ' +
        'A schema that is `{}` with a description is a shape the representation table does not describe.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    tags,
    paths: sorted,
    components: {
      schemas: componentSchemas(),
      responses: {
        BadRequest: {
          description: 'Bad request: unreadable JSON, unknown field or wrong type, invalid value.',
          content: { 'application/json': { schema: { oneOf: [ref('OAuthError'), ref('ErrorRepresentation')] } } },
        },
        Unauthorized: errorResponse(
          'No bearer token, or one that is invalid or expired: `{"error":"HTTP 401 Unauthorized"}`.',
          'OAuthError',
        ),
        Forbidden: errorResponse('The caller lacks the admin role the operation needs.', 'OAuthError'),
        NotFound: errorResponse('The realm or an object of the path does not exist (e.g. `Realm not found.`).', 'OAuthError'),
        Conflict: errorResponse('A uniqueness rule is violated (e.g. `User exists with same username`).', 'ErrorRepresentation'),
        NotImplemented: errorResponse('Feature not enabled (fine-grained admin permissions v1).', 'OAuthError'),
      },
      headers: {
        Location: { description: 'URL of the created object.', schema: { type: 'string', format: 'uri' } },
      },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token from /realms/{realm}/protocol/openid-connect/token of a user with admin roles.',
        },
      },
    },
  };
}

let cached: string | undefined;

/** `GET /openapi.json`: unauthenticated (it is documentation), built once and kept. */
export function serveOpenApi(_req: Request, res: Response): void {
  cached ??= JSON.stringify(buildOpenApiDocument());
  res.type('application/json').send(cached);
}
