import type { AdminApi, TestServer } from '../../helpers/server';
import { gqlClient, type GqlResult } from '../../graphql/gql';
import {
  clientUuid,
  createClient,
  createClientScope,
  createGroup,
  createRole,
  createUser,
  expectStatus,
  realmServer,
} from '../../helpers/fixtures';
import { attachPolicies } from '../../helpers/fgap';

/**
 * Fine-grained admin permissions of roles and role mappings (Keycloak 26 FGAP v1: RolePermissions,
 * UserPermissions#canMapRoles, GroupPermissions, ClientPermissions#canMapRoles...), for an admin holding
 * none of the realm-management roles ("agent", a member of group "helpdesk"), granted things through one
 * group policy on realm-management's resource server:
 * - manage-members on group "customers" (he may view and manage its members, so their mappings);
 * - the users map-roles permission (he may change anyone's mappings, per role);
 * - map-role on realm role "support" and on realm-management's "view-users" and "query-users" roles;
 * - map-roles, configure on client "app" (its roles are free to map; he manages its roles, reads its scope);
 * - map-role-composite and map-role-client-scope on "support";
 * - manage on group "teams".
 * REST and GraphQL alike; the escalation guard still applies to admin roles; a POST of 50 roles costs
 * the SQL of a POST of one; deleting a role deletes its permissions.
 */
let ts: TestServer;
let api: AdminApi;
let agent: AdminApi;
const R = 'fgaproles';
const base = `/admin/realms/${R}`;
let rsPath: string;
let policyId: string;
let rm: string;
let app: string;
const u: Record<string, string> = {};
const g: Record<string, string> = {};
type Rep = Record<string, unknown>;
type Role = { id: string; name: string };
const role: Record<string, Role> = {};

/** The reference of an object's management permissions, turned on. */
async function enable(path: string): Promise<{ resource: string; scopePermissions: Record<string, string> }> {
  return expectStatus(await api.put(`${base}${path}/management/permissions`, { enabled: true }), 200, `enable ${path}`).body;
}

/** Attaches the helpdesk policy to a permission (as the admin console does: PUT the permission with its policies). */
const attach = (permissionId: string): Promise<void> => attachPolicies(api, rsPath, permissionId, [policyId]);

const names = (list: Rep[]) => list.map((r) => r.name as string).sort();
const status = async (caller: AdminApi, method: 'get' | 'put' | 'delete' | 'post', path: string, body?: unknown) =>
  (await caller[method](`${base}${path}`, body)).status;
const brief = (r: Role) => ({ id: r.id, name: r.name });
const gqlStatus = (r: GqlResult) => r.errors?.[0]?.extensions.http?.status ?? (r.errors ? r.errors[0].extensions.code : 200);

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  rm = await clientUuid(api, R, 'realm-management');
  rsPath = `${base}/clients/${rm}/authz/resource-server`;
  app = await createClient(api, R, { clientId: 'app' });
  for (const n of ['app-user', 'app-admin']) expectStatus(await api.post(`${base}/clients/${app}/roles`, { name: n }), 201, n);
  for (const n of ['support', 'secret', 'lead']) role[n] = await createRole(api, R, n);
  for (const n of ['view-users', 'query-users']) role[n] = expectStatus(await api.get(`${base}/clients/${rm}/roles/${n}`), 200, n).body;
  for (const n of ['app-user', 'app-admin']) role[n] = (await api.get(`${base}/clients/${app}/roles/${n}`)).body;
  for (const n of ['helpdesk', 'customers', 'teams', 'staff']) g[n] = await createGroup(api, R, n);
  for (const n of ['agent', 'cust', 'other']) u[n] = await createUser(ts, R, n);
  expectStatus(await api.put(`${base}/users/${u.agent}/groups/${g.helpdesk}`), 204, 'agent joins helpdesk');
  expectStatus(await api.put(`${base}/users/${u.cust}/groups/${g.customers}`), 204, 'cust joins customers');

  // The whole model, then the grants: every permission below is armed with the one helpdesk policy.
  const users = expectStatus(await api.put(`${base}/users-management-permissions`, { enabled: true }), 200, 'users').body;
  policyId = expectStatus(
    await api.post(`${rsPath}/policy/group`, { name: 'helpdesk members', groups: [{ id: g.helpdesk, extendChildren: false }] }),
    201,
    'policy',
  ).body.id;
  await attach(users.scopePermissions['map-roles']);
  await attach((await enable(`/groups/${g.customers}`)).scopePermissions['manage-members']);
  await attach((await enable(`/groups/${g.teams}`)).scopePermissions.manage);
  await enable(`/groups/${g.staff}`);
  const appRef = await enable(`/clients/${app}`);
  await attach(appRef.scopePermissions['map-roles']);
  await attach(appRef.scopePermissions.configure);
  const support = await enable(`/roles-by-id/${role.support.id}`);
  for (const s of ['map-role', 'map-role-composite', 'map-role-client-scope']) await attach(support.scopePermissions[s]);
  await enable(`/roles-by-id/${role.secret.id}`);
  for (const n of ['view-users', 'query-users']) await attach((await enable(`/roles-by-id/${role[n].id}`)).scopePermissions['map-role']);
  agent = await ts.api({ realm: R, username: 'agent', password: 'pw' });
});
afterAll(() => ts.close());

