import { createClient, createClientScope, createGroup, createRole, createUser, serviceAccountClient } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { type GqlResult, gqlClient, type Json, ok, startWithRealm } from './gql';

/**
 * The read-only twins of the mapping families over GraphQL: role mappings of users and groups
 * (`available`, `composite`), scope mappings of clients and client scopes, evaluate-scopes, and a
 * user's group count. Each answers what its REST endpoint answers, with the same permission rules.
 */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqlmapops';
const base = `/admin/realms/${R}`;

let app: string; // client with roles c-x, c-y (c-y ⊃ c-x)
let svc: string; // service-account client, full scope off: scope r-b (⊃ r-c) and app/c-x
let scopeId: string; // client scope `cs`: scope r-a
let alice: string; // r-b and app/c-y; member of /staff and /staff/devs
let staff: string; // group: r-a
let devs: string; // subgroup of staff: app/c-x

const ROLE = 'id name description composite clientRole containerId attributes';

/** A GraphQL object as REST writes it: null fields left out. */
function rest<T>(v: T): T {
  if (Array.isArray(v)) return v.map(rest) as T;
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== null)
        .map(([k, x]) => [k, rest(x)]),
    ) as T;
  }
  return v;
}

const get = async (path: string) => {
  const res = await api.get(`${base}${path}`);
  expect(res.status).toBe(200);
  return res.body;
};

const errorOf = (r: GqlResult) => r.errors?.map((e) => ({ path: e.path, code: e.extensions.code, message: e.message }));

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
  const ra = await createRole(api, R, 'r-a', { attributes: { tier: ['gold'] } });
  const rb = await createRole(api, R, 'r-b', { description: 'composite' });
  const rc = await createRole(api, R, 'r-c');
  await createRole(api, R, 'r-d');
  expect((await api.post(`${base}/roles/r-b/composites`, [rc])).status).toBe(204);

  app = await createClient(api, R, { clientId: 'app', publicClient: true });
  for (const name of ['c-x', 'c-y', 'c-z']) expect((await api.post(`${base}/clients/${app}/roles`, { name })).status).toBe(201);
  const clientRole = async (name: string) => (await api.get(`${base}/clients/${app}/roles/${name}`)).body;
  const [cx, cy] = [await clientRole('c-x'), await clientRole('c-y')];
  expect((await api.post(`${base}/roles-by-id/${cy.id}/composites`, [cx])).status).toBe(204);

  svc = (await serviceAccountClient(api, R, 'svc', 'secret')).id;
  expect((await api.put(`${base}/clients/${svc}`, { fullScopeAllowed: false })).status).toBe(204);
  expect((await api.post(`${base}/clients/${svc}/scope-mappings/realm`, [rb])).status).toBe(204);
  expect((await api.post(`${base}/clients/${svc}/scope-mappings/clients/${app}`, [cx])).status).toBe(204);
  scopeId = await createClientScope(api, R, 'cs');
  expect((await api.post(`${base}/client-scopes/${scopeId}/scope-mappings/realm`, [ra])).status).toBe(204);

  alice = await createUser(ts, R, 'alice');
  expect((await api.post(`${base}/users/${alice}/role-mappings/realm`, [rb])).status).toBe(204);
  expect((await api.post(`${base}/users/${alice}/role-mappings/clients/${app}`, [cy])).status).toBe(204);
  staff = await createGroup(api, R, 'staff');
  devs = await createGroup(api, R, 'devs', staff);
  expect((await api.post(`${base}/groups/${staff}/role-mappings/realm`, [ra])).status).toBe(204);
  expect((await api.post(`${base}/groups/${devs}/role-mappings/clients/${app}`, [cx])).status).toBe(204);
  for (const g of [staff, devs]) expect((await api.put(`${base}/users/${alice}/groups/${g}`)).status).toBe(204);
  for (let i = 0; i < 6; i++) await createUser(ts, R, `bulk${i}`);
});
afterAll(() => ts.close());

const OWNER_FIELDS = `availableRealmRoles { ${ROLE} }
  compositeRealmRoles { ${ROLE} }
  fullRealm: compositeRealmRoles(brief: false) { ${ROLE} }
  availableClientRoles(clientUuid: $app) { ${ROLE} }
  compositeClientRoles(clientUuid: $app) { ${ROLE} }
  fullClient: compositeClientRoles(clientUuid: $app, brief: false) { ${ROLE} }`;

/** The REST answers of the four role-mapping reads of `/{users|groups}/{id}`. */
async function restOwner(path: string): Promise<Json> {
  const m = `${path}/role-mappings`;
  return {
    availableRealmRoles: await get(`${m}/realm/available`),
    compositeRealmRoles: await get(`${m}/realm/composite`),
    fullRealm: await get(`${m}/realm/composite?briefRepresentation=false`),
    availableClientRoles: await get(`${m}/clients/${app}/available`),
    compositeClientRoles: await get(`${m}/clients/${app}/composite`),
    fullClient: await get(`${m}/clients/${app}/composite?briefRepresentation=false`),
  };
}

