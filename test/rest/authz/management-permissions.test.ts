import request from 'supertest';
import type { AdminApi, TestServer } from '../../helpers/server';
import { realmAdminClient } from '../../helpers/admin-client';
import { gqlClient, ok, USER_ERRORS } from '../../graphql/gql';
import { clientUuid, createClient, createGroup, createRole, expectStatus, realmAdmin, realmServer } from '../../helpers/fixtures';

/**
 * Fine-grained admin permissions (FGAP v1): the fourteen `management/permissions` endpoints turn an
 * object's permissions on and off, answering Keycloak's ManagementPermissionReference; the objects
 * they create live on `realm-management`'s resource server, where the authz endpoints list them.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'fgapmgmt';
const base = `/admin/realms/${R}`;
let rm: string;
let rsPath: string;
type Rep = Record<string, unknown>;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  rm = await clientUuid(api, R, 'realm-management');
  rsPath = `${base}/clients/${rm}/authz/resource-server`;
});
afterAll(() => ts.close());

/** The permissions of a reference, by key, as the authz endpoints show them. */
async function permissionsOf(ref: Rep): Promise<Record<string, Rep>> {
  const out: Record<string, Rep> = {};
  for (const [key, id] of Object.entries(ref.scopePermissions as Record<string, string>))
    out[key] = expectStatus(await api.get(`${rsPath}/policy/${id}`), 200, `policy ${key}`).body;
  return out;
}

async function scopeNamesOf(policyId: string): Promise<string[]> {
  return (await api.get(`${rsPath}/policy/${policyId}/scopes`)).body.map((s: Rep) => s.name);
}

/** Turns one object's permissions on, checks the reference, its objects, GET, then turns them off. */
async function roundTrip(path: string, keys: string[], resourceName: string, names: Record<string, string>, type?: string) {
  expect(expectStatus(await api.get(path), 200, 'GET off').body).toEqual({ enabled: false });
  const on = expectStatus(await api.put(path, { enabled: true }), 200, 'PUT on').body;
  expect(on.enabled).toBe(true);
  expect(Object.keys(on.scopePermissions)).toEqual(keys);
  expect(expectStatus(await api.get(path), 200, 'GET on').body).toEqual(on);
  // Enabling again changes nothing.
  expect((await api.put(path, { enabled: true })).body).toEqual(on);

  const resource = expectStatus(await api.get(`${rsPath}/resource/${on.resource}`), 200, 'resource').body;
  expect(resource.name).toBe(resourceName);
  if (type) expect(resource.type).toBe(type);
  const perms = await permissionsOf(on);
  for (const key of keys) {
    expect(perms[key]).toMatchObject({ name: names[key], type: 'scope', logic: 'POSITIVE' });
    expect(await scopeNamesOf(String(perms[key].id))).toEqual([key === 'impersonate' ? 'impersonate' : key]);
  }

  expect(expectStatus(await api.put(path, { enabled: false }), 200, 'PUT off').body).toEqual({ enabled: false });
  expect((await api.get(path)).body).toEqual({ enabled: false });
  expect((await api.get(`${rsPath}/resource/${on.resource}`)).status).toBe(404);
  for (const id of Object.values(on.scopePermissions as Record<string, string>))
    expect((await api.get(`${rsPath}/policy/${id}`)).status).toBe(404);
  return on;
}

