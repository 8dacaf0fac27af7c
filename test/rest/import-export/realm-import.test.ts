import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import request from 'supertest';
import { type AdminApi, type TestServer, startTestServer } from '../../helpers/server';

// biome-ignore lint/suspicious/noExplicitAny: tests walk arbitrary response JSON
type Json = Record<string, any>;
let ts: TestServer;
let api: AdminApi;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
});
afterAll(() => ts.close());

const names = (list: Json[], key = 'name') => list.map((x) => x[key]).sort();
const MAPPER = {
  name: 'tier',
  protocol: 'openid-connect',
  protocolMapper: 'oidc-hardcoded-claim-mapper',
  config: { 'claim.name': 'tier', 'claim.value': 'gold', 'jsonType.label': 'String', 'access.token.claim': 'true' },
};

async function clientOf(realm: string, clientId: string): Promise<Json> {
  const list = (await api.get(`/admin/realms/${realm}/clients?clientId=${clientId}`)).body as Json[];
  expect(list).toHaveLength(1);
  return list[0];
}
async function scopeOf(realm: string, name: string): Promise<Json> {
  const list = (await api.get(`/admin/realms/${realm}/client-scopes`)).body as Json[];
  return list.find((s) => s.name === name) as Json;
}
const realmGone = async (name: string) => {
  expect((await api.get(`/admin/realms/${name}`)).status).toBe(404);
  expect(await ts.db.models.Realm.count({ where: { name } })).toBe(0);
};

