import request from 'supertest';
import { createClient, realmAdmin, realmIdOf, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/** Clients: create with Keycloak's defaults, get, partial update, delete with cascades (config reference §1.1–1.4). */
let ts: TestServer;
let api: AdminApi;
const R = 'cw';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
});
afterAll(() => ts.close());

const create = (body: Record<string, unknown>) => createClient(api, R, body);

describe('POST /clients', () => {
  test('201 with Location and no body; the §14.1 worked example', async () => {
    const res = await api.post(`${base}/clients`, {
      clientId: 'my-app',
      protocol: 'openid-connect',
      publicClient: false,
      redirectUris: ['https://app.example.com/*'],
    });
    expect(res.status).toBe(201);
    expect(res.text).toBe('');
    const id = String(res.headers.location).split('/').pop() as string;
    expect(res.headers.location).toBe(`http://localhost:8080${base}/clients/${id}`);
    const got = await api.get(`${base}/clients/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id,
      clientId: 'my-app',
      surrogateAuthRequired: false,
      enabled: true,
      alwaysDisplayInConsole: false,
      clientAuthenticatorType: 'client-secret',
      redirectUris: ['https://app.example.com/*'],
      webOrigins: ['https://app.example.com'],
      notBefore: 0,
      bearerOnly: false,
      consentRequired: false,
      standardFlowEnabled: true,
      implicitFlowEnabled: false,
      directAccessGrantsEnabled: true,
      serviceAccountsEnabled: false,
      publicClient: false,
      frontchannelLogout: false,
      protocol: 'openid-connect',
      attributes: {
        realm_client: 'false',
        'client.secret.creation.time': expect.stringMatching(/^\d+$/),
        'backchannel.logout.session.required': 'true',
        'backchannel.logout.revoke.offline.tokens': 'false',
      },
      authenticationFlowBindingOverrides: {},
      fullScopeAllowed: true,
      nodeReRegistrationTimeout: -1,
      access: { view: true, configure: true, manage: true },
    });
    expect(got.body.secret).toMatch(/^[A-Za-z0-9]{32}$/);
    expect([...got.body.defaultClientScopes].sort()).toEqual(['acr', 'basic', 'email', 'profile', 'roles', 'web-origins']);
    expect([...got.body.optionalClientScopes].sort()).toEqual(['address', 'microprofile-jwt', 'offline_access', 'organization', 'phone']);
    expect(got.body).not.toHaveProperty('registeredNodes');
    expect(got.body).not.toHaveProperty('protocolMappers');
  });

  test('protocol without publicClient/bearerOnly → public; no protocol → confidential without direct grants', async () => {
    const pub = (await api.get(`${base}/clients/${await create({ clientId: 'pub', protocol: 'openid-connect' })}`)).body;
    expect(pub).toMatchObject({ publicClient: true, directAccessGrantsEnabled: true });
    expect(pub).not.toHaveProperty('secret');
    const conf = (await api.get(`${base}/clients/${await create({ clientId: 'conf' })}`)).body;
    expect(conf).toMatchObject({ publicClient: false, directAccessGrantsEnabled: false, protocol: 'openid-connect' });
    expect(conf.secret).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(conf.attributes).not.toHaveProperty('backchannel.logout.session.required');
    expect(conf.defaultClientScopes).toContain('profile');
  });

  test('id from the body is honoured; clientId defaults to the id; > 36 chars → 400', async () => {
    const id = '11111111-2222-3333-4444-555555555555';
    expect(await create({ id })).toBe(id);
    expect((await api.get(`${base}/clients/${id}`)).body.clientId).toBe(id);
    const long = await api.post(`${base}/clients`, { id: 'x'.repeat(37), clientId: 'long-id' });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ error: 'validation error', error_description: 'Client ID must not exceed 36 characters' });
    expect((await api.get(`${base}/clients?clientId=long-id`)).body).toEqual([]);
  });

  test('rootUrl gives redirect URI, web origin and admin URL; SAML gets the artifact identifier', async () => {
    const c = (
      await api.get(`${base}/clients/${await create({ clientId: 'rooted', protocol: 'openid-connect', rootUrl: 'https://r.example.com' })}`)
    ).body;
    expect(c).toMatchObject({
      redirectUris: ['https://r.example.com/*'],
      webOrigins: ['https://r.example.com'],
      adminUrl: 'https://r.example.com',
    });
    const saml = (await api.get(`${base}/clients/${await create({ clientId: 'urn:sp', protocol: 'saml' })}`)).body;
    expect(saml.protocol).toBe('saml');
    expect(saml.attributes['saml.artifact.binding.identifier']).toMatch(/=$/);
    expect(saml.defaultClientScopes).toEqual(expect.arrayContaining(['role_list']));
    expect(saml.defaultClientScopes).not.toContain('profile');
  });

  test('explicit scope lists replace the realm defaults; unknown names ignored; mappers created', async () => {
    const id = await create({
      clientId: 'scoped',
      defaultClientScopes: ['profile', 'nope'],
      optionalClientScopes: ['phone'],
      protocolMappers: [
        { name: 'aud', protocol: 'openid-connect', protocolMapper: 'oidc-audience-mapper', config: { 'included.client.audience': 'x' } },
      ],
    });
    const c = (await api.get(`${base}/clients/${id}`)).body;
    expect(c.defaultClientScopes).toEqual(['profile']);
    expect(c.optionalClientScopes).toEqual(['phone']);
    expect(c.protocolMappers).toEqual([
      {
        id: expect.any(String),
        name: 'aud',
        protocol: 'openid-connect',
        protocolMapper: 'oidc-audience-mapper',
        consentRequired: false,
        config: { 'included.client.audience': 'x' },
      },
    ]);
  });

  test('duplicate clientId → 409; invalid URLs and unknown fields → 400; nothing written', async () => {
    await create({ clientId: 'dup' });
    const dup = await api.post(`${base}/clients`, { clientId: 'dup' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ errorMessage: 'Client dup already exists' });
    const bad = await api.post(`${base}/clients`, { clientId: 'badurl', rootUrl: 'javascript:alert(1)' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'invalid_input', error_description: 'Root URL uses an illegal scheme' });
    const frag = await api.post(`${base}/clients`, { clientId: 'badurl', redirectUris: ['https://a.example.com/#x'] });
    expect(frag.body).toEqual({ error: 'invalid_input', error_description: 'Redirect URIs must not contain an URI fragment' });
    const unknown = await api.post(`${base}/clients`, { clientId: 'badurl', nosuch: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/Unrecognized field "nosuch"/);
    const syntax = await api.post(`${base}/clients`).set('Content-Type', 'application/json').send('{"clientId":');
    expect(syntax.status).toBe(400);
    expect((await api.get(`${base}/clients?clientId=badurl`)).body).toEqual([]);
  });

  test('service accounts: user service-account-<clientId>, default role, service_account scope', async () => {
    const id = await create({ clientId: 'Robot', serviceAccountsEnabled: true });
    const c = (await api.get(`${base}/clients/${id}`)).body;
    expect(c.serviceAccountsEnabled).toBe(true);
    expect(c.defaultClientScopes).toContain('service_account');
    const sa = await api.get(`${base}/clients/${id}/service-account-user`);
    expect(sa.status).toBe(200);
    expect(sa.body).toMatchObject({ username: 'service-account-robot', enabled: true, emailVerified: false });
    expect(sa.body).not.toHaveProperty('access');
    const realm = (await api.get(`${base}/users/${sa.body.id}/role-mappings/realm`)).body;
    expect(realm.map((r: { name: string }) => r.name)).toEqual([`default-roles-${R}`]);
  });

  test('20 concurrent creates of one clientId: one 201, the rest 409, one row', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => api.post(`${base}/clients`, { clientId: 'race' })));
    const codes = results.map((r) => r.status).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(19);
    expect(await ts.db.models.Client.count({ where: { realmId: await realmIdOf(api, R), clientId: 'race' } })).toBe(1);
  });
});

describe('PUT /clients/{id}', () => {
  test('partial update: absent fields kept, attributes merged, 204', async () => {
    const id = await create({
      clientId: 'upd',
      description: 'd',
      attributes: { a: '1', b: '2' },
      redirectUris: ['https://u.example.com/cb'],
    });
    const res = await api.put(`${base}/clients/${id}`, { clientId: 'upd', name: 'Updated', attributes: { b: 'x', c: '3' } });
    expect(res.status).toBe(204);
    const c = (await api.get(`${base}/clients/${id}`)).body;
    expect(c).toMatchObject({ name: 'Updated', description: 'd', redirectUris: ['https://u.example.com/cb'] });
    expect(c.attributes).toMatchObject({ a: '1', b: 'x', c: '3', realm_client: 'false' });
  });

  test('an attribute sent as null is removed (RepresentationToModel#updateClient → ClientAdapter#setAttribute(name, null))', async () => {
    const id = await create({ clientId: 'upd-null', attributes: { a: '1', b: '2' } });
    expect((await api.put(`${base}/clients/${id}`, { clientId: 'upd-null', attributes: { a: null } })).status).toBe(204);
    const c = (await api.get(`${base}/clients/${id}`)).body;
    expect(c.attributes).toMatchObject({ b: '2' });
    expect(c.attributes).not.toHaveProperty('a');
  });

  test('public clears the secret; confidential again generates one', async () => {
    const id = await create({ clientId: 'flip' });
    await api.put(`${base}/clients/${id}`, { publicClient: true }).expect(204);
    expect((await api.get(`${base}/clients/${id}`)).body).not.toHaveProperty('secret');
    expect((await ts.db.models.Client.findByPk(id))?.secret).toBeNull();
    await api.put(`${base}/clients/${id}`, { publicClient: false }).expect(204);
    expect((await api.get(`${base}/clients/${id}`)).body.secret).toMatch(/^[A-Za-z0-9]{32}$/);
  });

  test('renaming renames the service-account user; disabling deletes it; enabling recreates it', async () => {
    const id = await create({ clientId: 'svc', serviceAccountsEnabled: true });
    const before = (await api.get(`${base}/clients/${id}/service-account-user`)).body;
    await api.put(`${base}/clients/${id}`, { clientId: 'svc2' }).expect(204);
    const after = (await api.get(`${base}/clients/${id}/service-account-user`)).body;
    expect(after).toMatchObject({ id: before.id, username: 'service-account-svc2' });
    await api.put(`${base}/clients/${id}`, { serviceAccountsEnabled: false }).expect(204);
    expect(await ts.db.models.User.findByPk(before.id)).toBeNull();
    const off = await api.get(`${base}/clients/${id}/service-account-user`);
    expect(off.status).toBe(400);
    expect(off.body).toEqual({ error: "Service account not enabled for the client 'svc2'" });
    expect((await api.get(`${base}/clients/${id}`)).body.defaultClientScopes).not.toContain('service_account');
    await api.put(`${base}/clients/${id}`, { serviceAccountsEnabled: true }).expect(204);
    expect((await api.get(`${base}/clients/${id}/service-account-user`)).body.username).toBe('service-account-svc2');
  });

  test('rename to a taken clientId → 409 Client already exists; unknown id → 404', async () => {
    const id = await create({ clientId: 'ren' });
    const res = await api.put(`${base}/clients/${id}`, { clientId: 'dup' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ errorMessage: 'Client already exists' });
    expect((await api.get(`${base}/clients/${id}`)).body.clientId).toBe('ren');
    const missing = await api.put(`${base}/clients/nope`, { clientId: 'x' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Could not find client' });
  });

  test('protocol mappers reconciled by name: kept id, added, deleted', async () => {
    const m = (name: string, claim: string) => ({
      name,
      protocol: 'openid-connect',
      protocolMapper: 'oidc-hardcoded-claim-mapper',
      config: { 'claim.name': claim },
    });
    const id = await create({ clientId: 'mappers', protocolMappers: [m('a', '1'), m('b', '2')] });
    const first = (await api.get(`${base}/clients/${id}`)).body.protocolMappers;
    await api.put(`${base}/clients/${id}`, { protocolMappers: [m('a', 'changed'), m('c', '3')] }).expect(204);
    const next = (await api.get(`${base}/clients/${id}`)).body.protocolMappers;
    expect(next.map((x: { name: string }) => x.name)).toEqual(['a', 'c']);
    expect(next[0]).toMatchObject({ id: first[0].id, config: { 'claim.name': 'changed' } });
  });
});

describe('DELETE /clients/{id}', () => {
  test('204 and cascades: roles, mappings, scope links, mappers, service account, sessions', async () => {
    const id = await create({
      clientId: 'gone',
      serviceAccountsEnabled: true,
      // A stored session (a client_credentials one is transient otherwise), so its cascade is seen.
      attributes: { 'client_credentials.use_refresh_token': 'true' },
      protocolMappers: [{ name: 'm', protocolMapper: 'oidc-hardcoded-claim-mapper', config: {} }],
    });
    expect((await api.post(`${base}/clients/${id}/roles`, { name: 'r1' })).status).toBe(201);
    const sa = (await api.get(`${base}/clients/${id}/service-account-user`)).body;
    const role = (await api.get(`${base}/clients/${id}/roles/r1`)).body;
    await api.post(`${base}/users/${sa.id}/role-mappings/clients/${id}`, [role]).expect(204);
    const secret = (await api.get(`${base}/clients/${id}/client-secret`)).body.value;
    const tok = await request(ts.app)
      .post(`/realms/${R}/protocol/openid-connect/token`)
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: 'gone', client_secret: secret });
    expect(tok.status).toBe(200);
    const m = ts.db.models;
    expect(await m.UserSession.count({ where: { clientId: id } })).toBeGreaterThan(0);
    const res = await api.delete(`${base}/clients/${id}`);
    expect(res.status).toBe(204);
    expect(await m.Client.findByPk(id)).toBeNull();
    expect(await m.Role.count({ where: { clientId: id } })).toBe(0);
    expect(await m.UserRoleMapping.count({ where: { roleId: role.id } })).toBe(0);
    expect(await m.ClientScopeClient.count({ where: { clientId: id } })).toBe(0);
    expect(await m.ProtocolMapper.count({ where: { clientId: id } })).toBe(0);
    expect(await m.User.findByPk(sa.id)).toBeNull();
    expect(await m.UserSession.count({ where: { clientId: id } })).toBe(0);
    expect(await m.UserRoleMapping.count({ where: { userId: sa.id } })).toBe(0);
    expect((await api.get(`${base}/clients/${id}`)).status).toBe(404);
    expect((await api.delete(`${base}/clients/${id}`)).status).toBe(404);
  });

  test('built-in clients cannot be deleted', async () => {
    const [cli] = (await api.get(`${base}/clients?clientId=admin-cli`)).body;
    const res = await api.delete(`${base}/clients/${cli.id}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'Could not delete client' });
  });
});