describe('user role mappings', () => {
  test('reads need view of the user: the members of customers, nobody else', async () => {
    for (const sub of ['', '/realm', '/realm/composite', '/realm/available', `/clients/${app}`, `/clients/${app}/composite`]) {
      expect([sub, await status(agent, 'get', `/users/${u.cust}/role-mappings${sub}`)]).toEqual([sub, 200]);
      expect([sub, await status(agent, 'get', `/users/${u.other}/role-mappings${sub}`)]).toEqual([sub, 403]);
    }
  });

  test('available lists only the roles he may map', async () => {
    expect(names((await agent.get(`${base}/users/${u.cust}/role-mappings/realm/available`)).body)).toEqual(['support']);
    expect(names((await agent.get(`${base}/users/${u.cust}/role-mappings/clients/${app}/available`)).body)).toEqual([
      'app-admin',
      'app-user',
    ]);
    // view-users has a map-role grant, but he cannot view users himself: the escalation guard drops it.
    expect(names((await agent.get(`${base}/users/${u.cust}/role-mappings/clients/${rm}/available`)).body)).toEqual(['query-users']);
  });

  test('writes need map-roles of the user and, per role, map-role (guarded) or the client map-roles', async () => {
    expect(await status(agent, 'post', `/users/${u.cust}/role-mappings/realm`, [role.support])).toBe(204);
    expect(await status(agent, 'post', `/users/${u.cust}/role-mappings/realm`, [role.secret])).toBe(403);
    expect(await status(agent, 'post', `/users/${u.cust}/role-mappings/realm`, [role.support, role.secret])).toBe(403);
    expect(await status(agent, 'post', `/users/${u.cust}/role-mappings/clients/${app}`, [role['app-admin']])).toBe(204);
    expect(await status(agent, 'post', `/users/${u.cust}/role-mappings/clients/${rm}`, [role['view-users']])).toBe(403);
    expect(await status(agent, 'post', `/users/${u.cust}/role-mappings/clients/${rm}`, [role['query-users']])).toBe(204);
    // The users map-roles permission reaches a user he may not view.
    expect(await status(agent, 'post', `/users/${u.other}/role-mappings/realm`, [role.support])).toBe(204);
    const mapped = (await api.get(`${base}/users/${u.cust}/role-mappings`)).body;
    expect(names(mapped.realmMappings)).toEqual(['support']);
    expect(names(mapped.clientMappings.app.mappings)).toEqual(['app-admin']);
    expect(names(mapped.clientMappings['realm-management'].mappings)).toEqual(['query-users']);
    expect(await status(agent, 'delete', `/users/${u.other}/role-mappings/realm`, [role.support])).toBe(204);
    expect((await api.get(`${base}/users/${u.other}/role-mappings/realm`)).body).toEqual([]);
    // Removing all without a body needs every mapped role: secret is not his.
    expect(await status(api, 'post', `/users/${u.other}/role-mappings/realm`, [role.secret, role.support])).toBe(204);
    expect(await status(agent, 'delete', `/users/${u.other}/role-mappings/realm`)).toBe(403);
    expect(names((await api.get(`${base}/users/${u.other}/role-mappings/realm`)).body)).toEqual(['secret', 'support']);
  });

  test('GraphQL answers through the same decisions', async () => {
    const gql = gqlClient(ts, { realm: R, username: 'agent', password: 'pw' });
    const add = `mutation($r: String!, $id: ID!, $roles: [RoleInput!]!) {
      addRealmRoleMappings(realm: $r, owner: USER, ownerId: $id, roles: $roles) { roles { name } } }`;
    expect(await status(api, 'delete', `/users/${u.cust}/role-mappings/realm`, [role.support])).toBe(204);
    const ok = await gql(add, { r: R, id: u.cust, roles: [brief(role.support)] });
    expect(ok.errors).toBeUndefined();
    expect(ok.data?.addRealmRoleMappings.roles).toEqual([{ name: 'support' }]);
    expect(gqlStatus(await gql(add, { r: R, id: u.cust, roles: [brief(role.secret)] }))).toBe(403);
    // A user he may map roles to but not view: the mutation answers with what it wrote (no 403 after a commit).
    const other = await gql(add, { r: R, id: u.other, roles: [brief(role.support)] });
    expect(other.errors).toBeUndefined();
    expect(other.data?.addRealmRoleMappings.roles.map((x: Rep) => x.name)).toContain('support');
    expect(names((await api.get(`${base}/users/${u.other}/role-mappings/realm`)).body)).toContain('support');
    const q = `query($r: String!, $id: ID!, $app: ID!) { user(realm: $r, id: $id) {
      availableRealmRoles { name } availableClientRoles(clientUuid: $app) { name } } }`;
    const read = await gql(q, { r: R, id: u.cust, app });
    expect(read.errors).toBeUndefined();
    expect(read.data?.user).toEqual({ availableRealmRoles: [], availableClientRoles: [{ name: 'app-user' }] });
    expect(gqlStatus(await gql(q, { r: R, id: u.other, app }))).toBe(403);
  });

  test('a POST of 50 roles costs the SQL of a POST of one (one model read, decisions in memory)', async () => {
    const scope = (await api.get(`${rsPath}/scope?name=map-role`)).body.find((s: Rep) => s.name === 'map-role');
    const many: Role[] = [];
    for (let i = 0; i < 50; i++) {
      const r = await createRole(api, R, `bulk${String(i).padStart(2, '0')}`);
      const ref = await enable(`/roles-by-id/${r.id}`);
      const name = `map-role.permission.${r.id}`;
      const perm = { id: ref.scopePermissions['map-role'], name, type: 'scope', decisionStrategy: 'AFFIRMATIVE', logic: 'POSITIVE' };
      expectStatus(
        await api.put(`${rsPath}/permission/scope/${perm.id}`, {
          ...perm,
          resources: [ref.resource],
          scopes: [scope.id],
          policies: [policyId],
        }),
        201,
        `arm ${name}`,
      );
      many.push(r);
    }
    const target = await createUser(ts, R, 'bulk-target');
    // Warm: what is cached across requests (the caller's admin roles) is read before measuring.
    expect(await status(agent, 'post', `/users/${target}/role-mappings/realm`, [brief(many[1])])).toBe(204);
    expect(await status(api, 'delete', `/users/${target}/role-mappings/realm`)).toBe(204);
    const one = await ts.countSql(() => agent.post(`${base}/users/${target}/role-mappings/realm`, [many[0]]));
    expect(one.result.status).toBe(204);
    expect(await status(api, 'delete', `/users/${target}/role-mappings/realm`)).toBe(204);
    const fifty = await ts.countSql(() => agent.post(`${base}/users/${target}/role-mappings/realm`, many));
    expect(fifty.result.status).toBe(204);
    expect((await api.get(`${base}/users/${target}/role-mappings/realm`)).body).toHaveLength(50);
    expect(fifty.count).toBe(one.count);
    // And the same 50 plus one he may not map: refused, nothing written.
    expect(await status(api, 'delete', `/users/${target}/role-mappings/realm`)).toBe(204);
    expect(await status(agent, 'post', `/users/${target}/role-mappings/realm`, [...many, role.secret])).toBe(403);
    expect((await api.get(`${base}/users/${target}/role-mappings/realm`)).body).toEqual([]);
  });
});

