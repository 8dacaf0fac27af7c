import request from 'supertest';
import { clientUuid, realmIdOf } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
});
afterAll(() => ts.close());

/** Creates realm `name` (enabled unless `rep` says otherwise) unless an earlier test of this file already did. */
async function ensureRealm(name: string, rep: Record<string, unknown> = { enabled: true }): Promise<void> {
  if ((await api.get(`/admin/realms/${name}`)).status === 404)
    expect((await api.post('/admin/realms', { realm: name, ...rep })).status).toBe(201);
}

/** The clientIds of the master realm's clients named `clientId` (a realm's admin client is `<realm>-realm`). */
const masterClients = async (clientId: string) =>
  (await api.get(`/admin/realms/master/clients?clientId=${clientId}`)).body.map((c: { clientId: string }) => c.clientId);

describe('realms', () => {
  test('401 without a token, with Keycloak body and no WWW-Authenticate', async () => {
    const res = await request(ts.app).get('/admin/realms');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'HTTP 401 Unauthorized' });
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  test('a garbled token is 401', async () => {
    const res = await request(ts.app).get('/admin/realms').set('Authorization', 'Bearer abc.def.ghi');
    expect(res.status).toBe(401);
  });

  test('create realm: 201 with Location, defaults like Keycloak', async () => {
    const res = await api.post('/admin/realms', { realm: 'r1', enabled: true });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe('http://localhost:8080/admin/realms/r1');
    expect(res.text).toBe('');
    const got = await api.get('/admin/realms/r1');
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      realm: 'r1',
      enabled: true,
      accessTokenLifespan: 300,
      sslRequired: 'external',
      failureFactor: 30,
      eventsListeners: ['jboss-logging'],
      defaultRole: { name: 'default-roles-r1', composite: true, clientRole: false, containerId: got.body.id },
    });
  });

  test('a minimal realm is disabled', async () => {
    expect((await api.post('/admin/realms', { realm: 'minimal' })).status).toBe(201);
    expect((await api.get('/admin/realms/minimal')).body.enabled).toBe(false);
  });

  test('duplicate realm is 409 with Keycloak message', async () => {
    await ensureRealm('r1');
    const res = await api.post('/admin/realms', { realm: 'r1' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ errorMessage: 'Realm r1 already exists' });
  });

  test('bad realm bodies are 400', async () => {
    expect((await api.post('/admin/realms', {})).body).toEqual({ errorMessage: 'Realm name cannot be empty' });
    const bad = await api.post('/admin/realms').set('Content-Type', 'application/json').send('{not json');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errorMessage: 'unable to read contents from stream' });
    expect((await api.post('/admin/realms', { realm: 'a/b' })).body).toEqual({ error: "Character '/' not allowed." });
  });

  test('unknown realm is 404 Realm not found.', async () => {
    const res = await api.get('/admin/realms/nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Realm not found.' });
  });

  test('update merges and renames; master cannot be renamed or deleted', async () => {
    await ensureRealm('r1');
    await ensureRealm('minimal', {});
    expect((await api.put('/admin/realms/r1', { displayName: 'Realm One', accessTokenLifespan: 120 })).status).toBe(204);
    const got = (await api.get('/admin/realms/r1')).body;
    expect(got).toMatchObject({ displayName: 'Realm One', accessTokenLifespan: 120, ssoSessionIdleTimeout: 1800 });
    expect((await api.put('/admin/realms/master', { realm: 'other' })).body).toEqual({ errorMessage: "Can't rename master realm" });
    expect((await api.delete('/admin/realms/master')).body).toEqual({ errorMessage: "Can't remove master realm" });
    expect((await api.put('/admin/realms/r1', { realm: 'minimal' })).status).toBe(409);
  });

  test('list realms includes master and created realms', async () => {
    await ensureRealm('r1');
    await ensureRealm('minimal', {});
    const res = await api.get('/admin/realms?briefRepresentation=true');
    expect(res.status).toBe(200);
    expect(res.body.map((r: { realm: string }) => r.realm)).toEqual(expect.arrayContaining(['master', 'r1', 'minimal']));
  });

  test('delete realm removes it and its master admin client', async () => {
    expect((await api.post('/admin/realms', { realm: 'gone', enabled: true })).status).toBe(201);
    expect((await api.delete('/admin/realms/gone')).status).toBe(204);
    expect((await api.get('/admin/realms/gone')).status).toBe(404);
    expect(await masterClients('gone-realm')).toEqual([]);
    // another realm keeps its roles
    await ensureRealm('r1');
    expect((await api.get('/admin/realms/r1/roles')).body.length).toBeGreaterThan(0);
  });
});

