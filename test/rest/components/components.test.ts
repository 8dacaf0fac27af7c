import request from 'supertest';
import { realmAdmin, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/** `/admin/realms/{realm}/components` (config reference §6, §14.4, §13). */
let ts: TestServer;
let api: AdminApi;
let realmId: string;
const R = 'comprealm';
const base = `/admin/realms/${R}/components`;
const KP = 'org.keycloak.keys.KeyProvider';
const US = 'org.keycloak.storage.UserStorageProvider';
const MAPPER = 'org.keycloak.storage.ldap.mappers.LDAPStorageMapper';
const POLICY = 'org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy';

beforeAll(async () => {
  ({ ts, api, realmId } = await realmServer(R));
});
afterAll(() => ts.close());

const idOf = (location: string) => location.slice(location.lastIndexOf('/') + 1);
/** Every component of the realm, sub-components included (`GET /components` without filters). */
const componentCount = async (): Promise<number> => (await api.get(base)).body.length;
type Comp = {
  id: string;
  name: string;
  providerId: string;
  providerType: string;
  parentId: string;
  subType?: string;
  config?: Record<string, string[]>;
};

async function createLdap(name: string, config: Record<string, string[]> = {}): Promise<string> {
  const res = await api.post(base, { name, providerId: 'ldap', providerType: US, config: { editMode: ['READ_ONLY'], ...config } });
  expect(res.status).toBe(201);
  return idOf(res.headers.location);
}

describe('default components of a new realm', () => {
  test('key providers read with undeclared and secret config hidden (§6.3)', async () => {
    const res = await api.get(`${base}?type=${KP}`);
    expect(res.status).toBe(200);
    const byName = Object.fromEntries((res.body as Comp[]).map((c) => [c.name, c]));
    expect(Object.keys(byName).sort()).toEqual(['aes-generated', 'hmac-generated-hs512', 'rsa-enc-generated', 'rsa-generated']);
    expect(byName['rsa-generated']).toEqual({
      id: expect.any(String),
      name: 'rsa-generated',
      providerId: 'rsa-generated',
      providerType: KP,
      parentId: realmId,
      config: { priority: ['100'] },
    });
    expect(byName['rsa-enc-generated'].config).toEqual({ priority: ['100'], algorithm: ['RSA-OAEP'] });
    expect(byName['hmac-generated-hs512']).toMatchObject({
      providerId: 'hmac-generated',
      config: { priority: ['100'], algorithm: ['HS512'] },
    });
    expect(byName['aes-generated'].config).toEqual({ priority: ['100'] });
    expect(byName['rsa-generated']).not.toHaveProperty('subType');
  });

  test('an empty or null body is 400 HTTP 400 Bad Request, on create and on update', async () => {
    const someId = ((await api.get(`${base}?type=${KP}`)).body as Array<{ id: string }>)[0].id;
    for (const send of [(t: ReturnType<AdminApi['post']>) => t, (t: ReturnType<AdminApi['post']>) => t.send('null')]) {
      for (const res of [
        await send(api.post(base)).set('Content-Type', 'application/json'),
        await send(api.put(`${base}/${someId}`)).set('Content-Type', 'application/json'),
      ]) {
        expect([res.status, res.body]).toEqual([400, { error: 'HTTP 400 Bad Request' }]);
      }
    }
  });

  test('registration policies carry their subType; no filter lists every component', async () => {
    const policies = (await api.get(`${base}?type=${POLICY}`)).body as Comp[];
    expect(policies).toHaveLength(10);
    expect(policies.find((p) => p.name === 'Max Clients Limit')).toMatchObject({
      providerId: 'max-clients',
      subType: 'anonymous',
      config: { 'max-clients': ['200'] },
    });
    expect(
      policies
        .filter((p) => p.providerId === 'allowed-client-templates')
        .map((p) => p.subType)
        .sort(),
    ).toEqual(['anonymous', 'authenticated']);
    const all = (await api.get(base)).body as Comp[];
    expect(all.length).toBeGreaterThanOrEqual(14);
  });

  test('parent accepts the realm id or its name; name filters exactly', async () => {
    const byId = (await api.get(`${base}?parent=${realmId}&type=${KP}`)).body as Comp[];
    const byName = (await api.get(`${base}?parent=${R}&type=${KP}`)).body as Comp[];
    expect(byId.map((c) => c.id).sort()).toEqual(byName.map((c) => c.id).sort());
    expect(byId).toHaveLength(4);
    const named = (await api.get(`${base}?name=aes-generated`)).body as Comp[];
    expect(named.map((c) => c.name)).toEqual(['aes-generated']);
    expect((await api.get(`${base}?name=aes`)).body).toEqual([]);
  });
});

describe('CRUD', () => {
  test('LDAP: 201 + Location, secrets masked, default mappers created as sub-components', async () => {
    const res = await api.post(base, {
      name: 'corp-ldap',
      providerId: 'ldap',
      providerType: US,
      config: {
        editMode: ['READ_ONLY'],
        vendor: ['other'],
        bindCredential: ['s3cret'],
        connectionUrl: ['ldap://x'],
        empty: [''],
        nully: [null],
      },
    });
    expect(res.status).toBe(201);
    expect(res.text).toBe('');
    const id = idOf(res.headers.location);
    expect(res.headers.location).toBe(`http://localhost:8080${base}/${id}`);
    const got = (await api.get(`${base}/${id}`)).body as Comp;
    expect(got).toMatchObject({ id, name: 'corp-ldap', parentId: realmId, providerType: US });
    expect(got.config).toEqual({ editMode: ['READ_ONLY'], vendor: ['other'], bindCredential: ['**********'], connectionUrl: ['ldap://x'] });
    // What is stored: reads mask the secret and leave out keys the provider does not declare.
    const stored = await ts.db.models.Component.findByPk(id);
    expect(stored?.config.bindCredential).toEqual(['s3cret']);
    expect(stored?.config).not.toHaveProperty('empty');

    const mappers = (await api.get(`${base}?parent=${id}`)).body as Comp[];
    expect(mappers.map((m) => m.name).sort()).toEqual(['creation date', 'email', 'first name', 'last name', 'modify date', 'username']);
    const username = mappers.find((m) => m.name === 'username');
    expect(username).toMatchObject({ providerId: 'user-attribute-ldap-mapper', providerType: MAPPER, parentId: id });
    expect(username?.config).toMatchObject({ 'ldap.attribute': ['uid'], 'read.only': ['true'], 'is.mandatory.in.ldap': ['true'] });
    expect((await api.get(`${base}?parent=${id}&type=${MAPPER}&name=email`)).body).toHaveLength(1);
  });

  test('PUT: fields when present, config merged — mask keeps the secret, undeclared ignored, empty removes (§6.2)', async () => {
    const id = await createLdap('merge-ldap', { bindCredential: ['keep-me'], connectionUrl: ['ldap://a'], usersDn: ['ou=x'] });
    const put = await api.put(`${base}/${id}`, {
      name: 'merged',
      config: { bindCredential: ['**********'], connectionUrl: ['ldap://b'], usersDn: [], notDeclared: ['x'] },
    });
    expect(put.status).toBe(204);
    const got = (await api.get(`${base}/${id}`)).body as Comp;
    expect(got.name).toBe('merged');
    expect(got.providerId).toBe('ldap');
    expect(got.config).toEqual({ editMode: ['READ_ONLY'], bindCredential: ['**********'], connectionUrl: ['ldap://b'] });
    // What is stored: reads mask the secret and leave out keys the provider does not declare.
    const stored = await ts.db.models.Component.findByPk(id);
    expect(stored?.config.bindCredential).toEqual(['keep-me']);
    expect(stored?.config).not.toHaveProperty('notDeclared');
    expect((await api.put(`${base}/${id}`, { config: { bindCredential: ['new-secret'] } })).status).toBe(204);
    expect((await ts.db.models.Component.findByPk(id))?.config.bindCredential).toEqual(['new-secret']);
  });

  test('DELETE removes the component and its sub-components; then 404 everywhere', async () => {
    const id = await createLdap('gone-ldap');
    expect(((await api.get(`${base}?parent=${id}`)).body as Comp[]).length).toBe(6);
    expect((await api.delete(`${base}/${id}`)).status).toBe(204);
    expect((await api.get(`${base}?parent=${id}`)).body).toEqual([]);
    // Rows of the deleted parent: the table shows no orphaned sub-component is left behind.
    expect(await ts.db.models.Component.count({ where: { parentId: id } })).toBe(0);
    for (const res of [await api.get(`${base}/${id}`), await api.put(`${base}/${id}`, { name: 'x' }), await api.delete(`${base}/${id}`)]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Could not find component' });
    }
  });

  test('an id in the body is honoured; the same id again is a 409', async () => {
    const id = '0d6f7c2e-2c8b-4a59-9d3e-7e1f00c0ffee';
    const res = await api.post(base, {
      id,
      name: 'fixed',
      providerId: 'hmac-generated',
      providerType: KP,
      config: { priority: ['1'] },
    });
    expect(res.status).toBe(201);
    expect(idOf(res.headers.location)).toBe(id);
    const again = await api.post(base, { id, name: 'fixed2', providerId: 'hmac-generated', providerType: KP });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('conflict');
  });
});

describe('validation (§6.1, §13)', () => {
  test('unknown provider type or id → 400, nothing written', async () => {
    const before = await componentCount();
    for (const body of [
      { name: 'x', providerId: 'nope', providerType: KP },
      { name: 'x', providerId: 'ldap', providerType: 'org.example.Nope' },
      // The KERBEROS feature is off here, as in a Keycloak without Kerberos: no `kerberos` provider.
      { name: 'x', providerId: 'kerberos', providerType: US },
      { name: 'x' },
    ]) {
      const res = await api.post(base, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Invalid provider type or no such provider' });
    }
    const id = await createLdap('switch-ldap');
    const put = await api.put(`${base}/${id}`, { providerId: 'no-such' });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ error: 'Invalid provider type or no such provider' });
    expect(await componentCount()).toBe(before + 7);
  });

  test("provider validation → 400 errorMessage with Keycloak's text", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ providerId: 'ldap', providerType: US, config: {} }, 'Edit Mode is mandatory'],
      [
        { providerId: 'ldap', providerType: US, config: { editMode: ['READ_ONLY'], connectionTimeout: ['soon'] } },
        'Connection Timeout must be a number',
      ],
      [
        { providerId: 'ldap', providerType: US, config: { editMode: ['READ_ONLY'], validatePasswordPolicy: ['true'] } },
        'Validate Password Policy is applicable only with WRITABLE edit mode',
      ],
      [{ providerId: 'rsa-generated', providerType: KP, config: { priority: ['high'] } }, "'Priority' should be a number"],
      [{ providerId: 'rsa-generated', providerType: KP, config: { active: ['yes'] } }, "'Active' should be 'true' or 'false'"],
      [{ providerId: 'rsa-generated', providerType: KP, config: { keySize: ['1000'] } }, "'Key size' should be 1024, 2048 or 4096"],
      [{ providerId: 'hmac-generated', providerType: KP, config: { algorithm: ['HS1'] } }, "'Algorithm' should be HS256, HS384 or HS512"],
      [{ providerId: 'aes-generated', providerType: KP, config: { priority: ['1', '2'] } }, "'Priority' should be a single entry"],
      [{ providerId: 'rsa', providerType: KP, config: {} }, "'Private RSA Key' is required"],
      [{ providerId: 'rsa', providerType: KP, config: { privateKey: ['not a key'] } }, 'Failed to decode private key'],
    ];
    const before = await componentCount();
    for (const [body, message] of cases) {
      const res = await api.post(base, { name: 'bad', ...body });
      expect([res.status, res.body]).toEqual([400, { errorMessage: message }]);
    }
    expect(await componentCount()).toBe(before);
    const id = await createLdap('validate-on-update');
    const put = await api.put(`${base}/${id}`, { config: { readTimeout: ['later'] } });
    expect([put.status, put.body]).toEqual([400, { errorMessage: 'Read Timeout must be a number' }]);
  });

  test('unknown fields and wrong shapes → 400 as Jackson reports them', async () => {
    const res = await api.post(base, { name: 'x', providerId: 'ldap', providerType: US, bogus: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(
      /^Invalid json representation for ComponentRepresentation\. Unrecognized field "bogus" at line 1 column \d+\.$/,
    );
    const shape = await api.post(base, { name: 'x', providerId: 'ldap', providerType: US, config: ['a'] });
    expect([shape.status, shape.body]).toEqual([400, { error: 'unknown_error', error_description: 'Cannot parse the JSON' }]);
    const syntax = await api.post(base).set('Content-Type', 'application/json').send('{"name":');
    expect(syntax.status).toBe(400);
    expect(syntax.body.error).toBe('invalid_request');
  });
});