describe('management/permissions', () => {
  test('users-management-permissions: the Users resource and six permissions on realm-management', async () => {
    const names = {
      view: 'view.permission.users',
      manage: 'manage.permission.users',
      'map-roles': 'map-roles.permission.users',
      'manage-group-membership': 'manage-group-membership.permission.users',
      impersonate: 'admin-impersonating.permission.users',
      'user-impersonated': 'user-impersonated.permission.users',
    };
    await roundTrip(`${base}/users-management-permissions`, Object.keys(names), 'Users', names);
    // The resource server was made as Keycloak makes it (bare, enforcing, unanimous) and stays.
    expect(expectStatus(await api.get(rsPath), 200, 'resource server').body).toMatchObject({
      policyEnforcementMode: 'ENFORCING',
      decisionStrategy: 'UNANIMOUS',
      allowRemoteResourceManagement: false,
    });
    const scopes = (await api.get(`${rsPath}/scope`)).body.map((s: Rep) => s.name).sort();
    expect(scopes).toEqual(['impersonate', 'manage', 'manage-group-membership', 'map-roles', 'user-impersonated', 'view']);
  });

  test('groups: view, manage, view-members, manage-members, manage-membership', async () => {
    const g = await createGroup(api, R, 'customers');
    const names = {
      view: `view.permission.group.${g}`,
      manage: `manage.permission.group.${g}`,
      'view-members': `view.members.permission.group.${g}`,
      'manage-members': `manage.members.permission.group.${g}`,
      'manage-membership': `manage.membership.permission.group.${g}`,
    };
    await roundTrip(`${base}/groups/${g}/management/permissions`, Object.keys(names), `group.resource.${g}`, names);
    expect((await api.get(`${base}/groups/00000000-0000-0000-0000-000000000000/management/permissions`)).body).toEqual({
      error: 'Could not find group by id',
    });
  });

  test('clients: seven permissions on a resource of type Client', async () => {
    const c = await createClient(api, R, { clientId: 'shop' });
    const keys = ['view', 'manage', 'configure', 'map-roles', 'map-roles-client-scope', 'map-roles-composite', 'token-exchange'];
    const names = Object.fromEntries(keys.map((k) => [k, `${k}.permission.client.${c}`]));
    await roundTrip(`${base}/clients/${c}/management/permissions`, keys, `client.resource.${c}`, names, 'Client');
  });

  test('realm roles by name and by id, client roles: one resource per role, AFFIRMATIVE permissions', async () => {
    const role = await createRole(api, R, 'auditor');
    const keys = ['map-role', 'map-role-client-scope', 'map-role-composite'];
    const names = Object.fromEntries(keys.map((k) => [k, `${k}.permission.${role.id}`]));
    const on = expectStatus(await api.put(`${base}/roles/auditor/management/permissions`, { enabled: true }), 200, 'on').body;
    // The same objects by id.
    expect((await api.get(`${base}/roles-by-id/${role.id}/management/permissions`)).body).toEqual(on);
    const perms = await permissionsOf(on);
    for (const k of keys) expect(perms[k]).toMatchObject({ name: names[k], decisionStrategy: 'AFFIRMATIVE' });
    await api.put(`${base}/roles-by-id/${role.id}/management/permissions`, { enabled: false });
    await roundTrip(`${base}/roles-by-id/${role.id}/management/permissions`, keys, `role.resource.${role.id}`, names, 'Role');

    const c = await createClient(api, R, { clientId: 'billing' });
    expectStatus(await api.post(`${base}/clients/${c}/roles`, { name: 'payer' }), 201, 'client role');
    const payer = (await api.get(`${base}/clients/${c}/roles/payer`)).body;
    const pNames = Object.fromEntries(keys.map((k) => [k, `${k}.permission.${payer.id}`]));
    await roundTrip(`${base}/clients/${c}/roles/payer/management/permissions`, keys, `role.resource.${payer.id}`, pNames, 'Role');

    expect((await api.get(`${base}/roles/nosuch/management/permissions`)).body).toEqual({ error: 'Could not find role' });
    expect((await api.get(`${base}/roles-by-id/nosuch/management/permissions`)).body).toEqual({ error: 'Could not find role with id' });
  });

  test('identity providers: token-exchange on a resource of type IdentityProvider', async () => {
    const idp = { alias: 'gh', providerId: 'github', config: { clientId: 'a', clientSecret: 'b' } };
    expectStatus(await api.post(`${base}/identity-provider/instances`, idp), 201, 'idp');
    const internalId = (await api.get(`${base}/identity-provider/instances/gh`)).body.internalId;
    await roundTrip(
      `${base}/identity-provider/instances/gh/management/permissions`,
      ['token-exchange'],
      `idp.resource.${internalId}`,
      { 'token-exchange': `token-exchange.permission.idp.${internalId}` },
      'IdentityProvider',
    );
    expect((await api.get(`${base}/identity-provider/instances/nosuch/management/permissions`)).status).toBe(404);
  });

  test('a permission deleted by hand is made again by GET, as Keycloak does', async () => {
    const g = await createGroup(api, R, 'rebuilt');
    const path = `${base}/groups/${g}/management/permissions`;
    const on = (await api.put(path, { enabled: true })).body;
    expectStatus(await api.delete(`${rsPath}/policy/${on.scopePermissions.view}`), 204, 'delete view');
    const again = expectStatus(await api.get(path), 200, 'GET').body;
    expect(again.resource).toBe(on.resource);
    expect(again.scopePermissions.view).not.toBe(on.scopePermissions.view);
    expect(again.scopePermissions.manage).toBe(on.scopePermissions.manage);
    await api.put(path, { enabled: false });
  });

  test('caller rights: view to read, manage to change', async () => {
    const g = await createGroup(api, R, 'rights');
    const viewer = await realmAdmin(ts, R, 'viewer', ['view-users', 'view-realm', 'view-clients']);
    const nobody = await realmAdmin(ts, R, 'nobody', []);
    const c = await createClient(api, R, { clientId: 'rights-app' });
    for (const path of [
      `${base}/users-management-permissions`,
      `${base}/groups/${g}/management/permissions`,
      `${base}/clients/${c}/management/permissions`,
      `${base}/roles/auditor/management/permissions`,
    ]) {
      expect([path, (await viewer.get(path)).status]).toEqual([path, 200]);
      expect([path, (await viewer.put(path, { enabled: true })).status]).toEqual([path, 403]);
      expect([path, (await nobody.get(path)).status]).toEqual([path, 403]);
    }
    expect((await viewer.get(`${base}/identity-provider/instances/gh/management/permissions`)).status).toBe(403);
    const idpViewer = await realmAdmin(ts, R, 'idp-viewer', ['view-identity-providers']);
    expect((await idpViewer.get(`${base}/identity-provider/instances/gh/management/permissions`)).status).toBe(200);
    expect((await idpViewer.put(`${base}/identity-provider/instances/gh/management/permissions`, { enabled: true })).status).toBe(403);
    expect((await request(ts.app).get(`${base}/users-management-permissions`)).status).toBe(401);
    expect((await api.get('/admin/realms/nosuch/users-management-permissions')).status).toBe(404);
    // Nothing was turned on by the refused requests.
    expect((await api.get(`${base}/groups/${g}/management/permissions`)).body).toEqual({ enabled: false });
  });

  test('concurrent PUTs turning one object on all answer the same reference', async () => {
    const g = await createGroup(api, R, 'raced');
    const live = await ts.api({ live: true });
    const path = `${base}/groups/${g}/management/permissions`;
    const all = await Promise.all([1, 2, 3, 4].map(() => live.put(path, { enabled: true })));
    expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const ref = (await api.get(path)).body;
    for (const r of all) expect(r.body).toEqual(ref);
  });

  test('bad input: 400 with Keycloak body, nothing changed', async () => {
    const g = await createGroup(api, R, 'badinput');
    const path = `${base}/groups/${g}/management/permissions`;
    const bad = [
      await api.put(path, ['enabled']),
      await api.put(path, { enabled: 'maybe' }),
      await api.put(path, { enabled: { on: true } }),
      await api.put(path).set('Content-Type', 'application/json').send('{"enabled":'),
    ];
    for (const res of bad) {
      expect(res.status).toBe(400);
      expect(res.body.error ?? res.body.errorMessage).toBeTruthy();
    }
    expect((await api.put(path)).status).toBe(400);
    expect((await api.get(path)).body).toEqual({ enabled: false });
    // Jackson's coercions: "true" is true; unknown fields are ignored; no `enabled` is false.
    expect((await api.put(path, { enabled: 'true', resource: 'x', scopePermissions: {} })).body.enabled).toBe(true);
    expect((await api.put(path, {})).body).toEqual({ enabled: false });
  });
});