describe('a new realm has Keycloak defaults', () => {
  test('clients, roles, scopes, required actions, keys', async () => {
    expect((await api.post('/admin/realms', { realm: 'defaults', enabled: true })).status).toBe(201);
    const base = '/admin/realms/defaults';
    const names = async (path: string) => (await api.get(path)).body.map((x: { name: string }) => x.name).sort();
    const clients = (await api.get(`${base}/clients`)).body.map((c: { clientId: string }) => c.clientId).sort();
    expect(clients).toEqual(['account', 'account-console', 'admin-cli', 'broker', 'realm-management', 'security-admin-console']);
    expect(await names(`${base}/roles`)).toEqual(['default-roles-defaults', 'offline_access', 'uma_authorization']);
    const rmRoles = await names(`${base}/clients/${await clientUuid(api, 'defaults', 'realm-management')}/roles`);
    expect(rmRoles).toHaveLength(19);
    expect(rmRoles).toEqual(expect.arrayContaining(['realm-admin', 'manage-users', 'view-users', 'query-groups', 'impersonation']));
    expect(await names(`${base}/client-scopes`)).toEqual([
      'acr',
      'address',
      'basic',
      'email',
      'microprofile-jwt',
      'offline_access',
      'organization',
      'phone',
      'profile',
      'role_list',
      'roles',
      'saml_organization',
      'service_account',
      'web-origins',
    ]);
    expect((await api.get(`${base}/default-default-client-scopes`)).body).toHaveLength(8);
    expect((await api.get(`${base}/default-optional-client-scopes`)).body).toHaveLength(5);
    expect((await api.get(`${base}/authentication/required-actions`)).body).toHaveLength(14);
    expect(await names(`${base}/components?type=org.keycloak.keys.KeyProvider`)).toEqual([
      'aes-generated',
      'hmac-generated-hs512',
      'rsa-enc-generated',
      'rsa-generated',
    ]);
    // the realm's admin client in master, whose roles the master admin role includes
    const [adminClient] = (await api.get('/admin/realms/master/clients?clientId=defaults-realm')).body;
    expect(adminClient?.bearerOnly).toBe(true);
    expect((await api.get(`/admin/realms/master/clients/${adminClient.id}/roles`)).body).toHaveLength(18);
  });

  test('each realm has its own signing key', async () => {
    await ensureRealm('defaults');
    expect((await api.post('/admin/realms', { realm: 'other', enabled: true })).status).toBe(201);
    const jwksA = await request(ts.app).get('/realms/defaults/protocol/openid-connect/certs');
    const jwksB = await request(ts.app).get('/realms/other/protocol/openid-connect/certs');
    expect(jwksA.body.keys[0].kid).not.toEqual(jwksB.body.keys[0].kid);
  });
});

describe('realm import', () => {
  const rep = {
    realm: 'imported',
    enabled: true,
    displayName: 'Imported',
    roles: {
      realm: [
        { name: 'reader', description: 'reads' },
        { name: 'editor', composites: { realm: ['reader'], client: { 'realm-management': ['view-users'] } } },
      ],
      client: { broker: [{ name: 'extra-broker-role' }] },
    },
    groups: [
      { name: 'staff', attributes: { floor: ['3'] }, realmRoles: ['reader'], subGroups: [{ name: 'devs', realmRoles: ['editor'] }] },
    ],
    defaultGroups: ['/staff'],
    users: [
      {
        username: 'Imp',
        enabled: true,
        email: 'imp@example.com',
        firstName: 'Im',
        lastName: 'Ported',
        credentials: [{ type: 'password', value: 'secret-pw' }],
        realmRoles: ['editor'],
        clientRoles: { 'realm-management': ['query-users'] },
        groups: ['/staff/devs'],
      },
    ],
  };

  test('imports roles with composites, groups, default groups and users who can log in', async () => {
    const res = await api.post('/admin/realms', rep);
    expect(res.status).toBe(201);
    const editor = (await api.get('/admin/realms/imported/roles/editor/composites')).body.map((r: { name: string }) => r.name).sort();
    expect(editor).toEqual(['reader', 'view-users']);
    expect((await api.get('/admin/realms/imported/groups?search=devs')).body[0]).toMatchObject({
      name: 'staff',
      subGroups: [expect.objectContaining({ name: 'devs', path: '/staff/devs' })],
    });
    expect((await api.get('/admin/realms/imported/default-groups')).body.map((g: { path: string }) => g.path)).toEqual(['/staff']);
    const [user] = (await api.get('/admin/realms/imported/users?username=imp&exact=true')).body;
    expect(user).toMatchObject({ username: 'imp', enabled: true });
    const mappings = (await api.get(`/admin/realms/imported/users/${user.id}/role-mappings`)).body;
    // imported users get no default role, only what the representation says
    expect(mappings.realmMappings.map((r: { name: string }) => r.name)).toEqual(['editor']);
    expect(mappings.clientMappings['realm-management'].mappings.map((r: { name: string }) => r.name)).toEqual(['query-users']);
    expect((await api.get(`/admin/realms/imported/users/${user.id}/groups`)).body.map((g: { path: string }) => g.path)).toEqual([
      '/staff/devs',
    ]);
    // the imported user logs in and, through editor → view-users, may list users of the realm
    const userApi = await ts.api({ realm: 'imported', username: 'imp', password: 'secret-pw' });
    expect((await userApi.get('/admin/realms/imported/users')).status).toBe(200);
  });

  test('a failing import leaves no realm behind', async () => {
    const bad = { realm: 'half', enabled: true, users: [{ username: 'x', realmRoles: ['no-such-role'] }] };
    const res = await api.post('/admin/realms', bad);
    expect(res.status).toBe(400);
    expect((await api.get('/admin/realms/half')).status).toBe(404);
    expect((await api.get('/admin/realms')).body.map((r: { realm: string }) => r.realm)).not.toContain('half');
    expect(await masterClients('half-realm')).toEqual([]);
  });
});

