import { adminEvents, clientUuid, idOf, realmAdmin, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;
const R = 'scoperealm';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
});
afterAll(() => ts.close());

describe('client scopes', () => {
  test('a new realm has the built-in scopes with their protocol mappers', async () => {
    // A realm of its own: other tests add and change scopes of the shared realm.
    expect((await api.post('/admin/realms', { realm: 'scoperealm-new', enabled: true })).status).toBe(201);
    const res = await api.get('/admin/realms/scoperealm-new/client-scopes');
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.body.map((s: { name: string }) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual(
      [
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
      ].sort(),
    );
    expect(byName.profile.protocolMappers).toHaveLength(14);
    expect(byName.offline_access.protocolMappers).toBeUndefined();
    const realmRoles = byName.roles.protocolMappers.find((m: { name: string }) => m.name === 'realm roles');
    expect(realmRoles).toMatchObject({
      protocol: 'openid-connect',
      protocolMapper: 'oidc-usermodel-realm-role-mapper',
      consentRequired: false,
      config: { 'claim.name': 'realm_access.roles', multivalued: 'true', 'access.token.claim': 'true' },
    });
    expect(byName.email).toMatchObject({
      description: 'OpenID Connect built-in scope: email',
      protocol: 'openid-connect',
      attributes: { 'include.in.token.scope': 'true' },
    });
    const clients = await api.get('/admin/realms/scoperealm-new/clients?clientId=security-admin-console');
    expect(clients.body[0].protocolMappers.map((m: { name: string }) => m.name)).toEqual(['locale']);
  });

  test('CRUD: 201 + Location, GET, PUT merges attributes, DELETE 204', async () => {
    const created = await api.post(`${base}/client-scopes`, {
      name: 'crud-scope',
      protocol: 'openid-connect',
      description: 'first',
      attributes: { 'include.in.token.scope': 'true', 'gui.order': '1' },
      protocolMappers: [
        {
          name: 'hc',
          protocol: 'openid-connect',
          protocolMapper: 'oidc-hardcoded-claim-mapper',
          config: { 'claim.name': 'x', 'claim.value': 'y' },
        },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.text).toBe('');
    const id = idOf(created.headers.location);
    expect(created.headers.location).toBe(`http://localhost:8080${base}/client-scopes/${id}`);
    const got = await api.get(`${base}/client-scopes/${id}`);
    expect(got.body).toMatchObject({
      id,
      name: 'crud-scope',
      description: 'first',
      protocol: 'openid-connect',
      attributes: { 'gui.order': '1' },
    });
    expect(got.body.protocolMappers).toHaveLength(1);
    const put = await api.put(`${base}/client-scopes/${id}`, {
      name: 'crud-scope-2',
      attributes: { 'gui.order': '2', 'consent.screen.text': 'hi' },
    });
    expect(put.status).toBe(204);
    const after = (await api.get(`${base}/client-scopes/${id}`)).body;
    expect(after).toMatchObject({
      name: 'crud-scope-2',
      description: 'first',
      attributes: { 'include.in.token.scope': 'true', 'gui.order': '2', 'consent.screen.text': 'hi' },
    });
    expect((await api.delete(`${base}/client-scopes/${id}`)).status).toBe(204);
    expect((await api.get(`${base}/client-scopes/${id}`)).body).toEqual({ error: 'Could not find client scope' });
    expect((await api.delete(`${base}/client-scopes/${id}`)).status).toBe(404);
  });

  test('validation: name, protocol, dynamic scopes; 409 on duplicate names; data unchanged', async () => {
    const bad = async (body: object, status: number, error: object) => {
      const res = await api.post(`${base}/client-scopes`, body);
      expect(res.status).toBe(status);
      expect(res.body).toEqual(error);
    };
    await bad({ name: 'has space', protocol: 'openid-connect' }, 400, { errorMessage: 'Unexpected name "has space" for ClientScope' });
    await bad({ name: 'q"uote', protocol: 'openid-connect' }, 400, { errorMessage: 'Unexpected name "q"uote" for ClientScope' });
    await bad({ protocol: 'openid-connect' }, 400, { errorMessage: 'Unexpected name "null" for ClientScope' });
    await bad({ name: 'noproto' }, 400, { errorMessage: 'Unexpected protocol' });
    await bad({ name: 'p', protocol: 'cas' }, 400, { errorMessage: 'Unexpected protocol' });
    await bad({ name: 'dyn', protocol: 'openid-connect', attributes: { 'is.dynamic.scope': 'true' } }, 400, {
      errorMessage: 'Unexpected value "true" for attribute is.dynamic.scope in ClientScope',
    });
    await bad({ name: 'email', protocol: 'openid-connect' }, 409, { errorMessage: 'Client Scope email already exists' });
    const unknown = await api.post(`${base}/client-scopes`, { name: 'x', protocol: 'openid-connect', bogus: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/^Invalid json representation for ClientScopeRepresentation. Unrecognized field "bogus"/);
    const mapperless = await api.post(`${base}/client-scopes`, {
      name: 'badmapper',
      protocol: 'openid-connect',
      protocolMappers: [{ name: 'm', protocolMapper: 'nope' }],
    });
    expect(mapperless.status).toBe(404);
    const names = (await api.get(`${base}/client-scopes`)).body.map((s: { name: string }) => s.name);
    expect(names).not.toEqual(expect.arrayContaining(['has space', 'noproto', 'dyn', 'badmapper', 'x']));
    const email = (await api.get(`${base}/client-scopes`)).body.find((s: { name: string }) => s.name === 'email');
    const phone = (await api.get(`${base}/client-scopes`)).body.find((s: { name: string }) => s.name === 'phone');
    const rename = await api.put(`${base}/client-scopes/${phone.id}`, { name: 'email' });
    expect(rename.status).toBe(409);
    expect(rename.body).toEqual({ errorMessage: 'Client Scope email already exists' });
    expect((await api.put(`${base}/client-scopes/${phone.id}`, { description: 'x' })).status).toBe(400);
    expect((await api.get(`${base}/client-scopes/${phone.id}`)).body.name).toBe('phone');
    expect((await api.get(`${base}/client-scopes/${email.id}`)).body.name).toBe('email');
  });

  test('20 concurrent creates of one name: one 201, the rest 409', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => api.post(`${base}/client-scopes`, { name: 'racy', protocol: 'openid-connect' })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const all = (await api.get(`${base}/client-scopes`)).body.filter((s: { name: string }) => s.name === 'racy');
    expect(all).toHaveLength(1);
  });

  test('delete unlinks the scope from realm lists and clients', async () => {
    const id = idOf((await api.post(`${base}/client-scopes`, { name: 'linked', protocol: 'openid-connect' })).headers.location);
    expect((await api.put(`${base}/default-default-client-scopes/${id}`)).status).toBe(204);
    const account = await clientUuid(api, R, 'account');
    expect((await api.put(`${base}/clients/${account}/default-client-scopes/${id}`)).status).toBe(204);
    expect((await api.delete(`${base}/client-scopes/${id}`)).status).toBe(204);
    expect((await api.get(`${base}/default-default-client-scopes`)).body.map((s: { id: string }) => s.id)).not.toContain(id);
    expect((await api.get(`${base}/clients/${account}/default-client-scopes`)).body.map((s: { id: string }) => s.id)).not.toContain(id);
    // Read from the table too: a link left to a deleted scope would not show in the client's listing.
    expect(await ts.db.models.ClientScopeClient.count({ where: { scopeId: id } })).toBe(0);
  });

  test('realm default and optional scope lists', async () => {
    const defaults = await api.get(`${base}/default-default-client-scopes`);
    expect(defaults.status).toBe(200);
    expect(defaults.body.map((s: { name: string }) => s.name).sort()).toEqual([
      'acr',
      'basic',
      'email',
      'profile',
      'role_list',
      'roles',
      'saml_organization',
      'web-origins',
    ]);
    expect(Object.keys(defaults.body[0]).sort()).toEqual(['id', 'name', 'protocol']);
    const optional = (await api.get(`${base}/default-optional-client-scopes`)).body.map((s: { name: string }) => s.name).sort();
    expect(optional).toEqual(['address', 'microprofile-jwt', 'offline_access', 'organization', 'phone']);
    const id = idOf((await api.post(`${base}/client-scopes`, { name: 'opt-me', protocol: 'openid-connect' })).headers.location);
    expect((await api.put(`${base}/default-optional-client-scopes/${id}`)).status).toBe(204);
    expect((await api.get(`${base}/default-optional-client-scopes`)).body.map((s: { name: string }) => s.name)).toContain('opt-me');
    const dup = await api.put(`${base}/default-default-client-scopes/${id}`);
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('conflict');
    expect((await api.delete(`${base}/default-default-client-scopes/${id}`)).status).toBe(204);
    expect((await api.get(`${base}/default-optional-client-scopes`)).body.map((s: { name: string }) => s.name)).not.toContain('opt-me');
    const missing = await api.put(`${base}/default-default-client-scopes/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Client scope not found' });
    expect((await api.delete(`${base}/default-optional-client-scopes/nope`)).body).toEqual({ error: 'Client scope not found' });
  });

  test('permissions: view-clients reads, manage-clients writes, others 403', async () => {
    const viewer = await realmAdmin(ts, R, 'scope-viewer', ['view-clients']);
    const nobody = await realmAdmin(ts, R, 'scope-nobody', ['view-users']);
    const querier = await realmAdmin(ts, R, 'scope-querier', ['query-clients']);
    expect((await viewer.get(`${base}/client-scopes`)).body.length).toBeGreaterThan(10);
    expect((await querier.get(`${base}/client-scopes`)).body).toEqual([]);
    expect((await nobody.get(`${base}/client-scopes`)).status).toBe(403);
    const created = await viewer.post(`${base}/client-scopes`, { name: 'viewer-made', protocol: 'openid-connect' });
    expect(created.status).toBe(403);
    expect(created.body).toEqual({ error: 'HTTP 403 Forbidden' });
    const email = (await api.get(`${base}/client-scopes`)).body.find((s: { name: string }) => s.name === 'email');
    expect((await viewer.put(`${base}/client-scopes/${email.id}`, { name: 'email' })).status).toBe(403);
    expect((await viewer.delete(`${base}/client-scopes/${email.id}`)).status).toBe(403);
    expect((await viewer.put(`${base}/default-default-client-scopes/${email.id}`)).status).toBe(403);
    expect((await api.get(`${base}/client-scopes/${email.id}`)).status).toBe(200);
  });

  test('admin events record scope writes', async () => {
    const config = (await api.get(`${base}/events/config`)).body;
    expect((await api.put(`${base}/events/config`, { ...config, adminEventsEnabled: true, adminEventsDetailsEnabled: true })).status).toBe(
      204,
    );
    const id = idOf((await api.post(`${base}/client-scopes`, { name: 'evented', protocol: 'saml' })).headers.location);
    const events = await adminEvents(api, R, { resourcePath: `client-scopes/${id}` });
    expect(events.map((e) => [e.operationType, e.resourceType])).toEqual([['CREATE', 'CLIENT_SCOPE']]);
  });
});
