import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fullExport } from '../../../src/services/import-export/full-export';
import { fullImport } from '../../../src/services/import-export/full-import';
import type { AdminApi, TestServer } from '../../helpers/server';
import { clientUuid, createClient, createGroup, createRole, createUser, expectStatus, realmServer } from '../../helpers/fixtures';

/**
 * Authorization services in realm export and import (issue 13 item 5): partial export with clients
 * carries each resource server's `authorizationSettings` as its `settings` export does (names, not
 * ids); a realm import (POST /admin/realms), the CLI's export and import, and partial import with
 * each `ifResourceExists` give back exactly those settings (no defaults added) and the same
 * decisions from `policy/evaluate`; a settings document naming what does not exist is a 400 that
 * leaves nothing behind.
 */
// biome-ignore lint/suspicious/noExplicitAny: tests walk arbitrary response JSON
type Json = Record<string, any>;
let ts: TestServer;
let api: AdminApi;
const R = 'authzexim';
const work = mkdtempSync(join(tmpdir(), 'idserver-authz-exim-'));

const rsOf = async (clientId: string) => `/admin/realms/${R}/clients/${await clientUuid(api, R, clientId)}/authz/resource-server`;
const settingsOf = async (clientId: string): Promise<Json> =>
  normal(expectStatus(await api.get(`${await rsOf(clientId)}/settings`), 200, `settings of ${clientId}`).body);

/** Settings with the names of linked objects in name order: link tables, like Keycloak's sets, keep none. */
function normal(settings: Json): Json {
  const sorted = (text: string) => JSON.stringify((JSON.parse(text) as string[]).sort());
  for (const p of settings.policies as Json[]) {
    for (const k of ['resources', 'scopes', 'applyPolicies']) if (p.config?.[k]) p.config[k] = sorted(p.config[k]);
  }
  for (const r of settings.resources as Json[]) (r.scopes as Json[] | undefined)?.sort((a, b) => (a.name < b.name ? -1 : 1));
  return settings;
}