describe('full realm import: clients, scopes, mappings', () => {
  test('a partial export imported as a new realm serves the same clients, scopes, mappers, roles and mappings', async () => {
    expect((await api.post('/admin/realms', { realm: 'src', enabled: true })).status).toBe(201);
    const base = '/admin/realms/src';
    expect((await api.post(`${base}/roles`, { name: 'reader' })).status).toBe(201);
    const scopeRes = await api.post(`${base}/client-scopes`, { name: 'extra', protocol: 'openid-connect', protocolMappers: [MAPPER] });
    expect(scopeRes.status).toBe(201);
    const scopeId = scopeRes.headers.location.split('/').pop();
    const app = {
      clientId: 'app',
      publicClient: false,
      serviceAccountsEnabled: true,
      fullScopeAllowed: false,
      secret: 'original-secret',
      redirectUris: ['https://app.example.com/*'],
      protocolMappers: [{ ...MAPPER, name: 'app-tier' }],
      defaultClientScopes: ['profile', 'extra'],
      optionalClientScopes: ['email'],
    };
    const appRes = await api.post(`${base}/clients`, app);
    expect(appRes.status).toBe(201);
    const appId = appRes.headers.location.split('/').pop();
    expect((await api.post(`${base}/clients/${appId}/roles`, { name: 'app-admin' })).status).toBe(201);
    expect((await api.post(`${base}/clients/${appId}/roles`, { name: 'app-user' })).status).toBe(201);
    const appAdmin = (await api.get(`${base}/clients/${appId}/roles/app-admin`)).body;
    const appUser = (await api.get(`${base}/clients/${appId}/roles/app-user`)).body;
    const reader = (await api.get(`${base}/roles/reader`)).body;
    expect((await api.post(`${base}/clients/${appId}/roles/app-admin/composites`, [appUser])).status).toBe(204);
    expect((await api.post(`${base}/client-scopes/${scopeId}/scope-mappings/realm`, [reader])).status).toBe(204);
    expect((await api.post(`${base}/clients/${appId}/scope-mappings/realm`, [reader])).status).toBe(204);
    expect((await api.post(`${base}/client-scopes/${scopeId}/scope-mappings/clients/${appId}`, [appUser])).status).toBe(204);
    const group = await api.post(`${base}/groups`, { name: 'team' });
    const groupId = group.headers.location.split('/').pop();
    expect((await api.post(`${base}/groups/${groupId}/role-mappings/clients/${appId}`, [appAdmin])).status).toBe(204);
    const sa = (await api.get(`${base}/clients/${appId}/service-account-user`)).body;
    expect((await api.post(`${base}/users/${sa.id}/role-mappings/clients/${appId}`, [appUser])).status).toBe(204);
    expect((await api.post(`${base}/users`, { username: 'someone', enabled: true })).status).toBe(201);

    const exported = await api.post(`${base}/partial-export?exportClients=true&exportGroupsAndRoles=true`);
    expect(exported.status).toBe(200);
    expect(exported.body.clients.find((c: Json) => c.clientId === 'app').secret).toBe('**********');
    expect(exported.body.scopeMappings).toEqual(
      expect.arrayContaining([
        { clientScope: 'extra', roles: ['reader'] },
        { client: 'app', roles: ['reader'] },
      ]),
    );
    const { id: _id, ...body } = exported.body;
    const res = await api.post('/admin/realms', { ...body, realm: 'copy' });
    expect(res.status).toBe(201);

    // Clients: same set, built-in ones not duplicated, the imported one as configured.
    const clients = (r: string) => api.get(`/admin/realms/${r}/clients`).then((x) => names(x.body, 'clientId'));
    expect(await clients('copy')).toEqual(await clients('src'));
    const copied = await clientOf('copy', 'app');
    expect(copied).toMatchObject({
      publicClient: false,
      serviceAccountsEnabled: true,
      fullScopeAllowed: false,
      redirectUris: ['https://app.example.com/*'],
      optionalClientScopes: ['email'],
    });
    expect(copied.defaultClientScopes).toEqual((await clientOf('src', 'app')).defaultClientScopes);
    expect(copied.defaultClientScopes).toEqual(expect.arrayContaining(['extra', 'profile']));
    expect(names(copied.protocolMappers)).toEqual(['app-tier']);
    const secret = (await api.get(`/admin/realms/copy/clients/${copied.id}/client-secret`)).body.value;
    expect(secret).toBeTruthy();
    expect(secret).not.toBe('**********');
    // Client scopes and their mappers.
    const scopes = (r: string) => api.get(`/admin/realms/${r}/client-scopes`).then((x) => names(x.body));
    expect(await scopes('copy')).toEqual(await scopes('src'));
    const extra = await scopeOf('copy', 'extra');
    expect(names(extra.protocolMappers)).toEqual(['tier']);
    const defaults = (r: string) => api.get(`/admin/realms/${r}/default-default-client-scopes`).then((x) => names(x.body));
    expect(await defaults('copy')).toEqual(await defaults('src'));
    // Client roles with composites; the group's client-role mapping; the service account's roles.
    expect(names((await api.get(`/admin/realms/copy/clients/${copied.id}/roles`)).body)).toEqual(['app-admin', 'app-user']);
    expect(names((await api.get(`/admin/realms/copy/clients/${copied.id}/roles/app-admin/composites`)).body)).toEqual(['app-user']);
    const [team] = (await api.get('/admin/realms/copy/groups?search=team')).body;
    const teamRoles = (await api.get(`/admin/realms/copy/groups/${team.id}/role-mappings`)).body;
    expect(names(teamRoles.clientMappings.app.mappings)).toEqual(['app-admin']);
    const copiedSa = (await api.get(`/admin/realms/copy/clients/${copied.id}/service-account-user`)).body;
    expect(copiedSa.username).toBe('service-account-app');
    const saRoles = (await api.get(`/admin/realms/copy/users/${copiedSa.id}/role-mappings/clients/${copied.id}`)).body;
    expect(names(saRoles)).toEqual(['app-user']);
    // Scope mappings of the client scope and of the client, realm and client roles.
    expect(names((await api.get(`/admin/realms/copy/client-scopes/${extra.id}/scope-mappings/realm`)).body)).toEqual(['reader']);
    expect(names((await api.get(`/admin/realms/copy/clients/${copied.id}/scope-mappings/realm`)).body)).toEqual(['reader']);
    const scopeClientRoles = (await api.get(`/admin/realms/copy/client-scopes/${extra.id}/scope-mappings/clients/${copied.id}`)).body;
    expect(names(scopeClientRoles)).toEqual(['app-user']);
    const offline = await scopeOf('copy', 'offline_access');
    expect(names((await api.get(`/admin/realms/copy/client-scopes/${offline.id}/scope-mappings/realm`)).body)).toEqual(['offline_access']);
    // realm-management keeps every admin role, and a realm admin of the copy can work.
    const rm = await clientOf('copy', 'realm-management');
    const rmRoles = (r: string, id: string) => api.get(`/admin/realms/${r}/clients/${id}/roles`).then((x) => names(x.body));
    expect(await rmRoles('copy', rm.id)).toEqual(await rmRoles('src', (await clientOf('src', 'realm-management')).id));
    const admin = await api.post('/admin/realms/copy/users', {
      username: 'boss',
      enabled: true,
      email: 'boss@example.com',
      firstName: 'B',
      lastName: 'Oss',
      credentials: [{ type: 'password', value: 'boss-pw', temporary: false }],
    });
    const bossId = admin.headers.location.split('/').pop();
    const realmAdmin = (await api.get(`/admin/realms/copy/clients/${rm.id}/roles/realm-admin`)).body;
    expect((await api.post(`/admin/realms/copy/users/${bossId}/role-mappings/clients/${rm.id}`, [realmAdmin])).status).toBe(204);
    const boss = await ts.api({ realm: 'copy', username: 'boss', password: 'boss-pw' });
    expect((await boss.get('/admin/realms/copy/clients')).status).toBe(200);
    // The imported confidential client gets tokens with its new secret (client credentials).
    const token = await request(ts.app)
      .post('/realms/copy/protocol/openid-connect/token')
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: 'app', client_secret: secret });
    expect(token.status).toBe(200);
  });

  test('flows travel with the export: a client browser-flow override points at the imported copy of its flow', async () => {
    await api.post('/admin/realms', { realm: 'flowsrc', enabled: true });
    const src = '/admin/realms/flowsrc';
    expect((await api.post(`${src}/authentication/flows/browser/copy`, { newName: 'strict browser' })).status).toBe(201);
    const flows = (await api.get(`${src}/authentication/flows`)).body as Json[];
    const strict = flows.find((f) => f.alias === 'strict browser') as Json;
    const created = await api.post(`${src}/clients`, { clientId: 'guarded', authenticationFlowBindingOverrides: { browser: strict.id } });
    expect(created.status).toBe(201);
    const exported = (await api.post(`${src}/partial-export?exportClients=true`)).body as Json;
    expect(names(exported.authenticationFlows, 'alias')).toEqual(expect.arrayContaining(['strict browser', 'strict browser forms']));
    expect(exported.authenticatorConfig.length).toBeGreaterThan(0);
    const { id: _id, ...body } = exported;
    expect((await api.post('/admin/realms', { ...body, realm: 'flowcopy' })).status).toBe(201);
    const copyFlows = (await api.get('/admin/realms/flowcopy/authentication/flows')).body as Json[];
    const copyStrict = copyFlows.find((f) => f.alias === 'strict browser') as Json;
    expect(copyStrict.id).not.toBe(strict.id); // the source realm still has that id
    const executions = (await api.get(`/admin/realms/flowcopy/authentication/flows/${encodeURIComponent('strict browser')}/executions`))
      .body;
    expect(executions.length).toBe(
      (await api.get(`${src}/authentication/flows/${encodeURIComponent('strict browser')}/executions`)).body.length,
    );
    expect((await clientOf('flowcopy', 'guarded')).authenticationFlowBindingOverrides).toEqual({ browser: copyStrict.id });
  });

  test('clientScopes in the representation replace the built-in scopes; offline_access is added', async () => {
    const res = await api.post('/admin/realms', {
      realm: 'scoped',
      enabled: true,
      clientScopes: [{ name: 'only-one', protocol: 'openid-connect', protocolMappers: [MAPPER] }],
      defaultDefaultClientScopes: ['only-one', 'nope'],
      defaultOptionalClientScopes: [],
      clients: [{ clientId: 'svc', publicClient: false, secret: 'svc-secret' }],
    });
    expect(res.status).toBe(201);
    expect(names((await api.get('/admin/realms/scoped/client-scopes')).body)).toEqual(['offline_access', 'only-one']);
    expect(names((await api.get('/admin/realms/scoped/default-default-client-scopes')).body)).toEqual(['only-one']);
    const svc = await clientOf('scoped', 'svc');
    expect(svc.defaultClientScopes).toEqual(['only-one']);
    expect((await api.get(`/admin/realms/scoped/clients/${svc.id}/client-secret`)).body.value).toBe('svc-secret');
    // built-in clients were created once and linked to the imported default scope
    expect((await clientOf('scoped', 'account')).defaultClientScopes).toEqual(['only-one']);
  });

  test('imported clients and scopes record no admin events; the realm creation is one CREATE REALM event', async () => {
    const masterEvents = () => api.get('/admin/realms/master/admin-events?resourceTypes=REALM').then((r) => r.body.length);
    const body = {
      realm: 'quiet',
      enabled: true,
      adminEventsEnabled: true,
      clientScopes: [{ name: 's1', protocol: 'openid-connect' }],
      clients: [{ clientId: 'c1', publicClient: true }],
    };
    await api.put('/admin/realms/master/events/config', { adminEventsEnabled: true, adminEventsDetailsEnabled: false });
    const before = await masterEvents();
    expect((await api.post('/admin/realms', body)).status).toBe(201);
    expect((await api.get('/admin/realms/quiet/admin-events')).body).toEqual([]);
    expect(await masterEvents()).toBe(before + 1);
    await api.put('/admin/realms/master/events/config', { adminEventsEnabled: false });
  });
});