describe('role mappings of users and groups: available and composite', () => {
  test('User and Group fields equal the REST endpoints', async () => {
    const q = `query($r: String!, $u: ID!, $g: ID!, $app: ID!) {
      user(realm: $r, id: $u) { ${OWNER_FIELDS} }
      realm(name: $r) { group(id: $g) { ${OWNER_FIELDS} } } }`;
    const data = ok(await gql(q, { r: R, u: alice, g: devs, app }));
    const user = await restOwner(`/users/${alice}`);
    expect(rest(data.user)).toEqual(user);
    expect(rest(data.realm.group)).toEqual(await restOwner(`/groups/${devs}`));
    // What the data says: alice holds r-b (⊃ r-c) and r-a through /staff; c-y (⊃ c-x) directly and c-x through /staff/devs.
    const names = (list: Json[]) => list.map((r) => r.name);
    expect(names(data.user.compositeRealmRoles)).toEqual(expect.arrayContaining(['r-a', 'r-b', 'r-c']));
    expect(names(data.user.availableRealmRoles)).toEqual(expect.arrayContaining(['r-a', 'r-c', 'r-d']));
    expect(names(data.user.availableRealmRoles)).not.toContain('r-b');
    expect(names(data.user.compositeClientRoles)).toEqual(['c-x', 'c-y']);
    expect(names(data.user.availableClientRoles)).toEqual(['c-x', 'c-z']);
    expect(user.fullRealm.find((r: Json) => r.name === 'r-a').attributes).toEqual({ tier: ['gold'] });
  });

  test('an unknown client is NOT_FOUND with the REST message', async () => {
    const res = await gql(`query($r: String!, $u: ID!) { user(realm: $r, id: $u) { availableClientRoles(clientUuid: "nope") { id } } }`, {
      r: R,
      u: alice,
    });
    const restRes = await api.get(`${base}/users/${alice}/role-mappings/clients/nope/available`);
    expect(restRes.status).toBe(404);
    expect(errorOf(res)).toEqual([{ path: ['user', 'availableClientRoles'], code: 'NOT_FOUND', message: restRes.body.error }]);
  });

  test('over a list of users, the fields are batched: the statement count does not grow with the users', async () => {
    const q = (max: number) => `query($r: String!, $app: ID!) { realm(name: $r) { users(max: ${max}) {
      username availableRealmRoles { name } compositeRealmRoles { name } availableClientRoles(clientUuid: $app) { name }
      compositeClientRoles(clientUuid: $app) { name } } } }`;
    const one = await ts.countSql(() => gql(q(1), { r: R, app }));
    const seven = await ts.countSql(() => gql(q(7), { r: R, app }));
    expect(ok(one.result).realm.users).toHaveLength(1);
    expect(ok(seven.result).realm.users).toHaveLength(7);
    // Measured 17 to 20 for either size (how the loaders' batches split varies by a few); one
    // statement per user and field would add 24 for the six more users.
    expect(seven.count).toBeLessThanOrEqual(22);
    expect(seven.count).toBeLessThan(one.count + 6);
  });
});

const SCOPE_FIELDS = `availableRealmScopeMappings { ${ROLE} }
  compositeRealmScopeMappings { ${ROLE} }
  fullRealm: compositeRealmScopeMappings(brief: false) { ${ROLE} }
  availableClientScopeMappings(clientUuid: $app) { ${ROLE} }
  compositeClientScopeMappings(clientUuid: $app) { ${ROLE} }
  fullClient: compositeClientScopeMappings(clientUuid: $app, brief: false) { ${ROLE} }`;

async function restScopeOwner(path: string): Promise<Json> {
  const m = `${path}/scope-mappings`;
  return {
    availableRealmScopeMappings: await get(`${m}/realm/available`),
    compositeRealmScopeMappings: await get(`${m}/realm/composite`),
    fullRealm: await get(`${m}/realm/composite?briefRepresentation=false`),
    availableClientScopeMappings: await get(`${m}/clients/${app}/available`),
    compositeClientScopeMappings: await get(`${m}/clients/${app}/composite`),
    fullClient: await get(`${m}/clients/${app}/composite?briefRepresentation=false`),
  };
}