describe('@keycloak/keycloak-admin-client', () => {
  test('groups, clients, roles, identity providers and users management permissions', async () => {
    const { kc } = await realmAdminClient(ts, 'fgapkc');
    const { id: groupId } = await kc.groups.create({ name: 'team' });
    const ref = await kc.groups.updatePermission({ id: groupId }, { enabled: true });
    expect(ref.enabled).toBe(true);
    expect(await kc.groups.listPermissions({ id: groupId })).toEqual(ref);
    expect(Object.keys(ref.scopePermissions ?? {})).toContain('manage-members');

    const { id: clientId } = await kc.clients.create({ clientId: 'kc-app' });
    expect((await kc.clients.updateFineGrainPermission({ id: clientId }, { enabled: true })).enabled).toBe(true);
    expect((await kc.clients.listFineGrainPermissions({ id: clientId })).scopePermissions).toHaveProperty('configure');

    await kc.roles.create({ name: 'kc-role' });
    const role = await kc.roles.findOneByName({ name: 'kc-role' });
    expect((await kc.roles.updatePermission({ id: String(role?.id) }, { enabled: true })).scopePermissions).toHaveProperty('map-role');
    expect((await kc.roles.listPermissions({ id: String(role?.id) })).enabled).toBe(true);

    await kc.identityProviders.create({ alias: 'kc-gh', providerId: 'github', config: { clientId: 'a', clientSecret: 'b' } });
    expect((await kc.identityProviders.updatePermission({ alias: 'kc-gh' }, { enabled: true })).enabled).toBe(true);
    expect((await kc.identityProviders.listPermissions({ alias: 'kc-gh' })).scopePermissions).toHaveProperty('token-exchange');

    expect(await kc.realms.getUsersManagementPermissions({ realm: 'fgapkc' })).toEqual({ enabled: false });
    const users = await kc.realms.updateUsersManagementPermissions({ realm: 'fgapkc', enabled: true });
    expect(users.scopePermissions).toHaveProperty('user-impersonated');
    expect((await kc.realms.updateUsersManagementPermissions({ realm: 'fgapkc', enabled: false })).enabled).toBe(false);
  });
});