describe('full realm import: key providers', () => {
  test('imported RSA key providers are the realm keys and sign its tokens', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const res = await api.post('/admin/realms', {
      realm: 'keyed',
      enabled: true,
      components: {
        'org.keycloak.keys.KeyProvider': [
          { name: 'my-rsa', providerId: 'rsa', subComponents: {}, config: { priority: ['100'], privateKey: [pem] } },
        ],
      },
      users: [
        {
          username: 'kim',
          enabled: true,
          email: 'kim@example.com',
          firstName: 'Kim',
          lastName: 'K',
          credentials: [{ type: 'password', value: 'kim-pw' }],
        },
      ],
    });
    expect(res.status).toBe(201);
    const keys = (await api.get('/admin/realms/keyed/keys')).body;
    // the imported key is the realm's only RSA key; an HS512 fallback is added as Keycloak's key manager does
    const rsa = keys.keys.filter((k: Json) => k.type === 'RSA');
    expect(rsa).toHaveLength(1);
    expect(rsa[0].publicKey).toBe(publicKey.export({ type: 'spki', format: 'der' }).toString('base64'));
    expect(keys.keys.map((k: Json) => k.algorithm).sort()).toEqual(['HS512', 'RS256']);
    const token = await request(ts.app)
      .post('/realms/keyed/protocol/openid-connect/token')
      .type('form')
      .send({ grant_type: 'password', client_id: 'admin-cli', username: 'kim', password: 'kim-pw' });
    expect(token.body).toHaveProperty('access_token');
    const [header, payload, signature] = (token.body.access_token as string).split('.');
    const ok = verify(
      'RSA-SHA256',
      Buffer.from(`${header}.${payload}`),
      createPublicKey(publicKey.export({ type: 'spki', format: 'pem' })),
      Buffer.from(signature, 'base64url'),
    );
    expect(ok).toBe(true);
  });

  test('without key providers the generated defaults stay', async () => {
    expect((await api.post('/admin/realms', { realm: 'unkeyed', enabled: true, components: {} })).status).toBe(201);
    const providers = (await api.get('/admin/realms/unkeyed/keys')).body.keys.map((k: Json) => k.algorithm).sort();
    expect(providers).toEqual(['AES', 'HS512', 'RS256', 'RSA-OAEP']);
  });
});

