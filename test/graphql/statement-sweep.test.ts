import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import request from 'supertest';
import {
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { gatewaySchema } from '../../resolvers/schema';
import { GRAPHQL_DEFAULTS } from '../../src/config/graphql-options';
import { createRealm, createdId, expectStatus } from '../helpers/fixtures';
import { type AdminApi, type TestServer, startTestServer } from '../helpers/server';
import type { Json } from './gql';

/**
 * The statement sweep (issue 9, item 6): every field of the list-item types, generated from the
 * built schema, is selected under a list of 20 parents and under a list of 200 parents; the number
 * of SQL statements of the request must not grow with the number of parents (every list and nested
 * field reads through the per-request loaders). A new field is swept as soon as it is in the schema;
 * a field that cannot be exercised generically is in SKIP with its reason.
 *
 * Each field is measured alone, except the leaf fields without arguments of a type, which are
 * measured together first (one request instead of thirty): only when that request grows is each of
 * them measured alone, to name the culprit. `SWEEP_TIMES=1` prints the time of each measurement.
 */

const SMALL = 20;
const BIG = 200;
/** Every parent of a realm fits in one page. */
const ALL = 1000;

type Field = GraphQLField<unknown, unknown>;

let ts: TestServer;
let api: AdminApi;
let token: string;
let schema: GraphQLSchema;

/** Per realm: the ids the required arguments are filled with. */
interface Fixture {
  realm: string;
  /** UUID of the client `app`, whose N roles are mapped to the users and groups. */
  app: string;
  /** UUID of the client `small` (two roles), named where a field takes a client: its roles are mapped to every parent. */
  small: string;
  /** Id of the user `a-user-000`. */
  user: string;
}
const fixtures = new Map<number, Fixture>();

/** A stored password credential (no hashing). */
const credential = {
  type: 'password',
  secretData: JSON.stringify({ value: 'x', salt: 'eA==', additionalParameters: {} }),
  credentialData: JSON.stringify({ hashIterations: 1, algorithm: 'pbkdf2-sha256', additionalParameters: {} }),
};

/** How N parents of a type are listed: a query around the selection `sel` of each parent. */
interface Kind {
  name: string;
  type: string;
  list: (f: Fixture, sel: string) => string;
}

/** The component type the sweep lists (user storage providers). */
const STORAGE = 'org.keycloak.storage.UserStorageProvider';

const KINDS: Kind[] = [
  { name: 'users', type: 'User', list: (f, sel) => `{ realm(name: "${f.realm}") { users(max: ${ALL}) { id ${sel} } } }` },
  { name: 'top-level groups', type: 'Group', list: (f, sel) => `{ realm(name: "${f.realm}") { groups(max: ${ALL}) { id ${sel} } } }` },
  { name: 'realm roles', type: 'Role', list: (f, sel) => `{ realm(name: "${f.realm}") { roles(max: ${ALL}) { id ${sel} } } }` },
  {
    name: 'client roles',
    type: 'Role',
    list: (f, sel) => `{ realm(name: "${f.realm}") { client(id: "${f.app}") { roles(max: ${ALL}) { id ${sel} } } } }`,
  },
  { name: 'clients', type: 'Client', list: (f, sel) => `{ realm(name: "${f.realm}") { clients(max: ${ALL}) { id ${sel} } } }` },
  { name: 'client scopes', type: 'ClientScope', list: (f, sel) => `{ realm(name: "${f.realm}") { clientScopes { id ${sel} } } }` },
  {
    name: 'sessions',
    type: 'UserSession',
    list: (f, sel) => `{ realm(name: "${f.realm}") { users(max: ${ALL}) { sessions { id ${sel} } } } }`,
  },
  {
    name: 'identity providers',
    type: 'IdentityProvider',
    list: (f, sel) => `{ realm(name: "${f.realm}") { identityProviders(max: ${ALL}) { alias ${sel} } } }`,
  },
  {
    name: 'authentication flows',
    type: 'AuthenticationFlow',
    list: (f, sel) => `{ realm(name: "${f.realm}") { authenticationFlows { id ${sel} } } }`,
  },
  {
    name: 'components',
    type: 'Component',
    list: (f, sel) => `{ realm(name: "${f.realm}") { components(type: "${STORAGE}") { id ${sel} } } }`,
  },
  { name: 'login events', type: 'Event', list: (f, sel) => `{ realm(name: "${f.realm}") { events(max: ${ALL}) { id ${sel} } } }` },
  {
    name: 'admin events',
    type: 'AdminEvent',
    list: (f, sel) => `{ realm(name: "${f.realm}") { adminEvents(max: ${ALL}) { id ${sel} } } }`,
  },
  {
    name: 'client initial access tokens',
    type: 'ClientInitialAccess',
    list: (f, sel) => `{ realm(name: "${f.realm}") { clientInitialAccess { id ${sel} } } }`,
  },
];

/**
 * Object types a Realm field lists that are not swept, with the reason. A new list of the realm
 * fails the sweep until it is swept (a kind above) or named here.
 */
const UNSWEPT_TYPES: Record<string, string> = {
  Organization:
    'test/graphql/organizations.test.ts pins the statements of organizations with their members, counts and providers (each batched per request)',
  RequiredAction: 'one row per required-action provider of the server: a fixed catalogue, not a list that grows',
  AuthenticatorProviderInfo: 'a catalogue of the server (no rows)',
  ClientAuthenticatorConfigDescription: 'a catalogue of the server (no rows)',
  UnregisteredRequiredAction: 'a catalogue of the server (no rows)',
  ClientRegistrationPolicyProvider: 'a catalogue of the server (no rows)',
  ClientScopeRef: 'the realm default scope lists: {id, name, protocol} values of a handful of built-in scopes',
  ClientSessionStat: 'one row per client with sessions, computed by the listing itself (one GROUP BY, no nested field)',
};

/** Fields that cannot be exercised generically, with the reason (`Type.field`). */
const SKIP: Record<string, string> = {
  'IdentityProvider.mapper': 'a lookup by the id of one mapper of one provider: no id is the same under every parent',
  'Client.authorization':
    "null for the sweep's clients (no authorization services); test/graphql/authz.test.ts pins its statements for 2 and 12 clients",
};

/**
 * Values of required arguments: by `Type.field.arg`, then by argument name. A required argument
 * without a value fails the sweep (name it here).
 */
const ARGS: Record<string, (f: Fixture) => unknown> = {
  clientUuid: (f) => f.small,
  'User.clientRoles.clientId': (f) => f.small,
  'Group.clientRoles.clientId': (f) => f.small,
  'User.offlineSessions.clientId': (f) => f.small,
  'Client.certificate.attr': () => 'jwt.credential',
  'Client.role.name': () => 'role-a',
  roleContainerId: (f) => f.small,
  userId: (f) => f.user,
  'Component.subComponentTypes.type': () => 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper',
};

/** Object types whose fields are swept as parents: nested selections only name them. */
const parentTypes = () => new Set(KINDS.map((k) => k.type));

const requiredArgs = (field: Field) => field.args.filter((a) => isNonNullType(a.type) && a.defaultValue === undefined);

/** `(a: 1, b: "x")` for the required arguments of a field, filled from ARGS; a missing value fails the sweep. */
function argumentsOf(type: GraphQLObjectType, field: Field, f: Fixture): string {
  const args = requiredArgs(field).map((a) => {
    const value = ARGS[`${type.name}.${field.name}.${a.name}`] ?? ARGS[a.name];
    if (!value) throw new Error(`${type.name}.${field.name}(${a.name}:) is required: give it a value in ARGS or skip the field`);
    return `${a.name}: ${JSON.stringify(value(f))}`;
  });
  return args.length ? `(${args.join(', ')})` : '';
}

/**
 * A selection of `type` deep enough for its resolvers to run: leaf fields, and objects of
 * helper types (role mappings, connections, consents, scope evaluations ...) recursively; a swept
 * type nested inside is only named (its own fields are swept under its own kind).
 */
function selectionOf(type: GraphQLObjectType, f: Fixture, depth = 0): string {
  if (parentTypes().has(type.name) && depth > 0) return '__typename';
  const parts: string[] = [];
  for (const field of Object.values(type.getFields())) {
    if (depth > 0 && SKIP[`${type.name}.${field.name}`]) continue;
    const named = getNamedType(field.type);
    if (isLeafType(named)) parts.push(`${field.name}${argumentsOf(type, field, f)}`);
    else if (isObjectType(named) && depth < 4)
      parts.push(`${field.name}${argumentsOf(type, field, f)} { ${selectionOf(named, f, depth + 1)} }`);
  }
  return parts.join(' ') || '__typename';
}

/** `field(args) { selection }` for the field under test, its required arguments filled from the fixture. */
function fieldSelection(type: GraphQLObjectType, field: Field, f: Fixture): string {
  const named = getNamedType(field.type);
  const sub = isObjectType(named) ? ` { ${selectionOf(named, f, 1)} }` : '';
  return `${field.name}${argumentsOf(type, field, f)}${sub}`;
}

const post = (query: string) => request(ts.app).post('/graphql').set('Authorization', `Bearer ${token}`).send({ query });

async function counted(query: string): Promise<{ count: number; statements: string[]; body: Json }> {
  const { result, count, statements } = await ts.countSql(() => post(query));
  return { count, statements, body: result.body };
}

/** The list of parents a kind's query answered (to check that the sweep saw all of them). */
function parentsIn(body: Json): unknown[] {
  let node: unknown = (body.data as Json | undefined)?.realm;
  while (node && !Array.isArray(node)) {
    const values = Object.values(node as Json);
    node = values.find((v) => Array.isArray(v) || (v && typeof v === 'object'));
  }
  if (!Array.isArray(node)) return [];
  // sessions: a list of lists
  return node.every(Array.isArray) ? node.flat() : node;
}

interface Growth {
  field: string;
  small: number;
  big: number;
  sample: string[];
}

/** Sweeps every field of a kind's type under SMALL and BIG parents; returns the fields whose statements grew. */
async function sweep(kind: Kind): Promise<Growth[]> {
  const type = schema.getType(kind.type);
  if (!isObjectType(type)) throw new Error(`no object type ${kind.type}`);
  const small = fixtures.get(SMALL) as Fixture;
  const big = fixtures.get(BIG) as Fixture;
  const grew: Growth[] = [];
  const problems: string[] = [];
  /** Runs the kind's query with these fields of each parent under SMALL and BIG parents; a growth is measured twice. */
  const measure = async (fields: Field[]): Promise<Growth | undefined> => {
    const name = fields.length === 1 ? `${type.name}.${fields[0].name}` : `${type.name}.{${fields.length} plain fields}`;
    const run = async (f: Fixture) => {
      const r = await counted(kind.list(f, fields.map((field) => fieldSelection(type, field, f)).join(' ')));
      const errors = (r.body.errors as Array<{ message: string; path?: unknown[] }> | undefined) ?? [];
      if (errors.length) problems.push(`${kind.name} ${name}: ${errors[0].message} at ${JSON.stringify(errors[0].path)}`);
      return { ...r, parents: parentsIn(r.body).length };
    };
    const t0 = Date.now();
    let s = await run(small);
    const t1 = Date.now();
    let b = await run(big);
    if (process.env.SWEEP_TIMES) console.log(`${name} ${t1 - t0} ${Date.now() - t1} ms`);
    if (b.parents < BIG && !problems.length) problems.push(`${kind.name} ${name}: only ${b.parents} parents listed`);
    if (b.count <= s.count) return undefined;
    // Once more, warm: a process cache filled by the first request must not count as growth.
    s = await run(small);
    b = await run(big);
    return b.count > s.count ? { field: name, small: s.count, big: b.count, sample: b.statements } : undefined;
  };
  const fields = Object.values(type.getFields()).filter((f) => !SKIP[`${type.name}.${f.name}`]);
  // Leaf fields without arguments are measured together; when they grow, each one alone names the culprit.
  const plain = fields.filter((f) => !f.args.length && isLeafType(getNamedType(f.type)));
  const together = plain.length ? await measure(plain) : undefined;
  if (together) {
    const before = grew.length;
    for (const f of plain) {
      const g = await measure([f]);
      if (g) grew.push(g);
    }
    // No field grows alone, only together: report them together.
    if (grew.length === before) grew.push(together);
  }
  for (const f of fields.filter((x) => !plain.includes(x))) {
    const g = await measure([f]);
    if (g) grew.push(g);
  }
  if (problems.length) throw new Error(`the sweep could not run:\n${[...new Set(problems)].join('\n')}`);
  return grew;
}

function report(kind: Kind, grew: Growth[]): string {
  return grew
    .map((g) => {
      const repeated = new Map<string, number>();
      for (const s of g.sample) {
        const key = s.replace(/'[^']*'/g, '?').slice(0, 200);
        repeated.set(key, (repeated.get(key) ?? 0) + 1);
      }
      const top = [...repeated.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([s, n]) => `      ${n}× ${s}`);
      return `  ${kind.name}: ${g.field}: ${SMALL} parents → ${g.small} statements, ${BIG} → ${g.big}\n${top.join('\n')}`;
    })
    .join('\n');
}

/**
 * A realm of `n` parents of each kind. The realm, the clients `app` and `small` and one identity
 * provider are created through the admin API (the stored forms of a client and of a provider are
 * taken from them); the `n` parents and their relations are bulk inserts, so that 200 of each cost
 * a few statements:
 * - users: credential, attribute, required action, a group and a subgroup, a realm role, roles of
 *   `app`, `small` and of their own client, a consent, an identity provider link, an online and an
 *   offline session (with their client, and `small`), a login event, an admin event;
 * - top-level groups with a subgroup and roles; realm roles (attributes, composites in pairs) and
 *   `n` roles of `app`; clients (service account, a role `role-a`, a mapper, linked scopes, scope
 *   mappings); client scopes (a mapper, scope mappings); identity providers (a mapper);
 *   authentication flows; user storage components; client initial access tokens.
 */
async function seed(n: number): Promise<Fixture> {
  const realm = `sweep${n}`;
  const realmId = await createRealm(api, realm);
  const app = createdId(
    await api.post(`/admin/realms/${realm}/clients`, { clientId: 'app', publicClient: false, secret: 'secret', fullScopeAllowed: false }),
    'creating app',
  );
  const small = createdId(await api.post(`/admin/realms/${realm}/clients`, { clientId: 'small', publicClient: false }), 'creating small');
  const smallRole = randomUUID();
  expectStatus(
    await api.post(`/admin/realms/${realm}/identity-provider/instances`, {
      alias: 'idp-template',
      providerId: 'oidc',
      config: { clientId: 'c', clientSecret: 's', authorizationUrl: 'https://idp.example.org/a', tokenUrl: 'https://idp.example.org/t' },
    }),
    201,
    'creating an identity provider',
  );
  const m = ts.db.models;
  const appRow = await m.Client.findByPk(app);
  const idpRow = await m.IdentityProvider.findOne({ where: { realmId, alias: 'idp-template' } });
  if (!appRow || !idpRow) throw new Error('templates missing');
  const builtInScopes = new Map((await m.ClientScope.findAll({ where: { realmId } })).map((sc) => [sc.name, sc.id]));
  const now = Date.now();
  const seconds = Math.floor(now / 1000);
  const ix = Array.from({ length: n }, (_, i) => String(i).padStart(3, '0'));
  const ids = () => ix.map(() => randomUUID());
  const [roleIds, appRoleIds, clientIds, clientRoleIds, scopeIds, groupIds, childIds, userIds, saIds, idpIds] = Array.from(
    { length: 10 },
    ids,
  );

  await m.Role.bulkCreate([
    { id: smallRole, realmId, clientId: small, containerId: small, name: 'small-a' },
    { id: randomUUID(), realmId, clientId: small, containerId: small, name: 'small-b' },
    ...ix.map((i, k) => ({ id: roleIds[k], realmId, clientId: null, containerId: realmId, name: `role-${i}`, attributes: { a: [i] } })),
    ...ix.map((i, k) => ({ id: appRoleIds[k], realmId, clientId: app, containerId: app, name: `app-role-${i}`, attributes: { a: [i] } })),
  ]);
  await m.CompositeRole.bulkCreate(
    // Pairs, not a chain: role-2j ⊃ role-2j+1; every role-k ⊃ app-role-k.
    ix.flatMap((_, k) => [
      ...(k % 2 === 0 && k + 1 < n ? [{ compositeId: roleIds[k], childId: roleIds[k + 1] }] : []),
      { compositeId: roleIds[k], childId: appRoleIds[k] },
    ]),
  );

  const settings = appRow.get('settings') as Record<string, unknown>;
  await m.Client.bulkCreate(
    ix.map((i, k) => ({
      id: clientIds[k],
      realmId,
      clientId: `client-${i}`,
      enabled: true,
      protocol: 'openid-connect',
      publicClient: false,
      serviceAccountsEnabled: true,
      fullScopeAllowed: false,
      secret: 'secret',
      settings: { ...settings, redirectUris: ['https://example.org/*'] },
    })),
  );
  await m.Role.bulkCreate(
    ix.map((_, k) => ({ id: clientRoleIds[k], realmId, clientId: clientIds[k], containerId: clientIds[k], name: 'role-a' })),
  );
  // Every other client has a role-a too, for `Client.role(name: "role-a")`.
  const others = await m.Client.findAll({ where: { realmId, id: { [Op.notIn]: clientIds } } });
  await m.Role.bulkCreate(others.map((c) => ({ id: randomUUID(), realmId, clientId: c.id, containerId: c.id, name: 'role-a' })));
  await m.ClientScope.bulkCreate(
    ix.map((i, k) => ({
      id: scopeIds[k],
      realmId,
      name: `scope-${i}`,
      protocol: 'openid-connect',
      attributes: { 'include.in.token.scope': 'true' },
    })),
  );
  const mapper = (i: string) => ({
    id: randomUUID(),
    name: 'm',
    protocol: 'openid-connect',
    protocolMapper: 'oidc-hardcoded-claim-mapper',
    config: { 'claim.name': 'c', 'claim.value': i, 'access.token.claim': 'true', 'jsonType.label': 'String' },
  });
  await m.ProtocolMapper.bulkCreate([
    ...ix.map((i, k) => ({ ...mapper(i), clientId: clientIds[k] })),
    ...ix.map((i, k) => ({ ...mapper(i), clientScopeId: scopeIds[k] })),
  ]);
  const email = builtInScopes.get('email');
  const profile = builtInScopes.get('profile');
  if (!email || !profile) throw new Error('built-in scopes missing');
  await m.ClientScopeClient.bulkCreate(
    ix.flatMap((_, k) => [
      { clientId: clientIds[k], scopeId: scopeIds[k], defaultScope: true },
      { clientId: clientIds[k], scopeId: profile, defaultScope: true },
      { clientId: clientIds[k], scopeId: email, defaultScope: false },
    ]),
  );
  await m.ScopeMapping.bulkCreate([
    ...ix.map((_, k) => ({ ownerId: clientIds[k], roleId: roleIds[k] })),
    ...ix.map((_, k) => ({ ownerId: clientIds[k], roleId: appRoleIds[k] })),
    ...ix.map((_, k) => ({ ownerId: scopeIds[k], roleId: roleIds[k] })),
    ...[...clientIds, ...scopeIds].map((ownerId) => ({ ownerId, roleId: smallRole })),
  ]);

  await m.Group.bulkCreate([
    ...ix.map((i, k) => ({ id: groupIds[k], realmId, name: `group-${i}` })),
    ...ix.map((i, k) => ({ id: childIds[k], realmId, parentId: groupIds[k], name: `child-${i}` })),
  ]);
  await m.GroupRoleMapping.bulkCreate(
    ix.flatMap((_, k) => [
      { groupId: groupIds[k], roleId: roleIds[k] },
      { groupId: groupIds[k], roleId: appRoleIds[k] },
      { groupId: groupIds[k], roleId: smallRole },
      { groupId: childIds[k], roleId: roleIds[(k + 1) % n] },
    ]),
  );

  const idp = idpRow.get({ plain: true }) as Record<string, unknown>;
  await m.IdentityProvider.bulkCreate(ix.map((i, k) => ({ ...idp, internalId: idpIds[k], alias: `idp-${i}` })));
  await m.IdpMapper.bulkCreate(
    ix.map((i, k) => ({
      id: randomUUID(),
      realmId,
      identityProviderId: idpIds[k],
      name: 'm',
      mapperType: 'hardcoded-attribute-idp-mapper',
      config: { attribute: 'a', 'attribute.value': i, syncMode: 'INHERIT' },
    })),
  );

  const user = (id: string, username: string, extra: Record<string, unknown> = {}) => ({
    id,
    realmId,
    username,
    emailConstraint: id,
    enabled: true,
    emailVerified: false,
    createdTimestamp: now,
    notBefore: 0,
    ...extra,
  });
  await m.User.bulkCreate([
    ...ix.map((i, k) => user(userIds[k], `a-user-${i}`, { email: `user${i}@example.org`, firstName: 'F', lastName: 'L' })),
    ...ix.map((i, k) => user(saIds[k], `service-account-client-${i}`, { serviceAccountClientLink: clientIds[k] })),
  ]);
  await m.UserAttribute.bulkCreate(ix.map((i, k) => ({ id: randomUUID(), userId: userIds[k], name: 'a', value: i })));
  await m.UserRequiredAction.bulkCreate(ix.map((_, k) => ({ userId: userIds[k], requiredAction: 'VERIFY_EMAIL' })));
  await m.Credential.bulkCreate(
    ix.map((_, k) => ({ id: randomUUID(), userId: userIds[k], createdDate: now, priority: 10, ...credential })),
  );
  await m.UserGroupMembership.bulkCreate(
    ix.flatMap((_, k) => [
      { userId: userIds[k], groupId: groupIds[k] },
      { userId: userIds[k], groupId: childIds[(k + 1) % n] },
    ]),
  );
  await m.UserRoleMapping.bulkCreate(
    ix.flatMap((_, k) => [
      { userId: userIds[k], roleId: roleIds[k] },
      { userId: userIds[k], roleId: appRoleIds[k] },
      { userId: userIds[k], roleId: clientRoleIds[k] },
      { userId: userIds[k], roleId: smallRole },
      { userId: saIds[k], roleId: roleIds[k] },
    ]),
  );
  await m.FederatedIdentity.bulkCreate(
    ix.map((i, k) => ({
      userId: userIds[k],
      identityProvider: `idp-${i}`,
      realmId,
      federatedUserId: `ext-${i}`,
      federatedUsername: `ext-${i}`,
    })),
  );
  const consentIds = ids();
  await m.UserConsent.bulkCreate(
    ix.map((_, k) => ({ id: consentIds[k], userId: userIds[k], clientId: clientIds[k], createdDate: now, lastUpdatedDate: now })),
  );
  await m.UserConsentClientScope.bulkCreate(ix.map((_, k) => ({ userConsentId: consentIds[k], scopeId: scopeIds[k] })));

  const sessions = ix.flatMap((_, k) =>
    [false, true].map((offline) => ({
      id: randomUUID(),
      realmId,
      userId: userIds[k],
      clientId: clientIds[k],
      ipAddress: '127.0.0.1',
      started: seconds,
      lastAccess: seconds,
      offline,
      notes: {},
      rememberMe: false,
      authMethod: 'openid-connect',
    })),
  );
  await m.UserSession.bulkCreate(sessions);
  await m.ClientSession.bulkCreate(
    sessions.flatMap((s) => [
      { userSessionId: s.id, clientId: s.clientId, realmId, offline: s.offline, timestamp: seconds },
      { userSessionId: s.id, clientId: small, realmId, offline: s.offline, timestamp: seconds },
    ]),
  );
  await m.AuthFlow.bulkCreate(
    ix.map((i, k) => ({ id: randomUUID(), realmId, alias: `flow-${i}`, providerId: 'basic-flow', topLevel: true, builtIn: false, ord: k })),
  );
  await m.Component.bulkCreate(
    ix.map((i) => ({
      id: randomUUID(),
      realmId,
      parentId: realmId,
      name: `storage-${i}`,
      providerId: 'ldap',
      providerType: STORAGE,
      config: { enabled: ['true'], priority: ['0'] },
    })),
  );
  await m.Event.bulkCreate(
    ix.map((_, k) => ({
      id: randomUUID(),
      realmId,
      time: now - k,
      type: 'LOGIN',
      clientId: `client-${ix[k]}`,
      userId: userIds[k],
      ipAddress: '127.0.0.1',
      details: { username: `a-user-${ix[k]}` },
    })),
  );
  await m.AdminEvent.bulkCreate(
    ix.map((_, k) => ({
      id: randomUUID(),
      realmId,
      time: now - k,
      operationType: 'UPDATE',
      resourceType: 'USER',
      resourcePath: `users/${userIds[k]}`,
      authRealmId: realmId,
      authClientId: app,
      authUserId: userIds[0],
      ipAddress: '127.0.0.1',
    })),
  );
  await m.ClientInitialAccess.bulkCreate(
    ix.map(() => ({ id: randomUUID(), realmId, timestamp: seconds, expiration: 3600, count: 5, remainingCount: 5 })),
  );
  return { realm, app, small, user: userIds[0] };
}

beforeAll(async () => {
  ts = await startTestServer({
    graphql: { ...GRAPHQL_DEFAULTS, maxPageSize: ALL, maxCost: 100_000_000, maxTokens: 100_000, timeout: 0 },
  });
  api = await ts.api();
  token = await ts.token();
  schema = await gatewaySchema();
  for (const n of [SMALL, BIG]) fixtures.set(n, await seed(n));
}, 120_000);
afterAll(() => ts?.close());

describe('statement sweep: no field costs more statements under 200 parents than under 20', () => {
  test('every object type the realm lists is swept or named with a reason', () => {
    const realm = schema.getType('Realm') as GraphQLObjectType;
    const swept = parentTypes();
    const missing = Object.values(realm.getFields())
      .filter((f) => isListType(isNonNullType(f.type) ? f.type.ofType : f.type))
      .map((f) => getNamedType(f.type))
      .filter((t) => isObjectType(t) && !swept.has(t.name) && !UNSWEPT_TYPES[t.name])
      .map((t) => t.name);
    expect([...new Set(missing)]).toEqual([]);
  });

  test.each(KINDS.map((k) => [k.name, k] as const))(
    '%s',
    async (_name, kind) => {
      const grew = await sweep(kind);
      if (grew.length) throw new Error(`statements grow with the number of parents:\n${report(kind, grew)}`);
    },
    600_000,
  );
});

/**
 * The batched reads answer each parent with its own data, exactly as the REST twin does for that
 * parent alone: for a sample of the parents of a list, the field's value is the REST answer
 * (projected on the fields GraphQL selects; values that differ per call, such as token ids and
 * times, are left out).
 */
describe('batched answers are the REST answers of each parent', () => {
  const SAMPLE = [0, 7, 13, 19];
  const VOLATILE = new Set(['jti', 'iat', 'exp', 'sid', 'session_state', 'auth_time']);

  /** `rest` reduced to the keys (and array positions) present in `gql`. */
  function project(rest: unknown, gql: unknown): unknown {
    if (Array.isArray(gql) && Array.isArray(rest)) return rest.map((r, i) => project(r, gql[i] ?? gql[0]));
    if (gql && typeof gql === 'object' && rest && typeof rest === 'object' && !Array.isArray(gql)) {
      return Object.fromEntries(
        Object.keys(gql)
          .filter((k) => !VOLATILE.has(k))
          .map((k) => [k, project((rest as Json)[k], (gql as Json)[k])]),
      );
    }
    return rest === undefined ? null : rest;
  }
  const stable = (v: unknown): unknown => project(v, v);

  interface Case {
    name: string;
    /** The list query; each parent selects `id` and `value`. */
    query: (f: Fixture) => string;
    /** Path of the list in `data`. */
    list: (data: Json) => Json[];
    rest: (f: Fixture, parent: Json) => string;
    /** The REST body as GraphQL shapes it (a count object → the number ...). */
    shape?: (body: unknown) => unknown;
  }
  const R = (f: Fixture) => `/admin/realms/${f.realm}`;
  const users = (sel: string) => (f: Fixture) =>
    `{ realm(name: "${f.realm}") { users(max: ${ALL}, search: "a-user-") { id value: ${sel} } } }`;
  const clients = (sel: string) => (f: Fixture) =>
    `{ realm(name: "${f.realm}") { clients(max: ${ALL}, clientId: "client-", search: true) { id value: ${sel} } } }`;
  const realmRoles = (sel: string) => (f: Fixture) =>
    `{ realm(name: "${f.realm}") { roles(max: ${ALL}, search: "role-") { id name value: ${sel} } } }`;
  const USERS = (d: Json) => d.realm.users;
  const CLIENTS = (d: Json) => d.realm.clients;
  const ROLES = (d: Json) => d.realm.roles;
  const session = 'id username userId ipAddress start lastAccess rememberMe clients';
  const CASES: Case[] = [
    {
      name: 'User.credentials',
      query: users('credentials { id type userLabel createdDate credentialData priority }'),
      list: USERS,
      rest: (f, u) => `${R(f)}/users/${u.id}/credentials`,
    },
    {
      name: 'User.consents',
      query: users('consents { clientId grantedClientScopes createdDate lastUpdatedDate additionalGrants { client key } }'),
      list: USERS,
      rest: (f, u) => `${R(f)}/users/${u.id}/consents`,
    },
    {
      name: 'User.federatedIdentities',
      query: users('federatedIdentities { identityProvider userId userName }'),
      list: USERS,
      rest: (f, u) => `${R(f)}/users/${u.id}/federated-identity`,
    },
    { name: 'User.sessions', query: users(`sessions { ${session} }`), list: USERS, rest: (f, u) => `${R(f)}/users/${u.id}/sessions` },
    {
      name: 'User.offlineSessions',
      query: (f) => users(`offlineSessions(clientUuid: "${f.small}") { ${session} }`)(f),
      list: USERS,
      rest: (f, u) => `${R(f)}/users/${u.id}/offline-sessions/${f.small}`,
    },
    {
      name: 'User.groupCount',
      query: users('groupCount(search: "child")'),
      list: USERS,
      rest: (f, u) => `${R(f)}/users/${u.id}/groups/count?search=child`,
      shape: (b) => (b as Json).count,
    },
    {
      name: 'Client.sessions',
      query: clients(`sessions { ${session} }`),
      list: CLIENTS,
      rest: (f, c) => `${R(f)}/clients/${c.id}/user-sessions`,
    },
    {
      name: 'Client.sessions(offline)',
      query: clients(`sessions(offline: true) { ${session} }`),
      list: CLIENTS,
      rest: (f, c) => `${R(f)}/clients/${c.id}/offline-sessions`,
    },
    {
      name: 'Client.sessionCount',
      query: clients('sessionCount'),
      list: CLIENTS,
      rest: (f, c) => `${R(f)}/clients/${c.id}/session-count`,
      shape: (b) => (b as Json).count,
    },
    {
      name: 'Client.evaluateScopes.protocolMappers',
      query: clients('evaluateScopes(scope: "email") { protocolMappers { mapperId mapperName containerId containerName containerType } }'),
      list: CLIENTS,
      rest: (f, c) => `${R(f)}/clients/${c.id}/evaluate-scopes/protocol-mappers?scope=email`,
      shape: (b) => ({ protocolMappers: b }),
    },
    {
      name: 'Client.evaluateScopes.exampleAccessToken',
      query: (f) => clients(`evaluateScopes(scope: "email") { exampleAccessToken(userId: "${f.user}") }`)(f),
      list: CLIENTS,
      rest: (f, c) => `${R(f)}/clients/${c.id}/evaluate-scopes/generate-example-access-token?scope=email&userId=${f.user}`,
      shape: (b) => ({ exampleAccessToken: b }),
    },
    { name: 'Role.users', query: realmRoles('users { id username }'), list: ROLES, rest: (f, r) => `${R(f)}/roles/${r.name}/users` },
    { name: 'Role.groups', query: realmRoles('groups { id name path }'), list: ROLES, rest: (f, r) => `${R(f)}/roles/${r.name}/groups` },
    {
      name: 'Role.client',
      query: (f) =>
        `{ realm(name: "${f.realm}") { clients(max: ${ALL}, clientId: "client-", search: true) { roles { id value: client { id clientId secret defaultClientScopes { name } } } } } }`,
      list: (d) => d.realm.clients.flatMap((c: Json) => c.roles).map((r: Json) => ({ ...r, id: r.value.id })),
      rest: (f, r) => `${R(f)}/clients/${r.id}`,
      shape: (b) => ({ ...(b as Json), defaultClientScopes: ((b as Json).defaultClientScopes as string[]).map((name) => ({ name })) }),
    },
    {
      name: 'ClientScope.compositeRealmScopeMappings',
      query: (f) => `{ realm(name: "${f.realm}") { clientScopes { id name value: compositeRealmScopeMappings { id name } } } }`,
      list: (d) => d.realm.clientScopes.filter((sc: Json) => String(sc.name).startsWith('scope-')),
      rest: (f, sc) => `${R(f)}/client-scopes/${sc.id}/scope-mappings/realm/composite`,
    },
  ];

  test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const f = fixtures.get(SMALL) as Fixture;
    const res = await post(c.query(f));
    expect(res.body.errors).toBeUndefined();
    const parents = c.list(res.body.data);
    expect(parents.length).toBeGreaterThanOrEqual(SMALL);
    // The sample carries data (an empty answer everywhere would compare equal whatever the batching did).
    const empty = (v: unknown) => v === null || v === 0 || (Array.isArray(v) && !v.length);
    expect(SAMPLE.filter((i) => !empty(parents[i].value))).toEqual(SAMPLE);
    for (const i of SAMPLE) {
      const parent = parents[i];
      const body = expectStatus(await api.get(c.rest(f, parent)), 200, `${c.name} of parent ${i}`).body;
      const want = c.shape ? c.shape(body) : body;
      expect(stable(parent.value)).toEqual(project(want, parent.value));
    }
  });
});