describe('GraphQL twins', () => {
  const Q = `query($kind: ManagementPermissionKind!, $id: ID) { managementPermissions(realm: "${R}", kind: $kind, id: $id) { enabled resource scopePermissions } }`;
  const M = `mutation($kind: ManagementPermissionKind!, $id: ID, $on: Boolean!) {
    setManagementPermissions(realm: "${R}", kind: $kind, id: $id, enabled: $on) { managementPermissionReference { enabled resource scopePermissions } ${USER_ERRORS} } }`;

  test('the same references as REST, through the same service functions', async () => {
    const gql = gqlClient(ts);
    const g = await createGroup(api, R, 'gql-group');
    const off = ok(await gql(Q, { kind: 'GROUP', id: g })).managementPermissions;
    expect(off).toEqual({ enabled: false, resource: null, scopePermissions: null });
    const set = ok(await gql(M, { kind: 'GROUP', id: g, on: true })).setManagementPermissions;
    expect(set.userErrors).toEqual([]);
    const rest = (await api.get(`${base}/groups/${g}/management/permissions`)).body;
    expect(set.managementPermissionReference).toEqual(rest);
    expect(ok(await gql(Q, { kind: 'GROUP', id: g })).managementPermissions).toEqual(rest);
    const users = ok(await gql(M, { kind: 'USERS', on: true })).setManagementPermissions.managementPermissionReference;
    expect(users).toEqual((await api.get(`${base}/users-management-permissions`)).body);
    expect(ok(await gql(M, { kind: 'USERS', on: false })).setManagementPermissions.managementPermissionReference.enabled).toBe(false);
    expect(ok(await gql(M, { kind: 'GROUP', id: g, on: false })).setManagementPermissions.managementPermissionReference).toEqual({
      enabled: false,
      resource: null,
      scopePermissions: null,
    });
  });

  test('unknown objects and missing rights are errors, nothing written', async () => {
    const gql = gqlClient(ts);
    const missing = await gql(Q, { kind: 'GROUP', id: '00000000-0000-0000-0000-000000000000' });
    expect(missing.data?.managementPermissions ?? null).toBeNull();
    expect(JSON.stringify(missing.errors)).toContain('Could not find group by id');
    const role = await gql(M, { kind: 'ROLE', on: true });
    expect(JSON.stringify(role.data?.setManagementPermissions?.userErrors ?? role.errors)).toContain('id is required');
    await realmAdmin(ts, R, 'gql-viewer', ['view-users']);
    const viewer = gqlClient(ts, { realm: R, username: 'gql-viewer', password: 'pw' });
    const g = await createGroup(api, R, 'gql-rights');
    expect(ok(await viewer(Q, { kind: 'GROUP', id: g })).managementPermissions.enabled).toBe(false);
    const refused = await viewer(M, { kind: 'GROUP', id: g, on: true });
    expect(JSON.stringify(refused.errors ?? refused.data)).toMatch(/403|Forbidden|FORBIDDEN/);
    expect((await api.get(`${base}/groups/${g}/management/permissions`)).body).toEqual({ enabled: false });
  });
});