/** Each resource's decision for alice and bob, without ids: what must survive a round trip. */
async function decisions(clientId: string): Promise<Json> {
  const rs = await rsOf(clientId);
  const resources = expectStatus(await api.get(`${rs}/resource?deep=false&max=100`), 200, 'resources').body as Json[];
  const out: Json = {};
  for (const [user, tier] of [
    ['alice', 'gold'],
    ['bob', 'gold'],
    ['alice', 'tin'],
  ]) {
    for (const r of resources) {
      const res = expectStatus(
        await api.post(`${rs}/policy/evaluate`, { userId: user, resources: [{ _id: r._id }], context: { attributes: { tier } } }),
        200,
        'evaluate',
      );
      out[`${user} ${tier} ${r.name}`] = (res.body.results as Json[]).map((x) => ({
        status: x.status,
        allowed: (x.allowedScopes as Json[]).map((s) => s.name).sort(),
        policies: (x.policies as Json[]).map((p) => [p.policy.name, p.status]).sort(),
      }));
    }
  }
  return out;
}

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  await createClient(api, R, { clientId: 'api', secret: 'api-secret', publicClient: false, authorizationServicesEnabled: true });
  await createClient(api, R, { clientId: 'web', publicClient: true, directAccessGrantsEnabled: true });
  await createRole(api, R, 'reader');
  const staff = await createGroup(api, R, 'staff');
  const team = await createGroup(api, R, 'team', staff);
  const alice = await createUser(ts, R, 'alice');
  await createUser(ts, R, 'bob');
  const reader = (await api.get(`/admin/realms/${R}/roles/reader`)).body;
  expectStatus(await api.post(`/admin/realms/${R}/users/${alice}/role-mappings/realm`, [reader]), 204, 'reader');
  expectStatus(await api.put(`/admin/realms/${R}/users/${alice}/groups/${team}`), 204, 'team');
  const rs = await rsOf('api');
  const create = async (path: string, body: Json) => expectStatus(await api.post(`${rs}/${path}`, body), 201, `create ${body.name}`).body;
  expectStatus(
    await api.put(rs, { policyEnforcementMode: 'PERMISSIVE', decisionStrategy: 'AFFIRMATIVE', allowRemoteResourceManagement: false }),
    204,
    'settings',
  );
  await create('scope', { name: 'read' });
  await create('scope', { name: 'write', displayName: 'Write it', iconUri: 'https://icons.example/w.png' });
  await create('resource', {
    name: 'Photos',
    displayName: 'All photos',
    type: 'urn:api:photo',
    uris: ['/photos/*'],
    attributes: { tier: ['gold'] },
    ownerManagedAccess: true,
    scopes: [{ name: 'read' }, { name: 'write' }],
  });
  await create('resource', { name: 'Diary', owner: 'alice', scopes: [{ name: 'read' }] });
  await create('policy/role', { name: 'readers', roles: [{ id: 'reader', required: true }, { id: 'api/uma_protection' }] });
  await create('policy/user', { name: 'not-bob', users: ['bob'], logic: 'NEGATIVE' });
  await create('policy/group', { name: 'staff', groups: [{ path: '/staff', extendChildren: true }], groupsClaim: 'groups' });
  await create('policy/client', { name: 'from-web', clients: ['web'] });
  await create('policy/client-scope', { name: 'email-scope', clientScopes: [{ id: 'email', required: true }] });
  await create('policy/time', { name: 'always', notBefore: '2000-01-01 00:00:00' });
  await create('policy/regex', { name: 'gold', targetClaim: 'tier', pattern: '^gold$', targetContextAttributes: true });
  await create('policy/aggregate', { name: 'reader-and-staff', policies: ['readers', 'staff'], decisionStrategy: 'UNANIMOUS' });
  await create('permission/scope', { name: 'read photos', resources: ['Photos'], scopes: ['read'], policies: ['reader-and-staff'] });
  await create('permission/scope', {
    name: 'write photos',
    resources: ['Photos'],
    scopes: ['write'],
    policies: ['not-bob', 'always'],
    decisionStrategy: 'CONSENSUS',
  });
  await create('permission/resource', { name: 'photo type', resourceType: 'urn:api:photo', policies: ['gold'] });
  // What enabling created and the admin took away must not come back with an import.
  const [defaultPermission] = (await api.get(`${rs}/permission?name=Default%20Permission`)).body as Json[];
  expectStatus(await api.delete(`${rs}/policy/${defaultPermission.id}`), 204, 'delete default permission');
});
afterAll(async () => {
  await ts.close();
  rmSync(work, { recursive: true, force: true });
});

const exportRealm = async (): Promise<Json> =>
  expectStatus(await api.post(`/admin/realms/${R}/partial-export?exportClients=true&exportGroupsAndRoles=true`), 200, 'export').body;

