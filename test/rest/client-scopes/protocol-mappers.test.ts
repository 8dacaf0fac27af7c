import { realmAdmin, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;
const R = 'mapperrealm';
const base = `/admin/realms/${R}`;
const owners: Record<string, string> = {};

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  const scope = await api.post(`${base}/client-scopes`, { name: 'mapper-owner', protocol: 'openid-connect' });
  owners['client-scopes'] = scope.headers.location.split('/').pop() as string;
  owners.clients = (await api.get(`${base}/clients?clientId=account`)).body[0].id;
});
afterAll(() => ts.close());

const attrMapper = (name: string, claim = name) => ({
  name,
  protocol: 'openid-connect',
  protocolMapper: 'oidc-usermodel-attribute-mapper',
  config: {
    'user.attribute': name,
    'claim.name': claim,
    'jsonType.label': 'String',
    'access.token.claim': 'true',
    'id.token.claim': 'true',
    empty: '',
  },
});

test('an audience mapper without an audience is accepted and adds none (Keycloak: AudienceProtocolMapper has no config validation; setClaim adds nothing then)', async () => {
  await realmAdmin(ts, R, 'aud-user', ['view-users']);
  const audOf = async () => {
    const token = await ts.token({ realm: R, username: 'aud-user', password: 'pw' });
    return (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { aud?: unknown }).aud ?? null;
  };
  const before = await audOf();
  const client = (await api.get(`${base}/clients?clientId=admin-cli`)).body[0].id as string;
  const created = await api.post(`${base}/clients/${client}/protocol-mappers/models`, {
    name: 'no-audience',
    protocol: 'openid-connect',
    protocolMapper: 'oidc-audience-mapper',
    config: { 'access.token.claim': 'true' },
  });
  expect(created.status).toBe(201);
  expect(await audOf()).toEqual(before);
  // No config at all (services/src/main/java/org/keycloak/protocol/oidc/mappers/AudienceProtocolMapper.java
  // in Keycloak 26 overrides no validateConfig): also accepted, and read back with an empty config.
  const bare = await api.post(`${base}/clients/${client}/protocol-mappers/models`, {
    name: 'no-config-audience',
    protocol: 'openid-connect',
    protocolMapper: 'oidc-audience-mapper',
  });
  expect(bare.status).toBe(201);
  const got = await api.get(`${base}/clients/${client}/protocol-mappers/models/${bare.headers.location.split('/').pop()}`);
  expect(got.body).toMatchObject({ name: 'no-config-audience', protocolMapper: 'oidc-audience-mapper', config: {} });
  expect(await audOf()).toEqual(before);
});

describe.each(['clients', 'client-scopes'])('protocol mappers of %s', (type) => {
  const path = () => `${base}/${type}/${owners[type]}/protocol-mappers`;

  test('create → 201 + Location, get, list, by protocol, update, delete', async () => {
    const created = await api.post(`${path()}/models`, attrMapper('dept'));
    expect(created.status).toBe(201);
    expect(created.text).toBe('');
    const id = created.headers.location.split('/').pop() as string;
    expect(created.headers.location).toBe(`http://localhost:8080${path()}/models/${id}`);
    const got = await api.get(`${path()}/models/${id}`);
    expect(got.body).toEqual({
      id,
      name: 'dept',
      protocol: 'openid-connect',
      protocolMapper: 'oidc-usermodel-attribute-mapper',
      consentRequired: false,
      config: {
        'user.attribute': 'dept',
        'claim.name': 'dept',
        'jsonType.label': 'String',
        'access.token.claim': 'true',
        'id.token.claim': 'true',
      },
    });
    expect((await api.get(`${path()}/models`)).body.map((m: { name: string }) => m.name)).toContain('dept');
    expect((await api.get(`${path()}/protocol/openid-connect`)).body.map((m: { id: string }) => m.id)).toContain(id);
    expect((await api.get(`${path()}/protocol/saml`)).body).toEqual([]);
    const upd = await api.put(`${path()}/models/${id}`, {
      ...got.body,
      name: 'department',
      config: { 'claim.name': 'department', 'user.attribute': 'dept' },
    });
    expect(upd.status).toBe(204);
    expect((await api.get(`${path()}/models/${id}`)).body).toMatchObject({
      name: 'department',
      config: { 'claim.name': 'department', 'user.attribute': 'dept' },
    });
    expect((await api.delete(`${path()}/models/${id}`)).status).toBe(204);
    const gone = await api.get(`${path()}/models/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: 'Model not found' });
    expect((await api.delete(`${path()}/models/${id}`)).body).toEqual({ error: 'Model not found' });
  });

  test('errors: unknown type 404, bad config / protocol 400, duplicate name 409; nothing written', async () => {
    const before = (await api.get(`${path()}/models`)).body.length;
    const unknown = await api.post(`${path()}/models`, { name: 'u', protocol: 'openid-connect', protocolMapper: 'no-such-mapper' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'ProtocolMapper provider not found' });
    const badFlag = await api.post(`${path()}/models`, { ...attrMapper('b'), config: { 'id.token.claim': 'yes' } });
    expect(badFlag.status).toBe(400);
    expect(badFlag.body.error).toMatch(/id\.token\.claim/);
    const badType = await api.post(`${path()}/models`, { ...attrMapper('b'), config: { 'jsonType.label': 'float' } });
    expect(badType.status).toBe(400);
    const wrongProtocol = await api.post(`${path()}/models`, { ...attrMapper('b'), protocol: 'saml' });
    expect(wrongProtocol.status).toBe(400);
    expect((await api.post(`${path()}/models`, attrMapper('twice'))).status).toBe(201);
    const dup = await api.post(`${path()}/models`, attrMapper('twice'));
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ errorMessage: 'Protocol mapper exists with same name' });
    const unknownOwner = await api.get(`${base}/${type}/nope/protocol-mappers/models`);
    expect(unknownOwner.status).toBe(404);
    expect(unknownOwner.body).toEqual({ error: type === 'clients' ? 'Could not find client' : 'Could not find client scope' });
    expect((await api.get(`${path()}/models`)).body.length).toBe(before + 1);
  });

  test('add-models adds all, or none on a duplicate (409 conflict)', async () => {
    const ok = await api.post(`${path()}/add-models`, [attrMapper('a1'), attrMapper('a2')]);
    expect(ok.status).toBe(204);
    const before = (await api.get(`${path()}/models`)).body.length;
    const dup = await api.post(`${path()}/add-models`, [attrMapper('a3'), attrMapper('a3')]);
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'conflict', error_description: 'Protocol mapper name must be unique per protocol' });
    const names = (await api.get(`${path()}/models`)).body.map((m: { name: string }) => m.name);
    expect(names.length).toBe(before);
    expect(names).not.toContain('a3');
  });

  test('permissions: view-clients may read, not write', async () => {
    const viewer = await realmAdmin(ts, R, `pm-viewer-${type}`, ['view-clients']);
    expect((await viewer.get(`${path()}/models`)).status).toBe(200);
    const res = await viewer.post(`${path()}/models`, attrMapper('v'));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'HTTP 403 Forbidden' });
    const nobody = await realmAdmin(ts, R, `pm-nobody-${type}`, ['view-users']);
    expect((await nobody.get(`${path()}/models`)).status).toBe(403);
  });
});
