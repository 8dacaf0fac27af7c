import type { AdminApi, TestServer } from '../../helpers/server';
import { adminEvents, createClient, expectStatus, realmAdmin, realmServer } from '../../helpers/fixtures';

/**
 * Authorization services on a client (issue 13): `authorizationServicesEnabled` creates the resource
 * server with Keycloak's defaults, turning it off (or making the client public) removes it, and the
 * resource server's settings, export, import and the caller's roles behave as Keycloak's.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'authzrs';
const base = `/admin/realms/${R}/clients`;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R, { adminEventsEnabled: true, adminEventsDetailsEnabled: true }));
});
afterAll(() => ts.close());

const rsPath = (id: string, suffix = '') => `${base}/${id}/authz/resource-server${suffix}`;

describe('enabling authorization services', () => {
  test('creating a confidential client with it: resource server, defaults, uma_protection, service account', async () => {
    const id = await createClient(api, R, { clientId: 'rs-app', publicClient: false, authorizationServicesEnabled: true });
    const client = expectStatus(await api.get(`${base}/${id}`), 200, 'client').body;
    expect(client).toMatchObject({ authorizationServicesEnabled: true, serviceAccountsEnabled: true });
    const rs = expectStatus(await api.get(rsPath(id)), 200, 'resource server').body;
    expect(rs).toEqual({
      id,
      clientId: id,
      name: 'rs-app',
      allowRemoteResourceManagement: true,
      policyEnforcementMode: 'ENFORCING',
      decisionStrategy: 'UNANIMOUS',
    });
    const resources = expectStatus(await api.get(rsPath(id, '/resource')), 200, 'resources').body;
    expect(resources).toEqual([
      {
        name: 'Default Resource',
        type: 'urn:rs-app:resources:default',
        owner: { id, name: 'rs-app' },
        ownerManagedAccess: false,
        attributes: {},
        _id: expect.any(String),
        uris: ['/*'],
        scopes: [],
      },
    ]);
    const policies = expectStatus(await api.get(rsPath(id, '/policy')), 200, 'policies').body;
    expect(policies).toEqual([
      {
        id: expect.any(String),
        name: 'Default Permission',
        description: 'A permission that applies to the default resource type',
        type: 'resource',
        logic: 'POSITIVE',
        decisionStrategy: 'UNANIMOUS',
        config: { defaultResourceType: 'urn:rs-app:resources:default' },
      },
      {
        id: expect.any(String),
        name: 'Default Policy',
        description: 'A policy that grants access only for users within this realm',
        type: 'js',
        logic: 'POSITIVE',
        decisionStrategy: 'AFFIRMATIVE',
        config: { code: '// by default, grants any permission associated with this policy\n$evaluation.grant();\n' },
      },
    ]);
    const defaultPolicy = policies[1].id;
    const dependents = expectStatus(await api.get(rsPath(id, `/policy/${defaultPolicy}/dependentPolicies`)), 200, 'dependents').body;
    expect(dependents).toEqual([{ id: policies[0].id, name: 'Default Permission', type: 'resource' }]);
    const roles = expectStatus(await api.get(`${base}/${id}/roles`), 200, 'roles').body;
    expect(roles.map((r: { name: string }) => r.name)).toEqual(['uma_protection']);
    const sa = expectStatus(await api.get(`${base}/${id}/service-account-user`), 200, 'service account').body;
    const mapped = expectStatus(await api.get(`/admin/realms/${R}/users/${sa.id}/role-mappings/clients/${id}`), 200, 'mapped').body;
    expect(mapped.map((r: { name: string }) => r.name)).toEqual(['uma_protection']);
    const events = await adminEvents(api, R, { resourceTypes: 'AUTHORIZATION_RESOURCE_SERVER' });
    expect(events.map((e) => [e.operationType, e.resourcePath])).toEqual([['CREATE', `clients/${id}/authz/resource-server`]]);
  });

  test('a public or bearer-only client cannot have it: 400, nothing created', async () => {
    for (const rep of [{ publicClient: true }, { bearerOnly: true }]) {
      const res = await api.post(base, { clientId: 'rs-public', ...rep, authorizationServicesEnabled: true });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errorMessage: 'Only confidential clients are allowed to set authorization settings' });
      expect((await api.get(`${base}?clientId=rs-public`)).body).toEqual([]);
    }
  });

  test('a client without it has no resource server (404); update turns it on and off', async () => {
    const id = await createClient(api, R, { clientId: 'rs-toggle', publicClient: false });
    expect((await api.get(`${base}/${id}`)).body.authorizationServicesEnabled).toBeUndefined();
    expect((await api.get(rsPath(id))).status).toBe(404);
    expectStatus(await api.put(`${base}/${id}`, { clientId: 'rs-toggle', authorizationServicesEnabled: true }), 204, 'enable');
    expect((await api.get(`${base}/${id}`)).body.authorizationServicesEnabled).toBe(true);
    expect((await api.get(rsPath(id, '/resource'))).body.map((r: { name: string }) => r.name)).toEqual(['Default Resource']);
    // Enabling again keeps what is there.
    expectStatus(await api.post(rsPath(id, '/scope'), { name: 'read' }), 201, 'scope');
    expectStatus(await api.put(`${base}/${id}`, { clientId: 'rs-toggle', authorizationServicesEnabled: true }), 204, 'again');
    expect((await api.get(rsPath(id, '/scope'))).body.map((s: { name: string }) => s.name)).toEqual(['read']);
    // An update without the flag turns it off, as Keycloak's does.
    expectStatus(await api.put(`${base}/${id}`, { clientId: 'rs-toggle', description: 'x' }), 204, 'disable');
    expect((await api.get(`${base}/${id}`)).body.authorizationServicesEnabled).toBeUndefined();
    expect((await api.get(rsPath(id))).status).toBe(404);
    expect(await ts.db.models.AuthzScope.count({ where: { resourceServerId: id } })).toBe(0);
    // Making it public with the flag set turns it off too.
    expectStatus(await api.put(`${base}/${id}`, { authorizationServicesEnabled: true }), 204, 'on');
    expectStatus(await api.put(`${base}/${id}`, { publicClient: true, authorizationServicesEnabled: true }), 204, 'public');
    expect((await api.get(rsPath(id))).status).toBe(404);
  });

  test('deleting the client removes its resource server and everything in it', async () => {
    const id = await createClient(api, R, { clientId: 'rs-gone', publicClient: false, authorizationServicesEnabled: true });
    expectStatus(await api.post(rsPath(id, '/resource'), { name: 'doc', scopes: [{ name: 'view' }] }), 201, 'resource');
    expectStatus(await api.delete(`${base}/${id}`), 204, 'delete client');
    const m = ts.db.models;
    expect(await m.ResourceServer.count({ where: { id } })).toBe(0);
    expect(await m.AuthzResource.count({ where: { resourceServerId: id } })).toBe(0);
    expect(await m.AuthzScope.count({ where: { resourceServerId: id } })).toBe(0);
    expect(await m.AuthzPolicy.count({ where: { resourceServerId: id } })).toBe(0);
  });
  test('a new client body with authorizationSettings: the defaults, then the settings imported', async () => {
    const id = await createClient(api, R, {
      clientId: 'rs-with-settings',
      publicClient: false,
      authorizationServicesEnabled: true,
      authorizationSettings: {
        policyEnforcementMode: 'PERMISSIVE',
        resources: [{ name: 'from-body', uris: ['/b'], scopes: [{ name: 'b-scope' }] }],
        policies: [{ name: 'body-perm', type: 'scope', config: { scopes: '["b-scope"]', applyPolicies: '["Default Policy"]' } }],
      },
    });
    expect((await api.get(rsPath(id))).body.policyEnforcementMode).toBe('PERMISSIVE');
    expect((await api.get(rsPath(id, '/resource'))).body.map((r: { name: string }) => r.name)).toEqual(['Default Resource', 'from-body']);
    expect((await api.get(rsPath(id, '/permission'))).body.map((p: { name: string }) => p.name)).toEqual([
      'Default Permission',
      'body-perm',
    ]);
  });

  test('deleting the realm removes its resource servers', async () => {
    const other = 'authzrs-gone';
    expectStatus(await api.post('/admin/realms', { realm: other, enabled: true }), 201, 'realm');
    const cid = await createClient(api, other, { clientId: 'app', publicClient: false, authorizationServicesEnabled: true });
    expectStatus(await api.delete(`/admin/realms/${other}`), 204, 'delete realm');
    const m = ts.db.models;
    expect(await m.ResourceServer.count({ where: { id: cid } })).toBe(0);
    expect(await m.AuthzPolicy.count({ where: { resourceServerId: cid } })).toBe(0);
    expect(await m.AuthzResource.count({ where: { resourceServerId: cid } })).toBe(0);
  });

  test('writes record admin events with Keycloak resource types and paths', async () => {
    const id = await createClient(api, R, { clientId: 'rs-events', publicClient: false, authorizationServicesEnabled: true });
    const scope = (await api.post(rsPath(id, '/scope'), { name: 'ev' })).body.id;
    const res = (await api.post(rsPath(id, '/resource'), { name: 'ev-res' })).body._id;
    const pol = (await api.post(rsPath(id, '/policy/user'), { name: 'ev-pol', users: [] })).body.id;
    expectStatus(await api.delete(rsPath(id, `/policy/${pol}`)), 204, 'delete policy');
    const events = await adminEvents(api, R, { resourcePath: `clients/${id}/authz/*` });
    expect(events.map((e) => [e.operationType, e.resourceType, e.resourcePath])).toEqual(
      expect.arrayContaining([
        ['CREATE', 'AUTHORIZATION_SCOPE', `clients/${id}/authz/resource-server/scope/${scope}`],
        ['CREATE', 'AUTHORIZATION_RESOURCE', `clients/${id}/authz/resource-server/resource/${res}`],
        ['CREATE', 'AUTHORIZATION_POLICY', `clients/${id}/authz/resource-server/policy/${pol}`],
        ['DELETE', 'AUTHORIZATION_POLICY', `clients/${id}/authz/resource-server/policy/${pol}`],
      ]),
    );
  });
});

describe('resource server settings', () => {
  let id: string;
  beforeAll(async () => {
    id = await createClient(api, R, { clientId: 'rs-settings', publicClient: false, authorizationServicesEnabled: true });
  });

  test('PUT sets the three settings; absent ones take Keycloak defaults; a bad constant is 400', async () => {
    expectStatus(
      await api.put(rsPath(id), {
        policyEnforcementMode: 'PERMISSIVE',
        decisionStrategy: 'AFFIRMATIVE',
        allowRemoteResourceManagement: true,
      }),
      204,
      'update',
    );
    expect((await api.get(rsPath(id))).body).toMatchObject({
      policyEnforcementMode: 'PERMISSIVE',
      decisionStrategy: 'AFFIRMATIVE',
      allowRemoteResourceManagement: true,
    });
    expectStatus(await api.put(rsPath(id), { policyEnforcementMode: 'DISABLED' }), 204, 'partial');
    expect((await api.get(rsPath(id))).body).toMatchObject({
      policyEnforcementMode: 'DISABLED',
      decisionStrategy: 'UNANIMOUS',
      allowRemoteResourceManagement: false,
    });
    const bad = await api.put(rsPath(id), { policyEnforcementMode: 'SOMETIMES' });
    expect(bad.status).toBe(400);
    expect((await api.get(rsPath(id))).body.policyEnforcementMode).toBe('DISABLED');
  });

  test('settings export and import round-trip into another client', async () => {
    const rid = (await api.get(`/admin/realms/${R}/roles/offline_access`)).body.id;
    expectStatus(await api.post(rsPath(id, '/scope'), { name: 'view', displayName: 'View' }), 201, 'scope');
    expectStatus(
      await api.post(rsPath(id, '/resource'), {
        name: 'album',
        uris: ['/album/*'],
        scopes: [{ name: 'view' }, { name: 'edit' }],
        attributes: { a: ['1'] },
      }),
      201,
      'resource',
    );
    expectStatus(await api.post(rsPath(id, '/policy/role'), { name: 'offline', roles: [{ id: rid, required: true }] }), 201, 'role policy');
    expectStatus(
      await api.post(rsPath(id, '/permission/scope'), {
        name: 'view album',
        resources: ['album'],
        scopes: ['view'],
        policies: ['offline'],
      }),
      201,
      'permission',
    );
    const settings = expectStatus(await api.get(rsPath(id, '/settings')), 200, 'export').body;
    expect(settings).toMatchObject({
      policyEnforcementMode: 'DISABLED',
      decisionStrategy: 'UNANIMOUS',
      allowRemoteResourceManagement: false,
    });
    expect(settings.resources.find((r: { name: string }) => r.name === 'album')).toEqual({
      name: 'album',
      ownerManagedAccess: false,
      attributes: { a: ['1'] },
      uris: ['/album/*'],
      scopes: [{ name: 'edit' }, { name: 'view' }],
    });
    expect(settings.scopes).toEqual([{ name: 'edit' }, { name: 'view', displayName: 'View' }]);
    const byName = Object.fromEntries(settings.policies.map((p: { name: string }) => [p.name, p]));
    expect(byName.offline.config).toEqual({ roles: JSON.stringify([{ id: 'offline_access', required: true }]) });
    expect(byName['view album']).toEqual({
      name: 'view album',
      type: 'scope',
      logic: 'POSITIVE',
      decisionStrategy: 'UNANIMOUS',
      config: { scopes: '["view"]', resources: '["album"]', applyPolicies: '["offline"]' },
    });
    // Permissions come after the policies they apply.
    const names = settings.policies.map((p: { name: string }) => p.name);
    expect(names.indexOf('view album')).toBeGreaterThan(names.indexOf('offline'));

    const other = await createClient(api, R, { clientId: 'rs-import', publicClient: false, authorizationServicesEnabled: true });
    expectStatus(await api.post(rsPath(other, '/import'), settings), 204, 'import');
    const again = expectStatus(await api.get(rsPath(other, '/settings')), 200, 'export 2').body;
    const strip = (s: Record<string, unknown[]>) => ({
      ...s,
      resources: (s.resources as Array<{ name: string }>).filter((r) => r.name !== 'Default Resource'),
      policies: (s.policies as Array<{ name: string }>).filter((p) => !p.name.startsWith('Default')),
    });
    expect(strip(again)).toEqual(strip(settings));
  });

  test('import: a permission listed before the policy it applies, unknown names refused with nothing written', async () => {
    const target = await createClient(api, R, { clientId: 'rs-order', publicClient: false, authorizationServicesEnabled: true });
    const settings = {
      policyEnforcementMode: 'ENFORCING',
      decisionStrategy: 'UNANIMOUS',
      resources: [{ name: 'r1', uris: ['/r1'] }],
      policies: [
        { name: 'perm-first', type: 'resource', config: { resources: '["r1"]', applyPolicies: '["later"]' } },
        { name: 'later', type: 'user', config: { users: '[]' } },
      ],
    };
    expectStatus(await api.post(rsPath(target, '/import'), settings), 204, 'import');
    const perm = (await api.get(rsPath(target, '/policy/search?name=perm-first'))).body;
    expect((await api.get(rsPath(target, `/policy/${perm.id}/associatedPolicies`))).body.map((p: { name: string }) => p.name)).toEqual([
      'later',
    ]);
    const before = (await api.get(rsPath(target, '/settings'))).body;
    const bad = await api.post(rsPath(target, '/import'), {
      resources: [{ name: 'r2' }],
      policies: [{ name: 'broken', type: 'role', config: { roles: '[{"id":"no-such-role"}]' } }],
    });
    expect(bad.status).toBe(400);
    expect((await api.get(rsPath(target, '/settings'))).body).toEqual(before);
  });

  test('roles: view-authorization reads, manage-authorization or manage-clients writes, others 403', async () => {
    const viewer = await realmAdmin(ts, R, 'authz-viewer', ['view-authorization']);
    const manager = await realmAdmin(ts, R, 'authz-manager', ['manage-authorization']);
    const clients = await realmAdmin(ts, R, 'clients-manager', ['manage-clients']);
    const nobody = await realmAdmin(ts, R, 'authz-nobody', ['view-clients']);
    expect((await viewer.get(rsPath(id))).status).toBe(200);
    expect((await viewer.get(rsPath(id, '/resource'))).status).toBe(200);
    expect((await viewer.put(rsPath(id), {})).status).toBe(403);
    expect((await viewer.post(rsPath(id, '/scope'), { name: 'v' })).status).toBe(403);
    expect((await viewer.get(rsPath(id, '/settings'))).status).toBe(403);
    expect((await nobody.get(rsPath(id))).status).toBe(403);
    expect((await nobody.get(rsPath(id, '/policy'))).status).toBe(403);
    expect((await manager.post(rsPath(id, '/scope'), { name: 'by-manager' })).status).toBe(201);
    expect((await clients.post(rsPath(id, '/scope'), { name: 'by-clients' })).status).toBe(201);
    expect((await clients.get(rsPath(id, '/scope'))).status).toBe(403);
    expect((await manager.get(rsPath(id, '/settings'))).status).toBe(200);
    // create-client alone may create a client but not turn authorization services on with it.
    const creator = await realmAdmin(ts, R, 'client-creator', ['create-client']);
    expect((await creator.post(base, { clientId: 'by-creator', publicClient: false, authorizationServicesEnabled: true })).status).toBe(
      403,
    );
    expect((await api.get(`${base}?clientId=by-creator`)).body).toEqual([]);
    expect((await creator.post(base, { clientId: 'by-creator', publicClient: false })).status).toBe(201);
  });
});