describe('authorization settings in realm export and import', () => {
  test('partial export: each resource server as its settings export, names instead of ids', async () => {
    const rep = await exportRealm();
    const api_ = (rep.clients as Json[]).find((c) => c.clientId === 'api') as Json;
    const web = (rep.clients as Json[]).find((c) => c.clientId === 'web') as Json;
    expect(web.authorizationSettings).toBeUndefined();
    expect(api_.authorizationServicesEnabled).toBe(true);
    const settings = normal(api_.authorizationSettings);
    expect(settings).toEqual(await settingsOf('api'));
    expect(settings).toMatchObject({
      policyEnforcementMode: 'PERMISSIVE',
      decisionStrategy: 'AFFIRMATIVE',
      allowRemoteResourceManagement: false,
    });
    const resource = (name: string) => (settings.resources as Json[]).find((r) => r.name === name) as Json;
    const policy = (name: string) => (settings.policies as Json[]).find((p) => p.name === name) as Json;
    expect(resource('Diary').owner).toEqual({ name: 'alice' });
    expect(resource('Photos').owner).toBeUndefined();
    expect(resource('Photos')._id).toBeUndefined();
    expect(JSON.parse(policy('readers').config.roles)).toEqual([
      { id: 'reader', required: true },
      { id: 'api/uma_protection', required: false },
    ]);
    expect(JSON.parse(policy('not-bob').config.users)).toEqual(['bob']);
    expect(JSON.parse(policy('staff').config.groups)).toEqual([{ path: '/staff', extendChildren: true }]);
    expect(JSON.parse(policy('from-web').config.clients)).toEqual(['web']);
    expect(JSON.parse(policy('email-scope').config.clientScopes)).toEqual([{ id: 'email', required: true }]);
    expect(policy('read photos').config).toMatchObject({
      resources: '["Photos"]',
      scopes: '["read"]',
      applyPolicies: '["reader-and-staff"]',
    });
    expect(JSON.parse(policy('reader-and-staff').config.applyPolicies).sort()).toEqual(['readers', 'staff']);
    expect(policy('Default Permission')).toBeUndefined();
    // policies before permissions, as Keycloak's export lists them (an import then finds what they apply)
    const types = (settings.policies as Json[]).map((p) => p.type);
    expect(types.findIndex((t) => t === 'scope' || t === 'resource')).toBeGreaterThan(types.lastIndexOf('aggregate'));
  });

  test('POST /admin/realms: export, delete, import gives the same settings and the same decisions', async () => {
    const before = { settings: await settingsOf('api'), decisions: await decisions('api') };
    // the decisions compared are not all alike: users, roles, groups, context and enforcement mode tell them apart
    expect(before.decisions['alice gold Photos'][0].policies).toContainEqual(['read photos', 'PERMIT']);
    expect(before.decisions['bob gold Photos'][0].policies).toContainEqual(['read photos', 'DENY']);
    expect(before.decisions['alice tin Photos'][0].status).toBe('DENY');
    expect(before.decisions['alice gold Default Resource'][0].status).toBe('PERMIT');
    const rep = await exportRealm();
    // Regular users are not in a partial export: they come with the representation, as a full export has them.
    rep.users = [
      ...(rep.users as Json[]),
      { username: 'alice', enabled: true, email: 'alice@example.org', realmRoles: ['reader'], groups: ['/staff/team'] },
      { username: 'bob', enabled: true, email: 'bob@example.org' },
    ];
    expectStatus(await api.delete(`/admin/realms/${R}`), 204, 'delete realm');
    expectStatus(await api.post('/admin/realms', rep), 201, 'import realm');
    expect(await settingsOf('api')).toEqual(before.settings);
    expect(await decisions('api')).toEqual(before.decisions);
  });

  test('idserver export and import (the CLI path) give the same settings and decisions', async () => {
    const before = { settings: await settingsOf('api'), decisions: await decisions('api') };
    const file = join(work, 'realm.json');
    await fullExport(ts.db, { file, realm: R, users: 'realm_file' });
    expectStatus(await api.delete(`/admin/realms/${R}`), 204, 'delete realm');
    const done = await fullImport(ts.db, { file });
    expect(done).toEqual([{ realm: R, users: expect.any(Number) }]);
    expect(await settingsOf('api')).toEqual(before.settings);
    expect(await decisions('api')).toEqual(before.decisions);
  });

  test('partial import: FAIL, SKIP, OVERWRITE and a new client with settings', async () => {
    const before = await settingsOf('api');
    const exported = ((await exportRealm()).clients as Json[]).find((c) => c.clientId === 'api') as Json;
    const partial = (body: Json) => api.post(`/admin/realms/${R}/partialImport`, body);
    expect((await partial({ ifResourceExists: 'FAIL', clients: [exported] })).status).toBe(409);
    const changed = { ...exported, authorizationSettings: { ...exported.authorizationSettings, policies: [], resources: [], scopes: [] } };
    const skip = expectStatus(await partial({ ifResourceExists: 'SKIP', clients: [changed] }), 200, 'skip').body;
    expect(skip).toMatchObject({ skipped: 1, added: 0 });
    expect(await settingsOf('api')).toEqual(before);
    const over = expectStatus(await partial({ ifResourceExists: 'OVERWRITE', clients: [changed] }), 200, 'overwrite').body;
    expect(over).toMatchObject({ overwritten: 1 });
    expect(await settingsOf('api')).toMatchObject({ resources: [], policies: [], scopes: [], policyEnforcementMode: 'PERMISSIVE' });
    expectStatus(await partial({ ifResourceExists: 'OVERWRITE', clients: [exported] }), 200, 'overwrite back');
    expect(await settingsOf('api')).toEqual(before);
    const { id: _id, ...copy } = exported;
    const added = expectStatus(await partial({ clients: [{ ...copy, clientId: 'api-copy' }] }), 200, 'add').body;
    expect(added).toMatchObject({ added: 1 });
    expect(await settingsOf('api-copy')).toEqual(before);
  });

  test('realm-management: its admin permissions come back, the client stays bearer-only', async () => {
    const settings = {
      policyEnforcementMode: 'ENFORCING',
      decisionStrategy: 'UNANIMOUS',
      resources: [{ name: 'users', type: 'Users', scopes: [{ name: 'view' }, { name: 'manage' }] }],
      scopes: [{ name: 'manage' }, { name: 'view' }],
      policies: [
        {
          name: 'helpdesk',
          type: 'group',
          logic: 'POSITIVE',
          decisionStrategy: 'UNANIMOUS',
          config: { groups: '[{"path":"/staff","extendChildren":false}]' },
        },
        {
          name: 'view.permission.users',
          type: 'scope',
          logic: 'POSITIVE',
          decisionStrategy: 'UNANIMOUS',
          config: { resources: '["users"]', scopes: '["view"]', applyPolicies: '["helpdesk"]' },
        },
      ],
    };
    const realm = 'authzrm';
    const rep = {
      realm,
      enabled: true,
      groups: [{ name: 'staff', path: '/staff' }],
      clients: [{ clientId: 'realm-management', bearerOnly: true, authorizationServicesEnabled: true, authorizationSettings: settings }],
    };
    expectStatus(await api.post('/admin/realms', rep), 201, 'import');
    const id = await clientUuid(api, realm, 'realm-management');
    expect((await api.get(`/admin/realms/${realm}/clients/${id}`)).body.bearerOnly).toBe(true);
    const back = expectStatus(await api.get(`/admin/realms/${realm}/clients/${id}/authz/resource-server/settings`), 200, 'settings').body;
    expect(normal(back)).toMatchObject({
      resources: [{ name: 'users', type: 'Users', scopes: [{ name: 'manage' }, { name: 'view' }] }],
      policies: [
        { name: 'helpdesk', config: { groups: '[{"path":"/staff","extendChildren":false}]' } },
        { name: 'view.permission.users', config: { resources: '["users"]', scopes: '["view"]', applyPolicies: '["helpdesk"]' } },
      ],
    });
    const exported = (await api.post(`/admin/realms/${realm}/partial-export?exportClients=true`)).body;
    const rm = (exported.clients as Json[]).find((c) => c.clientId === 'realm-management') as Json;
    expect(normal(rm.authorizationSettings)).toEqual(normal(back));
    expectStatus(await api.delete(`/admin/realms/${realm}`), 204, 'delete');
  });

  test('settings naming what does not exist: 400, nothing written', async () => {
    const rep = await exportRealm();
    const api_ = (rep.clients as Json[]).find((c) => c.clientId === 'api') as Json;
    const policies = api_.authorizationSettings.policies as Json[];
    const readers = policies.find((p) => p.name === 'readers') as Json;
    readers.config.roles = JSON.stringify([{ id: 'no-such-role', required: false }]);
    // without alice and bob the user policy and Diary's owner cannot be found either: the role fails first or they do
    const badRealm = { ...rep, realm: 'authzbad', id: undefined };
    const res = await api.post('/admin/realms', badRealm);
    expect(res.status).toBe(400);
    expect(res.body.errorMessage ?? res.body.error).toEqual(expect.any(String));
    expect((await api.get('/admin/realms/authzbad')).status).toBe(404);
    const { id: _id, ...copy } = api_;
    const partial = await api.post(`/admin/realms/${R}/partialImport`, { clients: [{ ...copy, clientId: 'api-broken' }] });
    expect(partial.status).toBe(400);
    expect(partial.body.errorMessage).toContain('no-such-role');
    expect((await api.get(`/admin/realms/${R}/clients?clientId=api-broken`)).body).toEqual([]);
    const notObject = await api.post(`/admin/realms/${R}/partialImport`, {
      clients: [{ clientId: 'api-odd', publicClient: false, authorizationServicesEnabled: true, authorizationSettings: [1] }],
    });
    expect(notObject.status).toBe(400);
    expect((await api.get(`/admin/realms/${R}/clients?clientId=api-odd`)).body).toEqual([]);
  });
});
