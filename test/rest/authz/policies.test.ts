import type { AdminApi, TestServer } from '../../helpers/server';
import { createClient, createClientScope, createGroup, createRole, createUser, expectStatus, realmServer } from '../../helpers/fixtures';

/**
 * Policies and permissions (`.../authz/resource-server/policy|permission`): the typed endpoints keep
 * each provider's settings in Keycloak's `config` strings and read them back typed, the generic ones
 * show the config; links, searches, providers, and Keycloak's cascades on delete.
 */
let ts: TestServer;
let api: AdminApi;
let id: string;
let rs: string;
const R = 'authzpol';
type Rep = Record<string, unknown>;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  id = await createClient(api, R, { clientId: 'store', publicClient: false, authorizationServicesEnabled: true });
  rs = `/admin/realms/${R}/clients/${id}/authz/resource-server`;
});
afterAll(() => ts.close());

const create = async (path: string, body: Rep): Promise<Rep> =>
  expectStatus(await api.post(`${rs}/${path}`, body), 201, `create ${body.name}`).body;

describe('typed policies', () => {
  test('role: names resolved to ids, typed and generic representations, update answers 201', async () => {
    const clerk = await createRole(api, R, 'clerk');
    const created = await create('policy/role', {
      name: 'clerks',
      roles: [{ id: 'clerk', required: true }, { id: 'store/uma_protection' }],
    });
    expect(created).toMatchObject({
      id: expect.any(String),
      name: 'clerks',
      type: 'role',
      logic: 'POSITIVE',
      decisionStrategy: 'UNANIMOUS',
    });
    const uma = (await api.get(`/admin/realms/${R}/clients/${id}/roles/uma_protection`)).body.id;
    const typed = (await api.get(`${rs}/policy/role/${created.id}`)).body;
    expect(typed).toEqual({
      id: created.id,
      name: 'clerks',
      type: 'role',
      logic: 'POSITIVE',
      decisionStrategy: 'UNANIMOUS',
      roles: [
        { id: clerk.id, required: true },
        { id: uma, required: false },
      ],
      fetchRoles: false,
    });
    const generic = (await api.get(`${rs}/policy/${created.id}`)).body;
    expect(generic.config).toEqual({
      roles: JSON.stringify([
        { id: clerk.id, required: true },
        { id: uma, required: false },
      ]),
    });
    const put = await api.put(`${rs}/policy/role/${created.id}`, {
      name: 'clerks',
      description: 'd',
      logic: 'NEGATIVE',
      roles: [{ id: clerk.id }],
    });
    expect([put.status, put.text]).toEqual([201, '']);
    expect((await api.get(`${rs}/policy/role/${created.id}`)).body).toMatchObject({
      description: 'd',
      logic: 'NEGATIVE',
      roles: [{ id: clerk.id, required: false }],
    });
    const bad = await api.post(`${rs}/policy/role`, { name: 'nope', roles: [{ id: 'no-such-role' }] });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errorMessage: 'Error while updating policy [nope]. Role [no-such-role] could not be found.' });
    expect((await api.get(`${rs}/policy/search?name=nope`)).status).toBe(204);
  });

  test('user, group, client, client-scope, time, regex: typed round trip', async () => {
    const uid = await createUser(ts, R, 'bob', { password: 'pw' });
    const parent = await createGroup(api, R, 'staff');
    const child = await createGroup(api, R, 'night', parent);
    const scopeId = await createClientScope(api, R, 'store-scope');
    const cases: Array<[string, Rep, Rep]> = [
      ['user', { users: ['bob'] }, { users: [uid] }],
      [
        'group',
        { groups: [{ path: '/staff/night', extendChildren: true }], groupsClaim: 'groups' },
        { groups: [{ id: child, extendChildren: true }], groupsClaim: 'groups' },
      ],
      ['client', { clients: ['store'] }, { clients: [id] }],
      ['client-scope', { clientScopes: [{ id: 'store-scope', required: true }] }, { clientScopes: [{ id: scopeId, required: true }] }],
      [
        'time',
        { notBefore: '2020-01-01 00:00:00', hour: '8', hourEnd: '17' },
        { notBefore: '2020-01-01 00:00:00', hour: '8', hourEnd: '17' },
      ],
      [
        'regex',
        { targetClaim: 'email', pattern: '.*@store$' },
        { targetClaim: 'email', pattern: '.*@store$', targetContextAttributes: false },
      ],
    ];
    for (const [type, body, typed] of cases) {
      const p = await create(`policy/${type}`, { name: `p-${type}`, ...body });
      expect((await api.get(`${rs}/policy/${type}/${p.id}`)).body).toEqual({
        id: p.id,
        name: `p-${type}`,
        type,
        logic: 'POSITIVE',
        decisionStrategy: 'UNANIMOUS',
        ...typed,
      });
    }
    const generic = (await api.get(`${rs}/policy/search?name=p-time`)).body;
    expect(generic.config).toEqual({ nbf: '2020-01-01 00:00:00', hour: '8', hourEnd: '17' });
    expect((await api.get(`${rs}/policy/search?name=p-group`)).body.config).toEqual({
      groups: JSON.stringify([{ id: child, extendChildren: true }]),
      groupsClaim: 'groups',
    });
    expect((await api.post(`${rs}/policy/time`, { name: 'bad-time', notBefore: 'tomorrow' })).status).toBe(400);
    expect((await api.post(`${rs}/policy/user`, { name: 'bad-user', users: ['ghost'] })).status).toBe(400);
    expect((await api.post(`${rs}/policy/group`, { name: 'bad-group', groups: [{ path: '/nope' }] })).status).toBe(400);
    expect((await api.post(`${rs}/policy/js`, { name: 'script', code: 'x' })).status).toBe(400);
  });

  test('409 for a taken name, 404 for an unknown id, 400 for a bad body', async () => {
    await create('policy/user', { name: 'dup-user', users: [] });
    const dup = await api.post(`${rs}/policy/role`, { name: 'dup-user', roles: [] });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'Policy with name [dup-user] already exists', error_description: 'Conflicting policy' });
    const unknown = '00000000-0000-0000-0000-000000000000';
    for (const path of [`policy/${unknown}`, `policy/role/${unknown}`, `permission/${unknown}`, `policy/${unknown}/dependentPolicies`]) {
      expect((await api.get(`${rs}/${path}`)).status).toBe(404);
    }
    expect((await api.put(`${rs}/policy/${unknown}`, { name: 'x' })).status).toBe(404);
    expect((await api.delete(`${rs}/policy/${unknown}`)).status).toBe(404);
    expect((await api.post(`${rs}/policy/role`, { name: 'bad', logic: 'MAYBE' })).status).toBe(400);
    expect((await api.post(`${rs}/policy/role`, { roles: [] })).status).toBe(400);
    expect((await api.post(`${rs}/policy`, { name: 'untyped' })).status).toBe(400);
    expect((await api.get(`${rs}/policy/search`)).status).toBe(400);
  });
});

