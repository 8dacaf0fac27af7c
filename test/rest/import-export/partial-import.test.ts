import { realmAdmin, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/** POST /{realm}/partialImport (core reference §3.13) against the real server and database. */
let ts: TestServer;
let api: AdminApi;
const R = 'pimport';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R, { adminEventsEnabled: true }));
  expect((await api.post(`${base}/users`, { username: 'existing', enabled: true })).status).toBe(201);
});
afterAll(() => ts.close());

type Result = { action: string; resourceType: string; resourceName: string; id: string };
const pick = (results: Result[], type: string) =>
  results
    .filter((r) => r.resourceType === type)
    .map((r) => `${r.action} ${r.resourceName}`)
    .sort();

const BODY = {
  clients: [
    {
      clientId: 'imp-app',
      secret: 'imp-secret',
      redirectUris: ['https://app.example/*'],
      protocolMappers: [
        {
          id: 'x',
          name: 'hc',
          protocol: 'openid-connect',
          protocolMapper: 'oidc-hardcoded-claim-mapper',
          config: { 'claim.name': 'c', 'claim.value': 'v' },
        },
      ],
    },
    { clientId: 'admin-cli' },
  ],
  roles: {
    realm: [
      { name: 'imp-child' },
      { name: 'imp-parent', description: 'p', composites: { realm: ['imp-child'], client: { 'imp-app': ['app-role'] } } },
    ],
    client: { 'imp-app': [{ name: 'app-role' }] },
  },
  groups: [{ name: 'imp-group', realmRoles: ['imp-parent'], subGroups: [{ name: 'imp-sub', attributes: { a: ['1'] } }] }],
  users: [
    {
      username: 'Imp-User',
      email: 'imp@example.org',
      enabled: true,
      realmRoles: ['imp-child'],
      clientRoles: { 'imp-app': ['app-role'] },
      groups: ['/imp-group/imp-sub'],
      credentials: [{ type: 'password', value: 'imp-pass' }],
    },
    { username: 'service-account-imp-app', serviceAccountClientId: 'imp-app' },
  ],
};

