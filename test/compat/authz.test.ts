import { startTestServer, type TestServer } from '../helpers/server';
import { type KcAdminClient, realmAdminClient } from '../helpers/admin-client';

/**
 * Compatibility: the real `@keycloak/keycloak-admin-client` drives authorization services (its
 * `clients.*` resource server, resource, scope, policy and permission methods) unchanged.
 */
let ts: TestServer;
let kc: KcAdminClient;
const R = 'compatauthz';
let id: string;

beforeAll(async () => {
  ts = await startTestServer();
  ({ kc } = await realmAdminClient(ts, R));
  ({ id } = await kc.clients.create({ clientId: 'authz-app', publicClient: false, authorizationServicesEnabled: true }));
});
afterAll(() => ts.close());

describe('@keycloak/keycloak-admin-client authorization services', () => {
  test('resource server: get, update, export, import', async () => {
    expect((await kc.clients.findOne({ id }))?.authorizationServicesEnabled).toBe(true);
    const rs = await kc.clients.getResourceServer({ id });
    expect(rs).toMatchObject({ id, clientId: id, name: 'authz-app', policyEnforcementMode: 'ENFORCING', decisionStrategy: 'UNANIMOUS' });
    await kc.clients.updateResourceServer({ id }, { ...rs, policyEnforcementMode: 'PERMISSIVE', decisionStrategy: 'AFFIRMATIVE' });
    expect(await kc.clients.getResourceServer({ id })).toMatchObject({
      policyEnforcementMode: 'PERMISSIVE',
      decisionStrategy: 'AFFIRMATIVE',
    });
    const exported = await kc.clients.exportResource({ id });
    expect(exported.resources?.map((r) => r.name)).toEqual(['Default Resource']);
    expect(exported.policies?.map((p) => p.name)).toEqual(['Default Policy', 'Default Permission']);
    await kc.clients.importResource(
      { id },
      { ...exported, resources: [{ name: 'imported', uris: ['/imported'], scopes: [{ name: 'imp-scope' }] }], policies: [] },
    );
    expect((await kc.clients.listResources({ id, name: 'imported' })).map((r) => r.uris)).toEqual([['/imported']]);
  });

  test('resources and scopes', async () => {
    const scope = await kc.clients.createAuthorizationScope({ id }, { name: 'compat-view' });
    expect(scope.id).toBeDefined();
    expect(await kc.clients.getAuthorizationScope({ id, scopeId: scope.id as string })).toEqual({ id: scope.id, name: 'compat-view' });
    await kc.clients.updateAuthorizationScope({ id, scopeId: scope.id as string }, { name: 'compat-view', displayName: 'View' });
    expect((await kc.clients.listAllScopes({ id, name: 'compat' })).map((s) => s.displayName)).toEqual(['View']);
    const res = await kc.clients.createResource({ id }, { name: 'compat-res', uris: ['/compat'], scopes: [{ name: 'compat-view' }] });
    expect(res).toMatchObject({ name: 'compat-res', owner: { id, name: 'authz-app' }, uris: ['/compat'] });
    const rid = res._id as string;
    expect((await kc.clients.getResource({ id, resourceId: rid })).scopes?.map((s) => s.name)).toEqual(['compat-view']);
    await kc.clients.updateResource(
      { id, resourceId: rid },
      { name: 'compat-res', uris: ['/compat', '/compat2'], scopes: [{ name: 'compat-view' }] },
    );
    expect((await kc.clients.getResource({ id, resourceId: rid })).uris).toEqual(['/compat', '/compat2']);
    expect((await kc.clients.listScopesByResource({ id, resourceName: rid })).map((s) => s.name)).toEqual(['compat-view']);
    expect((await kc.clients.listAllResourcesByScope({ id, scopeId: scope.id as string })).map((r) => r.name)).toEqual(['compat-res']);
    expect((await kc.clients.listResources({ id, name: 'compat' })).map((r) => r.name)).toEqual(['compat-res']);
    await kc.clients.delResource({ id, resourceId: rid });
    await kc.clients.delAuthorizationScope({ id, scopeId: scope.id as string });
    expect(await kc.clients.listAllScopes({ id, name: 'compat-view' })).toEqual([]);
  });

  test('policies and permissions', async () => {
    const role = await kc.roles.create({ name: 'compat-role' });
    expect(role).toBeDefined();
    const { id: roleId } = await kc.roles.findOneByName({ name: 'compat-role' }).then((r) => ({ id: r?.id as string }));
    const policy = await kc.clients.createPolicy(
      { id, type: 'role' },
      { name: 'compat-policy', type: 'role', logic: 'POSITIVE' as never, roles: [{ id: roleId, required: false }] },
    );
    expect(policy.id).toBeDefined();
    const pid = policy.id as string;
    expect(await kc.clients.findOnePolicyWithType({ id, type: 'role', policyId: pid })).toMatchObject({
      name: 'compat-policy',
      roles: [{ id: roleId, required: false }],
    });
    const onePolicy = async () =>
      (await kc.clients.findOnePolicy({ id, policyId: pid })) as unknown as { config?: unknown; description?: string } | null;
    expect((await onePolicy())?.config).toEqual({ roles: JSON.stringify([{ id: roleId, required: false }]) });
    expect((await kc.clients.findPolicyByName({ id, name: 'compat-policy' })).id).toBe(pid);
    await kc.clients.updatePolicy(
      { id, type: 'role', policyId: pid },
      { name: 'compat-policy', description: 'updated', roles: [{ id: roleId }] },
    );
    expect((await onePolicy())?.description).toBe('updated');
    const listed = (await kc.clients.listPolicies({ id, name: 'compat' })) as Array<{ name?: string }>;
    expect(listed.map((p) => p.name)).toEqual(['compat-policy']);
    const providers = await kc.clients.listPolicyProviders({ id });
    expect(providers.map((p) => p.type)).toContain('role');

    const scope = await kc.clients.createAuthorizationScope({ id }, { name: 'compat-edit' });
    const res = await kc.clients.createResource({ id }, { name: 'compat-doc', scopes: [{ name: 'compat-edit' }] });
    const perm = await kc.clients.createPermission(
      { id, type: 'scope' },
      { name: 'compat-perm', resources: [res._id as string], scopes: [scope.id as string], policies: [pid] },
    );
    const permId = perm.id as string;
    expect(await kc.clients.findOnePermission({ id, type: 'scope', permissionId: permId })).toMatchObject({
      name: 'compat-perm',
      type: 'scope',
    });
    expect((await kc.clients.getAssociatedScopes({ id, permissionId: permId })).map((s) => s.name)).toEqual(['compat-edit']);
    expect((await kc.clients.getAssociatedResources({ id, permissionId: permId })).map((r) => r.name)).toEqual(['compat-doc']);
    expect((await kc.clients.getAssociatedPolicies({ id, permissionId: permId })).map((p) => p.name)).toEqual(['compat-policy']);
    expect((await kc.clients.listDependentPolicies({ id, policyId: pid })).map((p) => p.name)).toEqual(['compat-perm']);
    expect((await kc.clients.listAllPermissionsByScope({ id, scopeId: scope.id as string })).map((p) => p.name)).toEqual(['compat-perm']);
    expect((await kc.clients.listPermissionsByResource({ id, resourceId: res._id as string })).map((p) => p.name)).toEqual(['compat-perm']);
    expect((await kc.clients.listPermissionScope({ id })).map((p) => p.name)).toEqual(['compat-perm']);
    expect((await kc.clients.findPermissions({ id, name: 'compat' })).map((p) => p.name)).toEqual(['compat-perm']);
    await kc.clients.updatePermission(
      { id, type: 'scope', permissionId: permId },
      {
        name: 'compat-perm',
        decisionStrategy: 'AFFIRMATIVE' as never,
        resources: [res._id as string],
        scopes: [scope.id as string],
        policies: [pid],
      },
    );
    expect((await kc.clients.findOnePermission({ id, type: 'scope', permissionId: permId }))?.decisionStrategy).toBe('AFFIRMATIVE');
    await kc.clients.delPermission({ id, type: 'scope', permissionId: permId });
    expect(await kc.clients.findPermissions({ id, name: 'compat' })).toEqual([]);
    await kc.clients.delPolicy({ id, policyId: pid });
    expect(await kc.clients.findOnePolicy({ id, policyId: pid })).toBeNull();
  });

  test('errors come back as the admin client reports them', async () => {
    await expect(kc.clients.createAuthorizationScope({ id }, { name: 'dup-scope' })).resolves.toBeDefined();
    await expect(kc.clients.createAuthorizationScope({ id }, { name: 'dup-scope' })).rejects.toMatchObject({ response: { status: 409 } });
    await expect(kc.clients.getResource({ id, resourceId: '00000000-0000-0000-0000-000000000000' })).rejects.toMatchObject({
      response: { status: 404 },
    });
    const { id: other } = await kc.clients.create({ clientId: 'no-authz', publicClient: false });
    await expect(kc.clients.getResourceServer({ id: other })).rejects.toMatchObject({ response: { status: 404 } });
    await expect(
      kc.clients.create({ clientId: 'pub-authz', publicClient: true, authorizationServicesEnabled: true }),
    ).rejects.toMatchObject({
      response: { status: 400 },
    });
  });
});