describe('sub-component types', () => {
  test('LDAP mapper types of an LDAP parent; missing parent 404; missing type 400; unknown SPI []', async () => {
    const id = await createLdap('types-ldap');
    const res = await api.get(`${base}/${id}/sub-component-types?type=${MAPPER}`);
    expect(res.status).toBe(200);
    const ids = (res.body as Array<{ id: string }>).map((t) => t.id);
    expect(ids).toEqual(
      expect.arrayContaining(['user-attribute-ldap-mapper', 'group-ldap-mapper', 'role-ldap-mapper', 'full-name-ldap-mapper']),
    );
    const attr = (res.body as Array<{ id: string; properties: Array<{ name: string }>; metadata: object; helpText: string }>).find(
      (t) => t.id === 'user-attribute-ldap-mapper',
    );
    expect(attr?.properties.map((p) => p.name)).toEqual(expect.arrayContaining(['user.model.attribute', 'ldap.attribute', 'read.only']));
    expect(attr?.metadata).toEqual({});
    const missing = await api.get(`${base}/nope/sub-component-types?type=${MAPPER}`);
    expect([missing.status, missing.body]).toEqual([404, { error: 'Could not find parent component' }]);
    const noType = await api.get(`${base}/${id}/sub-component-types`);
    expect([noType.status, noType.body]).toEqual([400, { error: 'must specify a subtype' }]);
    expect((await api.get(`${base}/${id}/sub-component-types?type=java.lang.String`)).body).toEqual([]);
  });

  test('registration policy types list the realm scope names as allowed-client-scopes options', async () => {
    const [policy] = (await api.get(`${base}?type=${POLICY}&name=Max%20Clients%20Limit`)).body as Comp[];
    const types = (await api.get(`${base}/${policy.id}/sub-component-types?type=${POLICY}`)).body as Array<{
      id: string;
      properties: Array<{ name: string; options?: string[] }>;
    }>;
    const templates = types.find((t) => t.id === 'allowed-client-templates');
    expect(templates?.properties.find((p) => p.name === 'allowed-client-scopes')?.options).toEqual(
      expect.arrayContaining(['profile', 'email']),
    );
  });
});