describe('permissions and links', () => {
  test('resource and scope permissions, aggregates, associated/dependent, resources/scopes, cascades', async () => {
    const res = (await api.post(`${rs}/resource`, { name: 'shelf', type: 'urn:store:shelf', scopes: ['stock', 'sell'] })).body;
    const a = await create('policy/user', { name: 'link-a', users: [] });
    const b = await create('policy/user', { name: 'link-b', users: [] });
    const agg = await create('policy/aggregate', { name: 'link-agg', policies: [a.id, 'link-b'], decisionStrategy: 'AFFIRMATIVE' });
    const byRes = await create('permission/resource', { name: 'perm-res', resources: ['shelf'], policies: ['link-agg'] });
    const byType = await create('permission/resource', { name: 'perm-type', resourceType: 'urn:store:shelf', policies: [a.id] });
    const byScope = await create('permission/scope', { name: 'perm-scope', resources: [res._id], scopes: ['sell'], policies: [b.id] });
    expect((await api.get(`${rs}/permission/resource/${byType.id}`)).body).toEqual({
      id: byType.id,
      name: 'perm-type',
      type: 'resource',
      logic: 'POSITIVE',
      decisionStrategy: 'UNANIMOUS',
      resourceType: 'urn:store:shelf',
    });
    expect((await api.get(`${rs}/permission/${byScope.id}`)).body).toEqual({
      id: byScope.id,
      name: 'perm-scope',
      type: 'scope',
      logic: 'POSITIVE',
      decisionStrategy: 'UNANIMOUS',
    });
    expect((await api.get(`${rs}/policy/${agg.id}/associatedPolicies`)).body).toEqual([
      { id: a.id, name: 'link-a', type: 'user' },
      { id: b.id, name: 'link-b', type: 'user' },
    ]);
    expect((await api.get(`${rs}/policy/${a.id}/dependentPolicies`)).body.map((p: Rep) => p.name)).toEqual(['link-agg', 'perm-type']);
    expect((await api.get(`${rs}/policy/${byScope.id}/resources`)).body).toEqual([{ name: 'shelf', _id: res._id }]);
    expect((await api.get(`${rs}/policy/${byScope.id}/scopes`)).body).toEqual([{ id: expect.any(String), name: 'sell' }]);
    expect((await api.get(`${rs}/permission/scope/${byScope.id}/scopes`)).body.map((s: Rep) => s.name)).toEqual(['sell']);
    // fields=* adds the resources and scopes data.
    const all = (await api.get(`${rs}/policy/${byScope.id}?fields=*`)).body;
    expect(all.resourcesData.map((r: Rep) => r.name)).toEqual(['shelf']);
    expect(all.scopesData.map((s: Rep) => s.name)).toEqual(['sell']);
    // An aggregate applying itself (through another) is refused.
    const loop = await api.put(`${rs}/policy/aggregate/${a.id}`, { name: 'link-a', policies: [agg.id] });
    expect(loop.status).toBe(400);
    // Listings.
    const permissions = (await api.get(`${rs}/permission?name=perm-`)).body;
    expect(permissions.map((p: Rep) => p.name)).toEqual(['perm-res', 'perm-scope', 'perm-type']);
    expect(permissions[2].resourceType).toBe('urn:store:shelf');
    expect((await api.get(`${rs}/permission/scope`)).body.map((p: Rep) => p.name)).toContain('perm-scope');
    expect((await api.get(`${rs}/policy?name=link&permission=false`)).body.map((p: Rep) => p.name)).toEqual([
      'link-a',
      'link-agg',
      'link-b',
    ]);
    expect((await api.get(`${rs}/policy?type=aggregate`)).body.map((p: Rep) => p.name)).toEqual(['link-agg']);
    expect((await api.get(`${rs}/policy?resource=shelf`)).body.map((p: Rep) => p.name)).toEqual(['perm-res', 'perm-scope']);
    expect((await api.get(`${rs}/policy?scope=sell`)).body.map((p: Rep) => p.name)).toEqual(['perm-scope']);
    expect((await api.get(`${rs}/policy?resource=no-such`)).status).toBe(204);
    expect((await api.get(`${rs}/policy?name=link&first=1&max=1`)).body.map((p: Rep) => p.name)).toEqual(['link-agg']);
    // Deleting b: the aggregate still applies a; perm-scope applied only b and goes.
    expectStatus(await api.delete(`${rs}/policy/${b.id}`), 204, 'delete b');
    expect((await api.get(`${rs}/policy/${byScope.id}`)).status).toBe(404);
    expect((await api.get(`${rs}/policy/${agg.id}/associatedPolicies`)).body.map((p: Rep) => p.name)).toEqual(['link-a']);
    // Deleting a: the aggregate and both permissions over it go (perm-res applied only the aggregate).
    expectStatus(await api.delete(`${rs}/permission/user/${a.id}`), 204, 'delete a');
    for (const p of [agg, byRes, byType]) expect((await api.get(`${rs}/policy/${p.id}`)).status).toBe(404);
  });

  test('generic create and update with config strings; providers', async () => {
    await createRole(api, R, 'buyer');
    const p = await create('policy', { name: 'gen-role', type: 'role', config: { roles: '[{"id":"buyer","required":false}]' } });
    const buyer = (await api.get(`/admin/realms/${R}/roles/buyer`)).body.id;
    expect((await api.get(`${rs}/policy/${p.id}`)).body.config).toEqual({ roles: JSON.stringify([{ id: buyer, required: false }]) });
    const perm = await create('permission', {
      name: 'gen-perm',
      type: 'resource',
      config: { resources: '["Default Resource"]', applyPolicies: '["gen-role"]' },
    });
    expect((await api.get(`${rs}/policy/${perm.id}/resources`)).body.map((r: Rep) => r.name)).toEqual(['Default Resource']);
    expect((await api.get(`${rs}/policy/${perm.id}/associatedPolicies`)).body.map((r: Rep) => r.name)).toEqual(['gen-role']);
    expect((await api.put(`${rs}/policy/${p.id}`, { name: 'gen-role', type: 'role', config: { roles: '[]' } })).status).toBe(201);
    expect((await api.get(`${rs}/policy/role/${p.id}`)).body.roles).toEqual([]);
    const providers = (await api.get(`${rs}/policy/providers`)).body;
    expect(providers.map((x: Rep) => x.type)).toEqual(
      expect.arrayContaining(['role', 'user', 'group', 'client', 'client-scope', 'time', 'regex', 'aggregate', 'resource', 'scope']),
    );
    expect(providers.find((x: Rep) => x.type === 'role')).toEqual({ type: 'role', name: 'Role', group: 'Identity Based' });
    expect((await api.get(`${rs}/permission/providers`)).body).toEqual(providers);
  });
});