describe('permissions', () => {
  test('create-client may create; view-clients may not; query-clients sees 403 on writes', async () => {
    const creator = await realmAdmin(ts, R, 'creator', ['create-client']);
    expect((await creator.post(`${base}/clients`, { clientId: 'by-creator' })).status).toBe(201);
    const viewer = await realmAdmin(ts, R, 'viewer', ['view-clients']);
    expect((await viewer.post(`${base}/clients`, { clientId: 'by-viewer' })).status).toBe(403);
    const [c] = (await api.get(`${base}/clients?clientId=by-creator`)).body;
    const put = await viewer.put(`${base}/clients/${c.id}`, { name: 'x' });
    expect(put.status).toBe(403);
    expect(put.body).toEqual({ error: 'HTTP 403 Forbidden' });
    expect((await viewer.delete(`${base}/clients/${c.id}`)).status).toBe(403);
    expect((await viewer.get(`${base}/clients/${c.id}/client-secret`)).status).toBe(200);
    expect((await viewer.post(`${base}/clients/${c.id}/client-secret`)).status).toBe(403);
  });

  test('admin events: CREATE/UPDATE/DELETE CLIENT without secrets', async () => {
    const realm = await ts.db.models.Realm.findOne({ where: { name: R } });
    if (!realm) throw new Error('no realm');
    realm.settings = { ...realm.settings, adminEventsEnabled: true, adminEventsDetailsEnabled: true };
    await realm.save();
    const id = await create({ clientId: 'evented', secret: 'topsecret' });
    await api.put(`${base}/clients/${id}`, { name: 'n', secret: 'other' }).expect(204);
    await api.delete(`${base}/clients/${id}`).expect(204);
    const events = await ts.db.models.AdminEvent.findAll({
      where: { realmId: realm.id, resourceType: 'CLIENT' },
      order: [['time', 'ASC']],
    });
    const mine = events.filter((e) => e.resourcePath === `clients/${id}`);
    expect(mine.map((e) => e.operationType)).toEqual(['CREATE', 'UPDATE', 'DELETE']);
    for (const e of mine) expect(String(e.representation ?? '')).not.toMatch(/topsecret|other/);
  });
});