describe('bounded SQL', () => {
  test('listing costs the same number of statements whatever the number of components', async () => {
    const list = () => ts.countSql(() => api.get(`${base}?parent=${realmId}`).then((r) => expect(r.status).toBe(200)));
    await list();
    const before = (await list()).count;
    for (let i = 0; i < 5; i++) await createLdap(`sql-${i}`);
    await list(); // the writes moved the realm's cache version: the first read after them reads the realm again (ADR 23)
    expect((await list()).count).toBe(before);
  });
});

describe('permissions and admin events', () => {
  test('view-realm reads, manage-realm writes, others 403, no token 401', async () => {
    const viewer = await realmAdmin(ts, R, 'comp-viewer', ['view-realm']);
    const nobody = await realmAdmin(ts, R, 'comp-nobody', ['view-users']);
    const manager = await realmAdmin(ts, R, 'comp-manager', ['manage-realm']);
    const [one] = (await viewer.get(`${base}?type=${KP}`)).body as Comp[];
    expect((await viewer.get(`${base}/${one.id}`)).status).toBe(200);
    expect((await viewer.get(`${base}/${one.id}/sub-component-types?type=${KP}`)).status).toBe(200);
    const denied = await viewer.post(base, { name: 'v', providerId: 'hmac-generated', providerType: KP });
    expect([denied.status, denied.body]).toEqual([403, { error: 'HTTP 403 Forbidden' }]);
    expect((await viewer.put(`${base}/${one.id}`, { name: 'v' })).status).toBe(403);
    expect((await viewer.delete(`${base}/${one.id}`)).status).toBe(403);
    expect((await nobody.get(base)).status).toBe(403);
    expect((await nobody.get(`${base}/${one.id}`)).status).toBe(403);
    expect((await nobody.get(`${base}/missing`)).status).toBe(404);
    const made = await manager.post(base, { name: 'm', providerId: 'hmac-generated', providerType: KP });
    expect(made.status).toBe(201);
    expect((await manager.delete(`${base}/${idOf(made.headers.location)}`)).status).toBe(204);
    expect((await request(ts.app).get(base)).status).toBe(401);
  });

  test('writes record COMPONENT admin events with secrets masked', async () => {
    expect((await api.put(`/admin/realms/${R}/events/config`, { adminEventsEnabled: true, adminEventsDetailsEnabled: true })).status).toBe(
      204,
    );
    const id = await createLdap('evented', { bindCredential: ['topsecret'] });
    expect((await api.put(`${base}/${id}`, { name: 'evented2' })).status).toBe(204);
    expect((await api.delete(`${base}/${id}`)).status).toBe(204);
    const events = (await api.get(`/admin/realms/${R}/admin-events?resourceTypes=COMPONENT`)).body as Array<{
      operationType: string;
      resourcePath: string;
      representation?: string;
    }>;
    const mine = events.filter((e) => e.resourcePath === `components/${id}`);
    expect(mine.map((e) => e.operationType).sort()).toEqual(['CREATE', 'DELETE', 'UPDATE']);
    const create = mine.find((e) => e.operationType === 'CREATE');
    expect(create?.representation).toContain('**********');
    expect(JSON.stringify(events)).not.toContain('topsecret');
  });
});
