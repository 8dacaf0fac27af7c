import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import request from 'supertest';
import { TOP_LEVEL } from '../../../src/db/models/group';
import { createUser, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/**
 * Evaluate scopes and the mapper engine: example tokens for a concrete user (attributes, roles via
 * composites and groups, group paths, audience, hardcoded claims), granted roles with and without
 * full scope — and the real token endpoint producing the same claims.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'evalrealm';
const base = `/admin/realms/${R}`;
let app: string;
let userId: string;
let ev: string;

const mapper = (name: string, protocolMapper: string, config: Record<string, string>) => ({
  name,
  protocol: 'openid-connect',
  protocolMapper,
  config,
});

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  const m = ts.db.models;
  const realm = await m.Realm.findOne({ where: { name: R } });
  if (!realm) throw new Error('no realm');
  // Client `app`: public, direct grants, web origin, linked to the realm's default/optional scopes.
  app = randomUUID();
  await m.Client.create({
    id: app,
    realmId: realm.id,
    clientId: 'app',
    enabled: true,
    protocol: 'openid-connect',
    publicClient: true,
    bearerOnly: false,
    serviceAccountsEnabled: false,
    directAccessGrantsEnabled: true,
    fullScopeAllowed: true,
    secret: null,
    realmClient: false,
    settings: { webOrigins: ['https://app.example.com'], redirectUris: ['https://app.example.com/*'] },
  });
  const lists = await m.RealmDefaultClientScope.findAll({ where: { realmId: realm.id } });
  await m.ClientScopeClient.bulkCreate(lists.map((l) => ({ clientId: app, scopeId: l.scopeId, defaultScope: l.defaultScope })));
  expect((await api.post(`${base}/clients/${app}/roles`, { name: 'app-role' })).status).toBe(201);
  for (const name of ['top', 'leaf', 'grp-role', 'extra', 'unrelated'])
    expect((await api.post(`${base}/roles`, { name })).status).toBe(201);
  const role = async (name: string) => (await api.get(`${base}/roles/${name}`)).body;
  expect((await api.post(`${base}/roles/top/composites`, [await role('leaf')])).status).toBe(204);
  // User eve: attributes, realm role `top` (composite), client role, default roles, member of /parent/child.
  userId = await createUser(ts, R, 'eve', { password: 'pw', email: 'eve@example.org', emailVerified: true });
  await m.User.update({ firstName: 'Eve', lastName: 'Adams' }, { where: { id: userId } });
  await m.UserAttribute.bulkCreate([
    // Ids in creation order: values of a multivalued attribute keep their order.
    { id: '00000000-0000-4000-8000-000000000001', userId, name: 'dept', value: 'eng' },
    { id: '00000000-0000-4000-8000-000000000002', userId, name: 'dept', value: 'ops' },
    { id: '00000000-0000-4000-8000-000000000003', userId, name: 'street', value: 'Main Street 1' },
    { id: '00000000-0000-4000-8000-000000000004', userId, name: 'country', value: 'NL' },
  ]);
  const appRole = (await api.get(`${base}/clients/${app}/roles/app-role`)).body;
  const defaults = await role(`default-roles-${R}`);
  expect((await api.post(`${base}/users/${userId}/role-mappings/realm`, [await role('top'), defaults])).status).toBe(204);
  expect((await api.post(`${base}/users/${userId}/role-mappings/clients/${app}`, [appRole])).status).toBe(204);
  const parent = randomUUID();
  const child = randomUUID();
  await m.Group.bulkCreate([
    { id: parent, realmId: realm.id, parentId: TOP_LEVEL, name: 'parent', attributes: { level: ['p'] } },
    { id: child, realmId: realm.id, parentId: parent, name: 'child', attributes: {} },
  ]);
  await m.GroupRoleMapping.create({ groupId: parent, roleId: (await role('grp-role')).id });
  await m.UserGroupMembership.create({ userId, groupId: child });
  // Mappers on the client itself.
  const add = await api.post(`${base}/clients/${app}/protocol-mappers/add-models`, [
    mapper('dept', 'oidc-usermodel-attribute-mapper', {
      'user.attribute': 'dept',
      'claim.name': 'org.dept',
      'jsonType.label': 'String',
      multivalued: 'true',
      'access.token.claim': 'true',
      'id.token.claim': 'true',
      'userinfo.token.claim': 'false',
    }),
    mapper('level', 'oidc-usermodel-attribute-mapper', { 'user.attribute': 'level', 'claim.name': 'level', 'access.token.claim': 'true' }),
    mapper('groups', 'oidc-group-membership-mapper', {
      'claim.name': 'groups',
      'full.path': 'true',
      'access.token.claim': 'true',
      'id.token.claim': 'true',
    }),
    mapper('group names', 'oidc-group-membership-mapper', {
      'claim.name': 'group_names',
      'full.path': 'false',
      'access.token.claim': 'true',
    }),
    mapper('tier', 'oidc-hardcoded-claim-mapper', {
      'claim.name': 'tier',
      'claim.value': '5',
      'jsonType.label': 'long',
      'access.token.claim': 'true',
      'userinfo.token.claim': 'true',
    }),
    mapper('api audience', 'oidc-audience-mapper', { 'included.custom.audience': 'api://x', 'access.token.claim': 'true' }),
    mapper('extra role', 'oidc-hardcoded-role-mapper', { role: 'extra' }),
  ]);
  expect(add.status).toBe(204);
  ev = `${base}/clients/${app}/evaluate-scopes`;
});
afterAll(() => ts.close());

describe('evaluate scopes', () => {
  test('protocol-mappers lists the client and its effective scopes', async () => {
    const res = await api.get(`${ev}/protocol-mappers?scope=openid`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(7 + 23);
    expect(res.body).toContainEqual(
      expect.objectContaining({
        mapperName: 'dept',
        containerType: 'client',
        containerName: '',
        containerId: app,
        protocolMapper: 'oidc-usermodel-attribute-mapper',
      }),
    );
    expect(res.body).toContainEqual(
      expect.objectContaining({ mapperName: 'full name', containerType: 'client-scope', containerName: 'profile' }),
    );
    expect(res.body.some((m: { containerName: string }) => m.containerName === 'address')).toBe(false);
    const withAddress = await api.get(`${ev}/protocol-mappers?scope=openid%20address`);
    expect(withAddress.body[0]).toMatchObject({ containerName: 'address', mapperName: 'address' });
  });

  test('example access token: user claims, roles through composites and groups, groups, audience, hardcoded', async () => {
    const res = await api.get(`${ev}/generate-example-access-token?scope=openid%20address&userId=${userId}`);
    expect(res.status).toBe(200);
    const t = res.body;
    expect(t).toMatchObject({
      typ: 'Bearer',
      azp: 'app',
      sub: userId,
      acr: '1',
      iss: `http://localhost:8080/realms/${R}`,
      preferred_username: 'eve',
      given_name: 'Eve',
      family_name: 'Adams',
      name: 'Eve Adams',
      email: 'eve@example.org',
      email_verified: true,
      org: { dept: ['eng', 'ops'] },
      level: 'p',
      groups: ['/parent/child'],
      group_names: ['child'],
      tier: 5,
      address: { street_address: 'Main Street 1', country: 'NL' },
      'allowed-origins': ['https://app.example.com'],
      scope: 'openid profile email address',
    });
    expect(t.realm_access.roles.sort()).toEqual([
      'default-roles-evalrealm',
      'extra',
      'grp-role',
      'leaf',
      'offline_access',
      'top',
      'uma_authorization',
    ]);
    expect(t.resource_access.app.roles).toEqual(['app-role']);
    expect(t.resource_access.account.roles.sort()).toEqual(['manage-account', 'manage-account-links', 'view-profile']);
    expect([...t.aud].sort()).toEqual(['account', 'api://x']);
    expect(t.realm_access.roles).not.toContain('unrelated');
  });

  test('example ID token and userinfo follow the mapper flags', async () => {
    const id = (await api.get(`${ev}/generate-example-id-token?scope=openid&userId=${userId}`)).body;
    expect(id).toMatchObject({
      typ: 'ID',
      aud: 'app',
      azp: 'app',
      sub: userId,
      given_name: 'Eve',
      org: { dept: ['eng', 'ops'] },
      groups: ['/parent/child'],
    });
    expect(id.realm_access).toBeUndefined();
    expect(id.tier).toBeUndefined();
    expect(id.scope).toBeUndefined();
    const info = (await api.get(`${ev}/generate-example-userinfo?scope=openid&userId=${userId}`)).body;
    expect(info).toMatchObject({ sub: userId, email: 'eve@example.org', preferred_username: 'eve', tier: 5, groups: ['/parent/child'] });
    expect(info.org).toBeUndefined();
    expect(info.realm_access).toBeUndefined();
  });

  test('errors: no user id, unknown user, unknown container, unknown client', async () => {
    expect((await api.get(`${ev}/generate-example-access-token?scope=openid`)).body).toEqual({ error: 'No userId provided' });
    const unknown = await api.get(`${ev}/generate-example-id-token?userId=nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'No user found' });
    expect((await api.get(`${ev}/scope-mappings/nope/granted`)).body).toEqual({ error: 'Role Container not found' });
    expect((await api.get(`${base}/clients/nope/evaluate-scopes/protocol-mappers`)).body).toEqual({ error: 'Could not find client' });
  });

  test('granted / not-granted roles with full scope, then with scope mappings only', async () => {
    const names = (l: Array<{ name: string }>) => l.map((r) => r.name).sort();
    const all = names((await api.get(`${base}/roles`)).body);
    expect(names((await api.get(`${ev}/scope-mappings/${R}/granted?scope=openid`)).body)).toEqual(all);
    expect((await api.get(`${ev}/scope-mappings/${R}/not-granted?scope=openid`)).body).toEqual([]);
    await ts.db.models.Client.update({ fullScopeAllowed: false }, { where: { id: app } });
    const top = (await api.get(`${base}/roles/top`)).body;
    expect((await api.post(`${base}/clients/${app}/scope-mappings/realm`, [top])).status).toBe(204);
    const granted = names((await api.get(`${ev}/scope-mappings/${R}/granted?scope=openid`)).body);
    expect(granted).toEqual(['leaf', 'top']);
    expect(names((await api.get(`${ev}/scope-mappings/${R}/granted?scope=openid%20offline_access`)).body)).toEqual([
      'leaf',
      'offline_access',
      'top',
    ]);
    expect(names((await api.get(`${ev}/scope-mappings/${R}/not-granted?scope=openid`)).body)).toContain('grp-role');
    expect(names((await api.get(`${ev}/scope-mappings/${app}/granted`)).body)).toEqual(['app-role']);
    const t = (await api.get(`${ev}/generate-example-access-token?scope=openid&userId=${userId}`)).body;
    expect(t.realm_access.roles.sort()).toEqual(['extra', 'leaf', 'top']);
    expect(t.resource_access).toEqual({ app: { roles: ['app-role'] } });
    expect(t.aud).toBe('api://x');
    await ts.db.models.Client.update({ fullScopeAllowed: true }, { where: { id: app } });
  });

  test('the token endpoint applies the same mappers', async () => {
    const res = await request(ts.app)
      .post(`/realms/${R}/protocol/openid-connect/token`)
      .type('form')
      .send({ grant_type: 'password', client_id: 'app', username: 'eve', password: 'pw', scope: 'openid' });
    expect(res.status).toBe(200);
    const access = decodeJwt(res.body.access_token);
    expect(access).toMatchObject({
      sub: userId,
      azp: 'app',
      org: { dept: ['eng', 'ops'] },
      groups: ['/parent/child'],
      tier: 5,
      preferred_username: 'eve',
      scope: 'openid profile email',
    });
    expect((access.realm_access as { roles: string[] }).roles).toEqual(expect.arrayContaining(['top', 'leaf', 'grp-role', 'extra']));
    expect([...(access.aud as string[])].sort()).toEqual(['account', 'api://x']);
    const id = decodeJwt(res.body.id_token);
    expect(id).toMatchObject({ typ: 'ID', aud: 'app', sub: userId, given_name: 'Eve', groups: ['/parent/child'] });
    expect(id.at_hash).toEqual(expect.any(String));
    expect(id.realm_access).toBeUndefined();
  });
});