describe('group role mappings', () => {
  test('view and manage of the group, then the roles one by one', async () => {
    expect(await status(agent, 'get', `/groups/${g.teams}/role-mappings`)).toBe(200);
    expect(names((await agent.get(`${base}/groups/${g.teams}/role-mappings/realm/available`)).body)).toContain('support');
    expect(await status(agent, 'post', `/groups/${g.teams}/role-mappings/realm`, [role.support])).toBe(204);
    expect(await status(agent, 'post', `/groups/${g.teams}/role-mappings/realm`, [role.secret])).toBe(403);
    expect(names((await api.get(`${base}/groups/${g.teams}/role-mappings/realm`)).body)).toEqual(['support']);
    expect(await status(agent, 'delete', `/groups/${g.teams}/role-mappings/realm`, [role.support])).toBe(204);
    for (const [m, path] of [
      ['get', `/groups/${g.staff}/role-mappings`],
      ['get', `/groups/${g.staff}/role-mappings/realm/available`],
      ['post', `/groups/${g.staff}/role-mappings/realm`],
    ] as const)
      expect([m, path, await status(agent, m, path, m === 'post' ? [role.support] : undefined)]).toEqual([m, path, 403]);
  });

  test('GraphQL: the same for groups', async () => {
    const gql = gqlClient(ts, { realm: R, username: 'agent', password: 'pw' });
    const add = `mutation($r: String!, $id: ID!, $roles: [RoleInput!]!) {
      addRealmRoleMappings(realm: $r, owner: GROUP, ownerId: $id, roles: $roles) { roles { name } } }`;
    expect((await gql(add, { r: R, id: g.teams, roles: [brief(role.support)] })).data?.addRealmRoleMappings.roles).toEqual([
      { name: 'support' },
    ]);
    expect(gqlStatus(await gql(add, { r: R, id: g.staff, roles: [brief(role.support)] }))).toBe(403);
  });
});