describe('deleting a realm', () => {
  test('leaves no row of the realm or of its users in any table', async () => {
    expect(
      (
        await api.post('/admin/realms', {
          realm: 'doomed',
          enabled: true,
          eventsEnabled: true,
          adminEventsEnabled: true,
          bruteForceProtected: true,
        })
      ).status,
    ).toBe(201);
    const user = await api.post('/admin/realms/doomed/users', {
      username: 'victim',
      enabled: true,
      email: 'v@example.com',
      firstName: 'V',
      lastName: 'W',
      credentials: [{ type: 'password', value: 'pw-1234' }],
    });
    const userId = user.headers.location.split('/').pop() as string;
    const tokenUrl = '/realms/doomed/protocol/openid-connect/token';
    expect(
      (
        await request(ts.app)
          .post(tokenUrl)
          .type('form')
          .send({ grant_type: 'password', client_id: 'admin-cli', username: 'victim', password: 'pw-1234' })
      ).status,
    ).toBe(200);
    await request(ts.app)
      .post(tokenUrl)
      .type('form')
      .send({ grant_type: 'password', client_id: 'admin-cli', username: 'victim', password: 'wrong' });
    expect(
      (await api.post(`/admin/realms/doomed/users/${userId}/federated-identity/github`, { userId: 'gh-1', userName: 'v' })).status,
    ).toBe(204);
    expect((await api.post('/admin/realms/doomed/clients-initial-access', { count: 1 })).status).toBe(201);
    expect((await api.post('/admin/realms/doomed/localization/de', { hello: 'Hallo' })).status).toBe(204);
    expect((await api.post('/admin/realms/doomed/authentication/flows/browser/copy', { newName: 'my browser' })).status).toBe(201);
    const idp = await api.post('/admin/realms/doomed/identity-provider/instances', {
      alias: 'corp',
      providerId: 'oidc',
      config: { clientId: 'x', clientSecret: 's', authorizationUrl: 'https://corp/auth', tokenUrl: 'https://corp/token' },
    });
    expect(idp.status).toBe(201);
    const mapper = { name: 'm', identityProviderAlias: 'corp', identityProviderMapper: 'hardcoded-attribute-idp-mapper', config: {} };
    expect((await api.post('/admin/realms/doomed/identity-provider/instances/corp/mappers', mapper)).status).toBe(201);
    const realmId = await realmIdOf(api, 'doomed');
    expect((await api.get(`/admin/realms/doomed/users/${userId}/sessions`)).body.length).toBeGreaterThan(0);
    expect((await api.get('/admin/realms/doomed/events')).body.length).toBeGreaterThan(0);

    expect((await api.delete('/admin/realms/doomed')).status).toBe(204);
    // Every table, read directly: no API lists what a deleted realm may have left behind.
    const leftovers: string[] = [];
    for (const [name, model] of Object.entries(ts.db.models)) {
      const attrs = (model as unknown as { getAttributes(): Record<string, unknown> }).getAttributes();
      const m = model as unknown as { count(o: object): Promise<number> };
      if ('realmId' in attrs && (await m.count({ where: { realmId } }))) leftovers.push(`${name}.realmId`);
      if ('userId' in attrs && (await m.count({ where: { userId } }))) leftovers.push(`${name}.userId`);
    }
    expect(leftovers).toEqual([]);
  });
});