describe('full realm import: bad input leaves no realm behind', () => {
  test('an unknown protocol mapper type is a 400', async () => {
    const res = await api.post('/admin/realms', {
      realm: 'bad-mapper',
      clients: [{ clientId: 'c', protocolMappers: [{ name: 'x', protocol: 'openid-connect', protocolMapper: 'no-such-mapper' }] }],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorMessage: 'ProtocolMapper provider not found' });
    await realmGone('bad-mapper');
  });

  test('a duplicate clientId is a 409 conflict', async () => {
    const res = await api.post('/admin/realms', { realm: 'dup-client', clients: [{ clientId: 'same' }, { clientId: 'same' }] });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ errorMessage: 'Conflict detected. See logs for details' });
    await realmGone('dup-client');
  });

  test('a bad component config is a 400 with the provider message', async () => {
    const res = await api.post('/admin/realms', {
      realm: 'bad-key',
      components: { 'org.keycloak.keys.KeyProvider': [{ name: 'k', providerId: 'rsa', config: { privateKey: ['garbage'] } }] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorMessage: 'Failed to decode private key' });
    await realmGone('bad-key');
    expect((await api.get('/admin/realms/master/clients?clientId=bad-key-realm')).body).toEqual([]);
  });

  test('a scope mapping of an unknown client scope is a 400', async () => {
    const res = await api.post('/admin/realms', {
      realm: 'bad-scope',
      scopeMappings: [{ clientScope: 'ghost', roles: ['offline_access'] }],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorMessage: 'Unknown clientScope specification in scope mappings: ghost' });
    await realmGone('bad-scope');
  });
});
