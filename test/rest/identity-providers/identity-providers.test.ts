import { adminEvents, realmAdmin, realmIdOf } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

/** Identity provider instances (config reference §8.1–8.2): CRUD, search, secrets, permissions, cascades. */
let ts: TestServer;
let api: AdminApi;
const R = 'idprealm';
const base = `/admin/realms/${R}/identity-provider`;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  const res = await api.post('/admin/realms', { realm: R, enabled: true, adminEventsEnabled: true, adminEventsDetailsEnabled: true });
  expect(res.status).toBe(201);
});
afterAll(() => ts.close());

/** The aliases of the realm's identity providers, as the listing shows them. */
const aliases = async () => ((await api.get(`${base}/instances?max=1000`)).body as Array<{ alias: string }>).map((p) => p.alias);

/** The stored client secret of provider `alias`: read from the table, since the API only ever shows it masked. */
const storedSecret = async (alias: string) =>
  (await ts.db.models.IdentityProvider.findOne({ where: { realmId: await realmIdOf(api, R), alias } }))?.config.clientSecret;

describe('identity provider instances', () => {
  test('create: 201 with Location ending in the alias, no body; GET returns defaults, masked secret, syncMode LEGACY', async () => {
    const res = await api.post(`${base}/instances`, {
      alias: 'corp-oidc',
      providerId: 'oidc',
      displayName: 'Corp',
      config: { clientId: 'cid', clientSecret: 's3cret', authorizationUrl: 'https://idp.example.org/auth', empty: '', guiOrder: 3 },
    });
    expect(res.status).toBe(201);
    expect(res.text).toBe('');
    expect(res.headers.location).toBe(`http://localhost:8080${base}/instances/corp-oidc`);
    const got = await api.get(`${base}/instances/corp-oidc`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      alias: 'corp-oidc',
      displayName: 'Corp',
      internalId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      providerId: 'oidc',
      enabled: true,
      updateProfileFirstLoginMode: 'on',
      trustEmail: false,
      storeToken: false,
      addReadTokenRoleOnCreate: false,
      authenticateByDefault: false,
      linkOnly: false,
      hideOnLogin: false,
      config: {
        clientId: 'cid',
        clientSecret: '**********',
        authorizationUrl: 'https://idp.example.org/auth',
        guiOrder: '3',
        syncMode: 'LEGACY',
      },
    });
    // By internal id too.
    expect((await api.get(`${base}/instances/${got.body.internalId}`)).body.alias).toBe('corp-oidc');
    // The secret is stored, never returned.
    expect(await storedSecret('corp-oidc')).toBe('s3cret');
    // The admin event has the secret stripped.
    const [ev] = await adminEvents(api, R, { resourcePath: 'identity-provider/instances/corp-oidc' });
    expect(ev).toMatchObject({ operationType: 'CREATE', resourceType: 'IDENTITY_PROVIDER' });
    expect(String(ev?.representation)).not.toContain('s3cret');
  });

  test('create errors: duplicate alias 409, unknown provider id 400, reserved characters and spaces 400, bad fields 400', async () => {
    expect((await api.post(`${base}/instances`, { alias: 'dup', providerId: 'github' })).status).toBe(201);
    const dup = await api.post(`${base}/instances`, { alias: 'dup', providerId: 'google' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ errorMessage: 'Identity Provider dup already exists' });
    const unknown = await api.post(`${base}/instances`, { alias: 'x1', providerId: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ errorMessage: 'Invalid identity provider id [nope' });
    expect((await api.post(`${base}/instances`, { alias: 'x2' })).body).toEqual({ errorMessage: 'Invalid identity provider id [null' });
    const space = await api.post(`${base}/instances`, { alias: 'a b', providerId: 'oidc' });
    expect(space.status).toBe(400);
    expect(space.body).toEqual({ error: 'Empty Space not allowed.' });
    expect((await api.post(`${base}/instances`, { alias: 'a/b', providerId: 'oidc' })).body).toEqual({
      error: "Character '/' not allowed.",
    });
    const field = await api.post(`${base}/instances`, { alias: 'x3', providerId: 'oidc', bogus: 1 });
    expect(field.status).toBe(400);
    expect(field.body.error).toMatch(/Unrecognized field "bogus"/);
    const nested = await api.post(`${base}/instances`, { alias: 'x4', providerId: 'oidc', config: { a: { b: 1 } } });
    expect(nested.status).toBe(400);
    expect(nested.body).toEqual({ error: 'unknown_error', error_description: 'Cannot parse the JSON' });
    expect((await api.post(`${base}/instances`, { providerId: 'oidc' })).status).toBe(400);
    expect((await aliases()).filter((a) => ['x1', 'x2', 'x3', 'x4', 'a b', 'a/b'].includes(a))).toEqual([]);
  });

  test('broker login flows must exist in the realm: 400 otherwise, on create and on update; nothing changes', async () => {
    const rep = { alias: 'flowcheck', providerId: 'oidc', config: { clientId: 'c' } };
    const bad = await api.post(`${base}/instances`, { ...rep, firstBrokerLoginFlowAlias: 'no such flow' });
    expect([bad.status, bad.body]).toEqual([400, { errorMessage: 'No available authentication flow with alias: no such flow' }]);
    expect((await api.get(`${base}/instances/flowcheck`)).status).toBe(404);
    expect((await api.post(`${base}/instances`, { ...rep, firstBrokerLoginFlowAlias: 'first broker login' })).status).toBe(201);
    const upd = await api.put(`${base}/instances/flowcheck`, { ...rep, postBrokerLoginFlowAlias: 'ghost' });
    expect([upd.status, upd.body]).toEqual([400, { errorMessage: 'No available authentication flow with alias: ghost' }]);
    const got = (await api.get(`${base}/instances/flowcheck`)).body;
    expect(got.firstBrokerLoginFlowAlias).toBe('first broker login');
    expect(got.postBrokerLoginFlowAlias).toBeUndefined();
    expect((await api.put(`${base}/instances/flowcheck`, { ...rep, postBrokerLoginFlowAlias: 'browser' })).status).toBe(204);
    expect((await api.delete(`${base}/instances/flowcheck`)).status).toBe(204);
  });

  test('concurrent creates of one alias: exactly one 201, the others 409 (unique index)', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => api.post(`${base}/instances`, { alias: 'race', providerId: 'github' })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect((await aliases()).filter((a) => a === 'race')).toHaveLength(1);
  });

  test('unknown alias: 404 HTTP 404 Not Found on every instance endpoint', async () => {
    for (const res of [
      await api.get(`${base}/instances/missing`),
      await api.put(`${base}/instances/missing`, { alias: 'missing', providerId: 'oidc' }),
      await api.delete(`${base}/instances/missing`),
      await api.get(`${base}/instances/missing/mappers`),
      await api.get(`${base}/instances/missing/mapper-types`),
      await api.get(`${base}/instances/missing/export`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'HTTP 404 Not Found' });
    }
    expect((await api.get('/admin/realms/nope/identity-provider/instances')).body).toEqual({ error: 'Realm not found.' });
  });

  test('update: whole model from the body, masked secret keeps the stored one, legacy hideOnLoginPage, 204', async () => {
    await api.post(`${base}/instances`, {
      alias: 'upd',
      providerId: 'oidc',
      trustEmail: true,
      config: { clientSecret: 'keep-me', a: '1' },
    });
    const res = await api.put(`${base}/instances/upd`, {
      alias: 'upd',
      providerId: 'oidc',
      storeToken: true,
      internalId: 'ignored',
      config: { clientSecret: '**********', b: '2', hideOnLoginPage: 'true' },
    });
    expect(res.status).toBe(204);
    const got = (await api.get(`${base}/instances/upd`)).body;
    expect(got).toMatchObject({ trustEmail: false, storeToken: true, hideOnLogin: true, config: { clientSecret: '**********', b: '2' } });
    expect(got.internalId).not.toBe('ignored');
    expect(got.config.a).toBeUndefined();
    expect(got.config.hideOnLoginPage).toBeUndefined();
    expect(await storedSecret('upd')).toBe('keep-me');
    await api.put(`${base}/instances/upd`, { alias: 'upd', providerId: 'oidc', config: { clientSecret: 'new' } });
    expect(await storedSecret('upd')).toBe('new');
    const ev = await adminEvents(api, R, { resourcePath: 'identity-provider/instances/upd' });
    expect(ev.map((e) => e.operationType)).toEqual(expect.arrayContaining(['CREATE', 'UPDATE']));
    expect(ev.map((e) => String(e.representation)).join()).not.toMatch(/keep-me|"new"/);
  });

  test('update: alias change re-keys users links; a duplicate alias is 409 and changes nothing', async () => {
    await api.post(`${base}/instances`, { alias: 'old-name', providerId: 'github' });
    await api.post(`${base}/instances`, { alias: 'taken', providerId: 'github' });
    const user = await api.post(`/admin/realms/${R}/users`, { username: 'linked', enabled: true });
    const uid = user.headers.location.split('/').pop();
    expect((await api.post(`/admin/realms/${R}/users/${uid}/federated-identity/old-name`, { userId: 'e1', userName: 'ext' })).status).toBe(
      204,
    );
    const clash = await api.put(`${base}/instances/old-name`, { alias: 'taken', providerId: 'github' });
    expect(clash.status).toBe(409);
    expect(clash.body).toEqual({ errorMessage: 'Identity Provider taken already exists' });
    expect((await api.get(`${base}/instances/old-name`)).status).toBe(200);
    expect((await api.put(`${base}/instances/old-name`, { alias: 'new-name', providerId: 'github' })).status).toBe(204);
    expect((await api.get(`${base}/instances/old-name`)).status).toBe(404);
    expect((await api.get(`/admin/realms/${R}/users/${uid}/federated-identity`)).body).toEqual([
      { identityProvider: 'new-name', userId: 'e1', userName: 'ext' },
    ]);
  });

  test('delete: 204, removes mappers and users links; links stay hidden', async () => {
    await api.post(`${base}/instances`, { alias: 'gone', providerId: 'github' });
    const m = await api.post(`${base}/instances/gone/mappers`, {
      name: 'm1',
      identityProviderMapper: 'oidc-hardcoded-role-idp-mapper',
      config: {},
    });
    expect(m.status).toBe(201);
    const user = await api.post(`/admin/realms/${R}/users`, { username: 'gone-user', enabled: true });
    const uid = user.headers.location.split('/').pop();
    await api.post(`/admin/realms/${R}/users/${uid}/federated-identity/gone`, { userId: 'g1', userName: 'g' });
    expect((await api.get(`/admin/realms/${R}/users/${uid}`)).body.federatedIdentities).toHaveLength(1);
    const res = await api.delete(`${base}/instances/gone`, {});
    expect(res.status).toBe(204);
    expect((await api.get(`${base}/instances/gone`)).status).toBe(404);
    // Read from the tables: no endpoint lists the mappers of a deleted provider, and the API hides links to unknown providers.
    expect(await ts.db.models.IdpMapper.count({ where: { name: 'm1' } })).toBe(0);
    expect(await ts.db.models.FederatedIdentity.count({ where: { userId: uid, identityProvider: 'gone' } })).toBe(0);
    const [ev] = await adminEvents(api, R, { resourcePath: 'identity-provider/instances/gone', operationTypes: 'DELETE' });
    expect(ev?.resourceType).toBe('IDENTITY_PROVIDER');
  });

  test('list: ordered by alias, search prefix / contains / exact, paging, brief representation', async () => {
    for (const alias of ['srch-alpha', 'srch-beta', 'srch-gamma', 'other-srch']) {
      expect((await api.post(`${base}/instances`, { alias, providerId: 'saml', config: { clientSecret: 'z' } })).status).toBe(201);
    }
    const all = (await api.get(`${base}/instances`)).body as Array<{ alias: string }>;
    const aliases = all.map((p) => p.alias);
    expect(aliases).toEqual([...aliases].sort());
    const names = async (q: string) => ((await api.get(`${base}/instances?${q}`)).body as Array<{ alias: string }>).map((p) => p.alias);
    expect(await names('search=SRCH')).toEqual(['srch-alpha', 'srch-beta', 'srch-gamma']);
    expect(await names('search=*srch*')).toEqual(['other-srch', 'srch-alpha', 'srch-beta', 'srch-gamma']);
    expect(await names('search=%22srch-beta%22')).toEqual(['srch-beta']);
    expect(await names('search=%22srch%22')).toEqual([]);
    expect(await names('search=srch&first=1&max=1')).toEqual(['srch-beta']);
    const brief = (await api.get(`${base}/instances?search=srch-alpha&briefRepresentation=true`)).body;
    expect(brief).toEqual([
      {
        alias: 'srch-alpha',
        internalId: expect.any(String),
        providerId: 'saml',
        enabled: true,
        updateProfileFirstLoginMode: 'on',
        trustEmail: false,
        storeToken: false,
        addReadTokenRoleOnCreate: false,
        authenticateByDefault: false,
        linkOnly: false,
        hideOnLogin: false,
        config: {},
      },
    ]);
    const full = (await api.get(`${base}/instances?search=srch-alpha`)).body[0];
    expect(full.config).toEqual({ clientSecret: '**********', syncMode: 'LEGACY' });
  });

  test('list without max returns at most 100', async () => {
    const realm = 'idpmany';
    expect((await api.post('/admin/realms', { realm, enabled: true })).status).toBe(201);
    // Seeded straight into the table: 105 providers through the API would only slow the suite down.
    const realmId = await realmIdOf(api, realm);
    await ts.db.models.IdentityProvider.bulkCreate(
      Array.from({ length: 105 }, (_, i) => ({
        internalId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        realmId,
        alias: `p${String(i).padStart(3, '0')}`,
        providerId: 'github',
        config: {},
      })),
    );
    const { result, count } = await ts.countSql(() => api.get(`/admin/realms/${realm}/identity-provider/instances`));
    expect(result.body).toHaveLength(100);
    expect(count).toBeLessThan(15);
    expect((await api.get(`/admin/realms/${realm}/identity-provider/instances?max=200`)).body).toHaveLength(105);
  });

  test('providers/{id}: the factory; unknown 400', async () => {
    const saml = await api.get(`${base}/providers/saml`);
    expect(saml.status).toBe(200);
    expect(saml.body).toEqual({ name: 'SAML v2.0', id: 'saml', configProperties: [], helpText: '', configMetadata: [] });
    const gh = (await api.get(`${base}/providers/github`)).body;
    expect(gh.configProperties.map((p: { name: string }) => p.name)).toEqual(['baseUrl', 'apiUrl']);
    const bad = await api.get(`${base}/providers/nope`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'HTTP 400 Bad Request' });
  });

  test('management/permissions: off until enabled, then token-exchange (ADR 26); an unknown alias is a 404', async () => {
    await api.post(`${base}/instances`, { alias: 'perm', providerId: 'github' });
    const get = await api.get(`${base}/instances/perm/management/permissions`);
    expect([get.status, get.body]).toEqual([200, { enabled: false }]);
    const put = await api.put(`${base}/instances/perm/management/permissions`, { enabled: true });
    expect(put.status).toBe(200);
    expect(Object.keys(put.body.scopePermissions)).toEqual(['token-exchange']);
    expect((await api.get(`${base}/instances/missing/management/permissions`)).status).toBe(404);
  });

  test('permissions: view-identity-providers reads, manage-identity-providers writes, others 403', async () => {
    await api.post(`${base}/instances`, { alias: 'guarded', providerId: 'github' });
    const viewer = await realmAdmin(ts, R, 'idp-viewer', ['view-identity-providers']);
    const manager = await realmAdmin(ts, R, 'idp-manager', ['manage-identity-providers']);
    const realmLevelAdmin = await realmAdmin(ts, R, 'realm-viewer', ['view-realm', 'manage-realm']);
    expect((await viewer.get(`${base}/instances`)).status).toBe(200);
    expect((await viewer.get(`${base}/instances/guarded`)).status).toBe(200);
    expect((await viewer.get(`${base}/instances/guarded/mappers`)).status).toBe(200);
    expect((await viewer.get(`${base}/providers/github`)).status).toBe(200);
    expect((await viewer.post(`${base}/instances`, { alias: 'v', providerId: 'github' })).status).toBe(403);
    expect((await viewer.put(`${base}/instances/guarded`, { alias: 'guarded', providerId: 'github' })).status).toBe(403);
    expect((await viewer.delete(`${base}/instances/guarded`)).status).toBe(403);
    expect((await viewer.post(`${base}/import-config`, { providerId: 'oidc', fromUrl: 'http://x' })).status).toBe(403);
    expect((await realmLevelAdmin.get(`${base}/instances`)).status).toBe(403);
    expect((await realmLevelAdmin.get(`${base}/instances/guarded`)).status).toBe(403);
    expect((await manager.get(`${base}/instances/guarded`)).status).toBe(200);
    expect((await manager.post(`${base}/instances`, { alias: 'by-manager', providerId: 'github' })).status).toBe(201);
    expect((await manager.delete(`${base}/instances/by-manager`)).status).toBe(204);
  });

  test('realm import creates providers and mappers; GET realm does not include them; deleting the realm removes them', async () => {
    const realm = 'idpimport';
    const res = await api.post('/admin/realms', {
      realm,
      enabled: true,
      identityProviders: [
        {
          alias: 'imp-gh',
          providerId: 'github',
          internalId: '11111111-2222-4333-8444-555555555555',
          config: { clientId: 'a', clientSecret: 'b' },
        },
        { alias: 'imp-saml', providerId: 'saml', enabled: false },
      ],
      identityProviderMappers: [
        { name: 'role', identityProviderAlias: 'imp-gh', identityProviderMapper: 'oidc-hardcoded-role-idp-mapper', config: { role: 'x' } },
      ],
    });
    expect(res.status).toBe(201);
    const list = (await api.get(`/admin/realms/${realm}/identity-provider/instances`)).body;
    expect(list.map((p: { alias: string }) => p.alias)).toEqual(['imp-gh', 'imp-saml']);
    expect(list[0]).toMatchObject({
      internalId: '11111111-2222-4333-8444-555555555555',
      config: { clientId: 'a', clientSecret: '**********' },
    });
    expect(list[1].enabled).toBe(false);
    expect((await api.get(`/admin/realms/${realm}/identity-provider/instances/imp-gh/mappers`)).body).toEqual([
      expect.objectContaining({ name: 'role', identityProviderAlias: 'imp-gh', config: { role: 'x' } }),
    ]);
    const rep = (await api.get(`/admin/realms/${realm}`)).body;
    expect(rep.identityProviders).toBeUndefined();
    expect(rep.identityProviderMappers).toBeUndefined();
    const dupe = await api.post('/admin/realms', {
      realm: 'idpimport-dup',
      identityProviders: [
        { alias: 'same', providerId: 'github' },
        { alias: 'same', providerId: 'github' },
      ],
    });
    expect(dupe.status).toBe(409);
    expect(dupe.body).toEqual({ errorMessage: 'Identity Provider same already exists' });
    expect((await api.get('/admin/realms/idpimport-dup')).status).toBe(404);
    const realmId = await realmIdOf(api, realm);
    expect((await api.delete(`/admin/realms/${realm}`)).status).toBe(204);
    // Read from the tables: the realm is gone, so no endpoint can show what it left behind.
    expect(await ts.db.models.IdentityProvider.count({ where: { realmId } })).toBe(0);
    expect(await ts.db.models.IdpMapper.count({ where: { realmId } })).toBe(0);
  });
});