describe('composites', () => {
  test("a client's configure manages its roles; each child needs map-role-composite", async () => {
    const parent = `/clients/${app}/roles/app-admin/composites`;
    expect(await status(agent, 'get', parent)).toBe(200);
    expect(await status(agent, 'post', parent, [{ id: role.support.id }])).toBe(204);
    expect(await status(agent, 'post', parent, [{ id: role.secret.id }])).toBe(403);
    expect(await status(agent, 'post', `/roles-by-id/${role['app-admin'].id}/composites`, [{ id: role['app-user'].id }])).toBe(403);
    expect(names((await api.get(`${base}${parent}`)).body)).toEqual(['support']);
    expect(await status(agent, 'delete', parent, [{ id: role.support.id }])).toBe(204);
    // Realm roles are managed by manage-realm only: no permission reaches them.
    expect(await status(agent, 'post', '/roles/lead/composites', [{ id: role.support.id }])).toBe(403);
    expect(await status(agent, 'get', '/roles/lead/composites')).toBe(403);
    // A role of the client: created, updated, deleted through configure.
    expect(await status(agent, 'post', `/clients/${app}/roles`, { name: 'app-temp' })).toBe(201);
    expect(await status(agent, 'delete', `/clients/${app}/roles/app-temp`)).toBe(204);
  });

  test('GraphQL: addComposites', async () => {
    const gql = gqlClient(ts, { realm: R, username: 'agent', password: 'pw' });
    const add = `mutation($r: String!, $id: ID!, $roles: [RoleInput!]!) {
      addComposites(realm: $r, id: $id, roles: $roles) { role { name } } }`;
    const ok = await gql(add, { r: R, id: role['app-user'].id, roles: [{ id: role.support.id }] });
    expect(ok.errors).toBeUndefined();
    expect(gqlStatus(await gql(add, { r: R, id: role['app-user'].id, roles: [{ id: role.secret.id }] }))).toBe(403);
    expect(names((await api.get(`${base}/clients/${app}/roles/app-user/composites`)).body)).toEqual(['support']);
  });
});