describe('partial import', () => {
  test('FAIL (the default): an existing resource is a 409 and nothing is written', async () => {
    const res = await api.post(`${base}/partialImport`, { ...BODY, users: [...BODY.users, { username: 'existing' }] });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ errorMessage: 'User with user name existing already exists.' });
    expect((await api.get(`${base}/clients?clientId=imp-app`)).body).toEqual([]);
    expect((await api.get(`${base}/roles/imp-child`)).status).toBe(404);
  });

  test('adds clients, roles with composites, groups and users; internal clients and service accounts are left out', async () => {
    const res = await api.post(`${base}/partialImport`, BODY);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ added: 6, skipped: 0, overwritten: 0 });
    const results = res.body.results as Result[];
    expect(pick(results, 'CLIENT')).toEqual(['ADDED imp-app']);
    expect(pick(results, 'REALM_ROLE')).toEqual(['ADDED imp-child', 'ADDED imp-parent']);
    expect(pick(results, 'CLIENT_ROLE')).toEqual(['ADDED imp-app-->app-role']);
    expect(pick(results, 'GROUP')).toEqual(['ADDED imp-group']);
    expect(pick(results, 'USER')).toEqual(['ADDED Imp-User']);

    const app = (await api.get(`${base}/clients?clientId=imp-app`)).body[0];
    expect(results.find((r) => r.resourceType === 'CLIENT')?.id).toBe(app.id);
    expect(results.find((r) => r.resourceType === 'CLIENT_ROLE')?.id).toBe(app.id);
    expect(app.protocolMappers.map((m: { name: string; id: string }) => [m.name, m.id === 'x'])).toEqual([['hc', false]]);
    const parent = (await api.get(`${base}/roles/imp-parent`)).body;
    expect(parent).toMatchObject({ composite: true, description: 'p' });
    expect((await api.get(`${base}/roles-by-id/${parent.id}/composites`)).body.map((r: { name: string }) => r.name).sort()).toEqual([
      'app-role',
      'imp-child',
    ]);
    const user = (await api.get(`${base}/users?username=imp-user&exact=true`)).body[0];
    expect(results.find((r) => r.resourceType === 'USER')?.id).toBe(user.id);
    expect((await api.get(`${base}/users/${user.id}/groups`)).body.map((g: { path: string }) => g.path)).toEqual(['/imp-group/imp-sub']);
    const mappings = (await api.get(`${base}/users/${user.id}/role-mappings`)).body;
    expect(mappings.realmMappings.map((r: { name: string }) => r.name)).toEqual(['imp-child']);
    expect(mappings.clientMappings['imp-app'].mappings.map((r: { name: string }) => r.name)).toEqual(['app-role']);
    const token = await ts.token({ realm: R, username: 'imp-user', password: 'imp-pass' }).catch((e: Error) => e.message);
    expect(String(token)).not.toMatch(/Invalid user credentials/);
    const group = (await api.get(`${base}/group-by-path/imp-group`)).body;
    expect(group.realmRoles).toEqual(['imp-parent']);
  });

  test('SKIP reports every existing resource with its id and changes nothing', async () => {
    const before = (await api.get(`${base}/users?username=imp-user&exact=true`)).body[0];
    const res = await api.post(`${base}/partialImport`, { ...BODY, ifResourceExists: 'SKIP' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ added: 0, skipped: 6, overwritten: 0 });
    const user = (res.body.results as Result[]).find((r) => r.resourceType === 'USER');
    expect(user).toEqual({ action: 'SKIPPED', resourceType: 'USER', resourceName: 'Imp-User', id: before.id });
  });

  test('OVERWRITE deletes and recreates existing resources (users get new ids)', async () => {
    const before = (await api.get(`${base}/users?username=imp-user&exact=true`)).body[0];
    const res = await api.post(`${base}/partialImport`, {
      ifResourceExists: 'OVERWRITE',
      users: [{ username: 'imp-user', firstName: 'Over', email: 'imp@example.org' }, { username: 'fresh-user' }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ added: 1, skipped: 0, overwritten: 1 });
    const after = (await api.get(`${base}/users?username=imp-user&exact=true`)).body[0];
    expect(after.id).not.toBe(before.id);
    expect(after.firstName).toBe('Over');
    expect((res.body.results as Result[]).find((r) => r.action === 'OVERWRITTEN')?.id).toBe(after.id);
    expect((await api.get(`${base}/users/${before.id}`)).status).toBe(404);
  });

  test('identity providers are imported by alias', async () => {
    const idp = {
      alias: 'imp-idp',
      providerId: 'oidc',
      enabled: true,
      config: { clientId: 'c', clientSecret: 's', authorizationUrl: 'https://idp.example/auth', tokenUrl: 'https://idp.example/token' },
    };
    const res = await api.post(`${base}/partialImport`, { identityProviders: [idp] });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([{ action: 'ADDED', resourceType: 'IDP', resourceName: 'imp-idp', id: expect.any(String) }]);
    expect((await api.get(`${base}/identity-provider/instances/imp-idp`)).body.internalId).toBe(res.body.results[0].id);
    const again = await api.post(`${base}/partialImport`, { identityProviders: [idp] });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ errorMessage: "Identity Provider 'imp-idp' already exists." });
  });

  test('identity provider mappers are imported by provider alias and name, with their provider', async () => {
    const idp = { alias: 'map-idp', providerId: 'oidc', config: { clientId: 'c' } };
    const mapper = {
      name: 'dept',
      identityProviderAlias: 'map-idp',
      identityProviderMapper: 'hardcoded-attribute-idp-mapper',
      config: { attribute: 'dept', 'attribute.value': 'sales' },
    };
    const res = await api.post(`${base}/partialImport`, { identityProviders: [idp], identityProviderMappers: [mapper] });
    expect(res.status).toBe(200);
    expect(pick(res.body.results, 'IDP_MAPPER')).toEqual(['ADDED dept']);
    const listed = (await api.get(`${base}/identity-provider/instances/map-idp/mappers`)).body;
    expect(listed).toMatchObject([
      { name: 'dept', identityProviderMapper: 'hardcoded-attribute-idp-mapper', config: { 'attribute.value': 'sales' } },
    ]);
    const dup = await api.post(`${base}/partialImport`, { identityProviderMappers: [mapper] });
    expect([dup.status, dup.body]).toEqual([409, { errorMessage: "Identity Provider Mapper'dept' already exists." }]);
    const over = await api.post(`${base}/partialImport`, {
      ifResourceExists: 'OVERWRITE',
      identityProviderMappers: [{ ...mapper, config: { attribute: 'dept', 'attribute.value': 'support' } }],
    });
    expect(pick(over.body.results, 'IDP_MAPPER')).toEqual(['OVERWRITTEN dept']);
    const after = (await api.get(`${base}/identity-provider/instances/map-idp/mappers`)).body;
    expect(after.map((m: { config: Record<string, string> }) => m.config['attribute.value'])).toEqual(['support']);
    const orphan = await api.post(`${base}/partialImport`, {
      identityProviderMappers: [{ ...mapper, name: 'x', identityProviderAlias: 'ghost' }],
    });
    expect(orphan.status).toBe(400);
  });

  test('conflict messages of the other kinds', async () => {
    const conflict = async (body: object, message: string) => {
      const res = await api.post(`${base}/partialImport`, body);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ errorMessage: message });
    };
    await conflict({ clients: [{ clientId: 'imp-app' }] }, "Client id 'imp-app' already exists");
    await conflict({ roles: { realm: [{ name: 'imp-child' }] } }, "Realm role 'imp-child' already exists.");
    await conflict(
      { roles: { client: { 'imp-app': [{ name: 'app-role' }] } } },
      "Client role 'app-role' for client 'imp-app' already exists.",
    );
    await conflict({ groups: [{ name: 'imp-group', path: '/imp-group' }] }, "Group '/imp-group' already exists");
  });

  test('a failure half-way rolls everything back; bad input is a 4xx', async () => {
    const res = await api.post(`${base}/partialImport`, {
      clients: [{ clientId: 'rollback-app' }],
      roles: { realm: [{ name: 'rb-role', composites: { realm: ['no-such-role'] } }] },
    });
    expect(res.status).toBe(400);
    expect((await api.get(`${base}/clients?clientId=rollback-app`)).body).toEqual([]);
    expect((await api.get(`${base}/roles/rb-role`)).status).toBe(404);
    const missingClient = await api.post(`${base}/partialImport`, { roles: { client: { ghost: [{ name: 'r' }] } } });
    expect(missingClient.status).toBe(412);
    expect(missingClient.body).toEqual({ errorMessage: 'Can not import client roles for nonexistent client named ghost' });
    const badPolicy = await api.post(`${base}/partialImport`, { ifResourceExists: 'MAYBE', users: [] });
    expect(badPolicy.status).toBe(400);
    expect(badPolicy.body).toEqual({ error: 'unknown_error', error_description: 'Cannot parse the JSON' });
    expect((await api.post(`${base}/partialImport`, { users: 'x' })).status).toBe(400);
    for (const empty of [undefined, null]) {
      const res = await api.post(`${base}/partialImport`, empty as unknown as object).set('Content-Type', 'application/json');
      expect([res.status, res.body]).toEqual([400, { error: 'HTTP 400 Bad Request' }]);
    }
    const dup = await api.post(`${base}/partialImport`, { users: [{ username: 'twin' }, { username: 'twin' }] });
    expect(dup.status).toBe(409);
    expect((await api.get(`${base}/users?username=twin&exact=true`)).body).toEqual([]);
  });

  test('admin events: one CREATE per added resource, UPDATE per overwritten', async () => {
    const events = (await api.get(`${base}/admin-events?max=200`)).body as Array<Record<string, unknown>>;
    const kinds = events.map((e) => `${e.operationType} ${e.resourceType}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'CREATE CLIENT',
        'CREATE REALM_ROLE',
        'CREATE CLIENT_ROLE',
        'CREATE GROUP',
        'CREATE USER',
        'UPDATE USER',
        'CREATE IDENTITY_PROVIDER',
      ]),
    );
    expect(kinds.filter((k) => k === 'CREATE CLIENT')).toHaveLength(1);
  });

  test('permissions: manage-realm is required', async () => {
    const users = await realmAdmin(ts, R, 'pi-users', ['manage-users']);
    const res = await users.post(`${base}/partialImport`, { users: [{ username: 'sneaky' }] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'HTTP 403 Forbidden' });
    const realmLevelAdmin = await realmAdmin(ts, R, 'pi-realm', ['manage-realm']);
    const ok = await realmLevelAdmin.post(`${base}/partialImport`, { users: [{ username: 'allowed' }] });
    expect(ok.status).toBe(200);
    expect((await api.post('/admin/realms/nosuch/partialImport', {})).body).toEqual({ error: 'Realm not found.' });
  });
});