describe('scope mappings of clients and client scopes: available and composite', () => {
  test('Client and ClientScope fields equal the REST endpoints', async () => {
    const q = `query($r: String!, $c: ID!, $s: ID!, $app: ID!) {
      client(realm: $r, id: $c) { ${SCOPE_FIELDS} }
      clientScope(realm: $r, id: $s) { ${SCOPE_FIELDS} } }`;
    const data = ok(await gql(q, { r: R, c: svc, s: scopeId, app }));
    expect(rest(data.client)).toEqual(await restScopeOwner(`/clients/${svc}`));
    expect(rest(data.clientScope)).toEqual(await restScopeOwner(`/client-scopes/${scopeId}`));
    const names = (list: Json[]) => list.map((r) => r.name);
    expect(names(data.client.compositeRealmScopeMappings)).toEqual(['r-b', 'r-c']);
    expect(names(data.client.compositeClientScopeMappings)).toEqual(['c-x']);
    expect(names(data.client.availableClientScopeMappings)).toEqual(['c-y', 'c-z']);
    expect(names(data.clientScope.compositeRealmScopeMappings)).toEqual(['r-a']);
  });

  test('an unknown client is NOT_FOUND with the REST message', async () => {
    const res = await gql(
      `query($r: String!, $c: ID!) { client(realm: $r, id: $c) { compositeClientScopeMappings(clientUuid: "nope") { id } } }`,
      {
        r: R,
        c: svc,
      },
    );
    const restRes = await api.get(`${base}/clients/${svc}/scope-mappings/clients/nope/composite`);
    expect(restRes.status).toBe(404);
    expect(errorOf(res)).toEqual([{ path: ['client', 'compositeClientScopeMappings'], code: 'NOT_FOUND', message: restRes.body.error }]);
  });
});

/** Claims that differ on every call (times, random ids). */
const stable = (token: Json) => {
  const { exp, iat, jti, sid, auth_time, ...rest } = token;
  return rest;
};

describe('evaluate scopes', () => {
  const EVAL = `query($r: String!, $c: ID!, $app: String!, $realm: String!, $u: ID!) { client(realm: $r, id: $c) {
    evaluateScopes(scope: "openid email") {
      scope
      protocolMappers { mapperId mapperName containerId containerName containerType protocolMapper }
      grantedRealm: grantedScopeMappings(roleContainerId: $realm) { ${ROLE} }
      notGrantedRealm: notGrantedScopeMappings(roleContainerId: $realm) { ${ROLE} }
      grantedApp: grantedScopeMappings(roleContainerId: $app) { ${ROLE} }
      notGrantedApp: notGrantedScopeMappings(roleContainerId: $app) { ${ROLE} }
      exampleAccessToken(userId: $u)
      exampleIdToken(userId: $u)
      exampleUserinfo(userId: $u) } } }`;

  test('every evaluate-scopes field equals its REST endpoint', async () => {
    const data = ok(await gql(EVAL, { r: R, c: svc, app, realm: R, u: alice }));
    const e = data.client.evaluateScopes;
    const ev = `/clients/${svc}/evaluate-scopes`;
    const q = `scope=${encodeURIComponent('openid email')}`;
    expect(e.scope).toBe('openid email');
    expect(e.protocolMappers).toEqual(await get(`${ev}/protocol-mappers?${q}`));
    expect(rest(e.grantedRealm)).toEqual(await get(`${ev}/scope-mappings/${R}/granted?${q}`));
    expect(rest(e.notGrantedRealm)).toEqual(await get(`${ev}/scope-mappings/${R}/not-granted?${q}`));
    expect(rest(e.grantedApp)).toEqual(await get(`${ev}/scope-mappings/${app}/granted?${q}`));
    expect(rest(e.notGrantedApp)).toEqual(await get(`${ev}/scope-mappings/${app}/not-granted?${q}`));
    const names = (list: Json[]) => list.map((r) => r.name);
    expect(names(e.grantedRealm)).toEqual(['r-b', 'r-c']);
    expect(names(e.grantedApp)).toEqual(['c-x']);
    expect(names(e.notGrantedApp)).toEqual(['c-y', 'c-z']);
    expect(e.protocolMappers.length).toBeGreaterThan(0);
    const user = `${q}&userId=${alice}`;
    expect(stable(e.exampleAccessToken)).toEqual(stable(await get(`${ev}/generate-example-access-token?${user}`)));
    expect(stable(e.exampleIdToken)).toEqual(stable(await get(`${ev}/generate-example-id-token?${user}`)));
    expect(e.exampleUserinfo).toEqual(await get(`${ev}/generate-example-userinfo?${user}`));
    expect(e.exampleAccessToken).toMatchObject({ azp: 'svc', scope: expect.stringContaining('email') });
    expect(e.exampleUserinfo).toMatchObject({ sub: alice, email: 'alice@example.org' });
  });

  test('an audience the client cannot reach and an unknown user are NOT_FOUND with the REST messages', async () => {
    const ev = `${base}/clients/${svc}/evaluate-scopes`;
    const cases: Array<[string, string, string]> = [
      [
        'exampleAccessToken',
        `userId: "${alice}", audience: "elsewhere"`,
        `generate-example-access-token?userId=${alice}&audience=elsewhere`,
      ],
      ['exampleIdToken', 'userId: "nobody"', 'generate-example-id-token?userId=nobody'],
      ['exampleUserinfo', 'userId: "nobody"', 'generate-example-userinfo?userId=nobody'],
    ];
    for (const [field, args, path] of cases) {
      const res = await gql(`query($r: String!, $c: ID!) { client(realm: $r, id: $c) { evaluateScopes { ${field}(${args}) } } }`, {
        r: R,
        c: svc,
      });
      const restRes = await api.get(`${ev}/${path}`);
      expect(restRes.status).toBe(404);
      expect(errorOf(res)).toEqual([{ path: ['client', 'evaluateScopes', field], code: 'NOT_FOUND', message: restRes.body.error }]);
    }
  });
});