describe('scope mappings', () => {
  test("a client's manage (configure is not enough) and, per role, map-role-client-scope", async () => {
    // Configure of "app" reads its scope but may not change it (ClientResource: requireManage(client)).
    expect(await status(agent, 'get', `/clients/${app}/scope-mappings`)).toBe(200);
    expect(await status(agent, 'post', `/clients/${app}/scope-mappings/realm`, [{ id: role.support.id }])).toBe(403);
    const managed = await createClient(api, R, { clientId: 'managed-app' });
    await attach((await enable(`/clients/${managed}`)).scopePermissions.manage);
    const path = `/clients/${managed}/scope-mappings`;
    expect(await status(agent, 'get', path)).toBe(200);
    expect(names((await agent.get(`${base}${path}/realm/available`)).body)).toEqual(['support']);
    expect(await status(agent, 'post', `${path}/realm`, [{ id: role.support.id }])).toBe(204);
    expect(await status(agent, 'post', `${path}/realm`, [{ id: role.secret.id }])).toBe(403);
    expect(names((await api.get(`${base}${path}/realm`)).body)).toEqual(['support']);
    // Without a body, the roles he may not map stay (Keycloak filters them).
    expect(await status(api, 'post', `${path}/realm`, [{ id: role.secret.id }])).toBe(204);
    expect(await status(agent, 'delete', `${path}/realm`)).toBe(204);
    expect(names((await api.get(`${base}${path}/realm`)).body)).toEqual(['secret']);
    // Another client, and a client scope (roles only): refused.
    const other = await createClient(api, R, { clientId: 'other-app' });
    expect(await status(agent, 'post', `/clients/${other}/scope-mappings/realm`, [{ id: role.support.id }])).toBe(403);
    const cs = await createClientScope(api, R, 'cs');
    expect(await status(agent, 'post', `/client-scopes/${cs}/scope-mappings/realm`, [{ id: role.support.id }])).toBe(403);
  });

  test('GraphQL: addRealmScopeMappings', async () => {
    const gql = gqlClient(ts, { realm: R, username: 'agent', password: 'pw' });
    const managed = await clientUuid(api, R, 'managed-app');
    const add = `mutation($r: String!, $id: ID!, $roles: [RoleInput!]!) {
      addRealmScopeMappings(realm: $r, owner: CLIENT, ownerId: $id, roles: $roles) { __typename } }`;
    expect((await gql(add, { r: R, id: managed, roles: [{ id: role.support.id, name: 'support' }] })).errors).toBeUndefined();
    expect(gqlStatus(await gql(add, { r: R, id: managed, roles: [{ id: role.lead.id, name: 'lead' }] }))).toBe(403);
    expect(gqlStatus(await gql(add, { r: R, id: app, roles: [{ id: role.support.id, name: 'support' }] }))).toBe(403);
    expect(names((await api.get(`${base}/clients/${managed}/scope-mappings/realm`)).body)).toEqual(['secret', 'support']);
  });
});

describe('deleting a role', () => {
  test('deletes its management permissions and resource', async () => {
    const ref = (await api.get(`${base}/roles-by-id/${role.support.id}/management/permissions`)).body;
    expect(ref.enabled).toBe(true);
    expectStatus(await api.delete(`${base}/roles-by-id/${role.support.id}`), 204, 'delete support');
    expect((await api.get(`${rsPath}/resource/${ref.resource}`)).status).toBe(404);
    for (const id of Object.values(ref.scopePermissions as Record<string, string>))
      expect((await api.get(`${rsPath}/permission/scope/${id}`)).status).toBe(404);
    // The others' stay.
    const secret = (await api.get(`${base}/roles-by-id/${role.secret.id}/management/permissions`)).body;
    expect(secret.enabled).toBe(true);
  });
});