describe('tokens for an API-created client', () => {
  test('client_credentials token of a new service-account client can call GET /users', async () => {
    const id = await create({ clientId: 'automation', serviceAccountsEnabled: true, publicClient: false });
    const secret = (await api.get(`${base}/clients/${id}/client-secret`)).body.value;
    const sa = (await api.get(`${base}/clients/${id}/service-account-user`)).body;
    const [rm] = (await api.get(`${base}/clients?clientId=realm-management`)).body;
    const viewUsers = (await api.get(`${base}/clients/${rm.id}/roles/view-users`)).body;
    await api.post(`${base}/users/${sa.id}/role-mappings/clients/${rm.id}`, [viewUsers]).expect(204);
    const tok = await request(ts.app)
      .post(`/realms/${R}/protocol/openid-connect/token`)
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: 'automation', client_secret: secret });
    expect(tok.status).toBe(200);
    const users = await request(ts.app).get(`${base}/users`).set('Authorization', `Bearer ${tok.body.access_token}`);
    expect(users.status).toBe(200);
    expect(Array.isArray(users.body)).toBe(true);
    const wrong = await request(ts.app)
      .post(`/realms/${R}/protocol/openid-connect/token`)
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: 'automation', client_secret: 'wrong' });
    expect(wrong.status).toBe(401);
  });
});