describe('group count of a user', () => {
  test('User.groupCount(search) equals GET /users/{id}/groups/count', async () => {
    const data = ok(
      await gql(
        `query($r: String!, $u: ID!) { user(realm: $r, id: $u) { groupCount all: groupCount(search: "") dev: groupCount(search: "DEV") none: groupCount(search: "zz") } }`,
        {
          r: R,
          u: alice,
        },
      ),
    );
    const count = async (q: string) => (await get(`/users/${alice}/groups/count${q}`)).count;
    expect(data.user).toEqual({
      groupCount: await count(''),
      all: await count('?search='),
      dev: await count('?search=DEV'),
      none: await count('?search=zz'),
    });
    expect(data.user).toEqual({ groupCount: 2, all: 2, dev: 1, none: 0 });
  });
});

describe('permissions: the REST rules, FORBIDDEN without the role', () => {
  /** The one error of a query asking for one failing field: its path (names only) and code. */
  const failure = (r: GqlResult) => r.errors?.map((e) => [e.path?.filter((p) => typeof p === 'string').join('.'), e.extensions.code]);

  test('role mappings and group count need view-users (a view-clients caller reaching a service-account user)', async () => {
    await createUser(ts, R, 'viewer', { roles: ['view-clients', 'query-users'] });
    const viewer = gqlClient(ts, { realm: R, username: 'viewer', password: 'pw' });
    const viewerApi = await ts.api({ realm: R, username: 'viewer', password: 'pw' });
    const saUser = (await get(`/clients/${svc}/service-account-user`)).id;
    const fields = {
      availableRealmRoles: ['availableRealmRoles { id }', 'role-mappings/realm/available'],
      compositeClientRoles: [`compositeClientRoles(clientUuid: "${app}") { id }`, `role-mappings/clients/${app}/composite`],
      groupCount: ['groupCount', 'groups/count'],
    };
    for (const [name, [selection, path]] of Object.entries(fields)) {
      const q = `query($r: String!, $c: ID!) { client(realm: $r, id: $c) { serviceAccountUser { id ${selection} } } }`;
      const res = await viewer(q, { r: R, c: svc });
      expect(failure(res)).toEqual([[`client.serviceAccountUser.${name}`, 'FORBIDDEN']]);
      expect(res.errors?.[0].extensions.http?.status).toBe(403);
      expect((await viewerApi.get(`${base}/users/${saUser}/${path}`)).status).toBe(403);
    }
    // The parent itself is readable: only the mapping fields are refused.
    const parent = await viewer(`query($r: String!, $c: ID!) { client(realm: $r, id: $c) { serviceAccountUser { id } } }`, {
      r: R,
      c: svc,
    });
    expect(ok(parent).client.serviceAccountUser.id).toBe(saUser);
  });

  test('scope mappings and evaluate-scopes need view-clients (a query-clients caller listing clients)', async () => {
    await createUser(ts, R, 'lister', { roles: ['query-clients'] });
    const lister = gqlClient(ts, { realm: R, username: 'lister', password: 'pw' });
    const listerApi = await ts.api({ realm: R, username: 'lister', password: 'pw' });
    const fields = {
      availableRealmScopeMappings: ['availableRealmScopeMappings { id }', 'scope-mappings/realm/available'],
      'evaluateScopes.protocolMappers': ['evaluateScopes { protocolMappers { mapperId } }', 'evaluate-scopes/protocol-mappers'],
    };
    for (const [name, [selection, path]] of Object.entries(fields)) {
      const res = await lister(`query($r: String!) { realm(name: $r) { clients(clientId: "svc") { id ${selection} } } }`, { r: R });
      expect(failure(res)).toEqual([[`realm.clients.${name}`, 'FORBIDDEN']]);
      expect((await listerApi.get(`${base}/clients/${svc}/${path}`)).status).toBe(403);
    }
  });
});
