import { createLoginUser } from '../helpers/fixtures';
import request from 'supertest';
import { startTestServer, type AdminApi, type TestServer } from '../helpers/server';
import { USER_ERRORS, gqlClient, ok, userErrors } from './gql';

let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  gql = gqlClient(ts);
});
afterAll(() => ts.close());

/** The non-null fields of a GraphQL object (a field GraphQL has and the REST JSON omits reads as null). */
const strip = (o: Record<string, unknown> | null) => (o ? Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null)) : o);

describe('graphql realms', () => {
  test('401 without a token (before Apollo), with Keycloak body', async () => {
    const res = await request(ts.app).post('/graphql').send({ query: '{ realms { name } }' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'HTTP 401 Unauthorized' });
    expect(res.headers['www-authenticate']).toBeUndefined();
    const bad = await request(ts.app).post('/graphql').set('Authorization', 'Bearer abc.def.ghi').send({ query: '{ realms { name } }' });
    expect(bad.status).toBe(401);
  });

  test('create, read, update and delete a realm', async () => {
    const created = ok(
      await gql('mutation($r: RealmCreateInput!) { createRealm(input: $r) { realm { name enabled accessTokenLifespan } } }', {
        r: { realm: 'g1', enabled: true },
      }),
    );
    expect(created.createRealm.realm).toEqual({ name: 'g1', enabled: true, accessTokenLifespan: 300 });

    const read = ok(await gql('{ realm(name: "g1") { id realm displayName sslRequired representation } }'));
    const rest = (await api.get('/admin/realms/g1')).body;
    expect(read.realm.id).toBe(rest.id);
    // The enum SslRequired names REST's lower-case value in upper case.
    expect(read.realm.sslRequired).toBe('EXTERNAL');
    expect(rest.sslRequired).toBe('external');
    expect(read.realm.representation).toEqual(rest);

    const updated = ok(
      await gql(
        'mutation { updateRealm(name: "g1", input: { displayName: "G One", accessTokenLifespan: 120 }) { realm { displayName accessTokenLifespan ssoSessionIdleTimeout } } }',
      ),
    );
    expect(updated.updateRealm.realm).toEqual({ displayName: 'G One', accessTokenLifespan: 120, ssoSessionIdleTimeout: 1800 });
    expect((await api.get('/admin/realms/g1')).body.displayName).toBe('G One');

    const list = ok(await gql('{ realms(brief: true) { name } }'));
    expect(list.realms.map((r: { name: string }) => r.name)).toEqual(expect.arrayContaining(['master', 'g1']));

    const renamed = ok(await gql('mutation { updateRealm(name: "g1", input: { realm: "g1b" }) { realm { name displayName } } }'));
    expect(renamed.updateRealm.realm).toEqual({ name: 'g1b', displayName: 'G One' });
    expect((await api.get('/admin/realms/g1')).status).toBe(404);

    expect(ok(await gql('mutation { deleteRealm(name: "g1b") { ok } }'))).toEqual({ deleteRealm: { ok: true } });
    expect((await api.get('/admin/realms/g1b')).status).toBe(404);
  });

  test('input errors are userErrors; other errors carry the code, the HTTP status and Keycloak body', async () => {
    await api.post('/admin/realms', { realm: 'g2', enabled: true });
    const dup = await gql(`mutation { createRealm(input: { realm: "g2" }) { realm { name } ${USER_ERRORS} } }`);
    expect(dup.data?.createRealm.realm).toBeNull();
    expect(userErrors(dup, 'createRealm')).toEqual([{ field: ['input', 'realm'], code: 'CONFLICT', message: 'Realm g2 already exists' }]);
    const missing = await gql('{ realm(name: "nope") { name } }');
    expect(missing.errors?.[0]).toMatchObject({
      message: 'Realm not found.',
      path: ['realm'],
      extensions: { code: 'NOT_FOUND', http: { status: 404 }, keycloak: { error: 'Realm not found.' } },
    });
    const master = await gql(`mutation { deleteRealm(name: "master") { ok ${USER_ERRORS} } }`);
    expect(userErrors(master, 'deleteRealm')).toEqual([{ field: null, code: 'BAD_REQUEST', message: "Can't remove master realm" }]);
  });

  test('malformed requests are 400s in GraphQL shape', async () => {
    const token = await ts.token();
    const bad = await request(ts.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send('{nope');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].extensions).toEqual({ code: 'BAD_REQUEST', http: { status: 400 } });
    const invalid = await gql('{ realm(name: "master") { nope } }');
    expect(invalid.errors?.[0].extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } });
    const wrongInput = await gql('mutation { createUser(realm: "master", input: { username: "x", unknownField: 1 }) { user { id } } }');
    expect(wrongInput.errors?.[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  test('every field of the full representation is readable, with the value and type REST returns', async () => {
    await api.post('/admin/realms', { realm: 'g3', enabled: true });
    expect((await api.post('/admin/realms/g3/groups', { name: 'everyone' })).status).toBe(201);
    const setup = await api.put('/admin/realms/g3', {
      displayName: 'G Three',
      displayNameHtml: '<b>G3</b>',
      passwordPolicy: 'length(8)',
      loginTheme: 'keycloak',
      accountTheme: 'keycloak.v3',
      adminTheme: 'keycloak.v2',
      emailTheme: 'keycloak',
      internationalizationEnabled: true,
      supportedLocales: ['en', 'de'],
      defaultLocale: 'en',
      maxSecondaryAuthFailures: 3,
      defaultGroups: ['/everyone'],
      eventsExpiration: 7200,
      smtpServer: { host: 'mail.example.com', port: '25', from: 'idp@example.com', auth: 'true', user: 'u', password: 'secret' },
    });
    expect(setup.status).toBe(204);
    const rest = (await api.get('/admin/realms/g3')).body;
    expect(rest.defaultGroups).toEqual(['/everyone']);

    const introspect = ok(
      await gql(`{ realm: __type(name: "Realm") { fields { name type { kind name ofType { kind name ofType { kind name } } } } }
        smtp: __type(name: "SmtpServer") { fields { name } } headers: __type(name: "BrowserSecurityHeaders") { fields { name } }
        role: __type(name: "Role") { fields { name } } }`),
    );
    const fields = new Set<string>(introspect.realm.fields.map((f: { name: string }) => f.name));
    const missing = Object.keys(rest).filter((k) => !fields.has(k));
    expect(missing).toEqual([]);

    const sub = (type: string) => `{ ${introspect[type].fields.map((f: { name: string }) => f.name).join(' ')} }`;
    const relations: Record<string, string> = {
      smtpServer: sub('smtp'),
      browserSecurityHeaders: sub('headers'),
      defaultRole: '{ id name description composite clientRole containerId }',
      defaultGroups: '{ path }',
      clientProfiles: '{ profiles { name } }',
      clientPolicies: '{ policies { name } }',
    };
    const selection = Object.keys(rest)
      .map((k) => `${k} ${relations[k] ?? ''}`)
      .join('\n');
    const read = ok(await gql(`{ realm(name: "g3") { ${selection} } }`)).realm;
    for (const [k, v] of Object.entries(rest)) {
      const got = read[k];
      const value =
        k === 'smtpServer' || k === 'browserSecurityHeaders' || k === 'defaultRole'
          ? strip(got)
          : k === 'sslRequired'
            ? got.toLowerCase()
            : got;
      if (k === 'defaultGroups') expect(got.map((g: { path: string }) => g.path)).toEqual(v);
      else expect({ [k]: value }).toEqual({ [k]: v });
    }
    expect(read.smtpServer.password).toBe('**********');
    expect(typeof read.accessTokenLifespan).toBe('number');
  });

  test('sslRequired is the enum SslRequired on GraphQL; REST takes any casing of a known value and refuses others', async () => {
    await api.post('/admin/realms', { realm: 'g6', enabled: true });
    const set = ok(await gql('mutation { updateRealm(name: "g6", input: { sslRequired: NONE }) { realm { sslRequired } } }'));
    expect(set.updateRealm.realm.sslRequired).toBe('NONE');
    expect((await api.get('/admin/realms/g6')).body.sslRequired).toBe('none');
    expect((await api.put('/admin/realms/g6', { sslRequired: 'ALL' })).status).toBe(204);
    expect((await api.get('/admin/realms/g6')).body.sslRequired).toBe('all');
    const bad = await api.put('/admin/realms/g6', { sslRequired: 'sometimes' });
    expect([bad.status, bad.body]).toEqual([400, { errorMessage: 'Invalid value for sslRequired: must be one of all, external, none' }]);
    expect((await api.get('/admin/realms/g6')).body.sslRequired).toBe('all');
    const created = await api.post('/admin/realms', { realm: 'g7', sslRequired: 'never' });
    expect(created.status).toBe(400);
    expect((await api.get('/admin/realms/g7')).status).toBe(404);
    const unknown = await gql('mutation { updateRealm(name: "g6", input: { sslRequired: "none" }) { realm { sslRequired } } }');
    expect(unknown.errors?.[0].extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  test('typed update round trip: what updateRealm stores, REST reads back', async () => {
    await api.post('/admin/realms', { realm: 'g4', enabled: true });
    const updated = ok(
      await gql(
        `mutation($input: RealmUpdateInput!) { updateRealm(name: "g4", input: $input) { realm {
          accessTokenLifespan enabled registrationAllowed supportedLocales bruteForceStrategy quickLoginCheckMilliSeconds attributes
          smtpServer { host port password } browserSecurityHeaders { xFrameOptions contentSecurityPolicy } } } }`,
        {
          input: {
            accessTokenLifespan: 120,
            enabled: false,
            registrationAllowed: true,
            supportedLocales: ['en', 'fr'],
            bruteForceStrategy: 'LINEAR',
            quickLoginCheckMilliSeconds: 2500,
            attributes: { custom: 'yes' },
            smtpServer: { host: 'smtp.example.org', port: '587', password: 'secret' },
            browserSecurityHeaders: { xFrameOptions: 'DENY' },
          },
        },
      ),
    ).updateRealm.realm;
    expect(updated).toMatchObject({
      accessTokenLifespan: 120,
      enabled: false,
      registrationAllowed: true,
      supportedLocales: ['en', 'fr'],
      bruteForceStrategy: 'LINEAR',
      quickLoginCheckMilliSeconds: 2500,
      smtpServer: { host: 'smtp.example.org', port: '587', password: '**********' },
    });
    expect(updated.attributes.custom).toBe('yes');
    const rest = (await api.get('/admin/realms/g4')).body;
    expect(rest).toMatchObject({
      accessTokenLifespan: 120,
      enabled: false,
      supportedLocales: ['en', 'fr'],
      bruteForceStrategy: 'LINEAR',
      smtpServer: { host: 'smtp.example.org', port: '587', password: '**********' },
      browserSecurityHeaders: { xFrameOptions: 'DENY' },
    });
    // As in Keycloak, the headers map sent replaces the stored one.
    expect(rest.browserSecurityHeaders).toEqual({ xFrameOptions: 'DENY' });
    expect(updated.browserSecurityHeaders).toEqual({ xFrameOptions: 'DENY', contentSecurityPolicy: null });
    // Every representation masks the SMTP password: only the table shows the secret was stored as sent.
    const stored = await ts.db.models.Realm.findOne({ where: { name: 'g4' } });
    expect((stored?.settings.smtpServer as { password?: string } | undefined)?.password).toBe('secret');
  });

  test('createRealm takes a typed input: realm required, nested collections imported', async () => {
    const created = ok(
      await gql(`mutation { createRealm(input: {
        realm: "g5", enabled: true, accessTokenLifespan: 90, registrationAllowed: true,
        roles: { realm: [{ name: "reader", description: "reads" }] },
        users: [{ username: "carol", enabled: true, realmRoles: ["reader"] }] }) { realm {
          name enabled accessTokenLifespan registrationAllowed defaultRole { name } } } }`),
    ).createRealm.realm;
    expect(created).toEqual({
      name: 'g5',
      enabled: true,
      accessTokenLifespan: 90,
      registrationAllowed: true,
      defaultRole: { name: 'default-roles-g5' },
    });
    expect((await api.get('/admin/realms/g5/roles/reader')).body.description).toBe('reads');
    expect((await api.get('/admin/realms/g5/users?username=carol&exact=true')).body).toHaveLength(1);

    const noName = await gql('mutation { createRealm(input: { enabled: true }) { realm { name } } }');
    expect(noName.errors?.[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  test('bad input is rejected by GraphQL validation and nothing is stored', async () => {
    await api.post('/admin/realms', { realm: 'g6', enabled: true });
    const before = (await api.get('/admin/realms/g6')).body;
    const literals = [
      '{ accessTokenLifespan: "abc" }',
      '{ accessTokenLifespan: 3000000000 }',
      '{ enabled: "str" }',
      '{ supportedLocales: [{ locale: "en" }] }',
      '{ smtpServer: { host: 5, nosuch: "x" } }',
      '{ displayName: "half", nosuchfield: 1 }',
      '{ keycloakVersion: "26.0.0" }',
    ];
    for (const input of literals) {
      const res = await gql(`mutation { updateRealm(name: "g6", input: ${input}) { realm { name } } }`);
      expect({ input, code: res.errors?.[0].extensions.code }).toEqual({ input, code: 'GRAPHQL_VALIDATION_FAILED' });
    }
    const variables = [{ accessTokenLifespan: 'abc' }, { enabled: 'str' }, { ssoSessionIdleTimeout: 1.5 }, { nosuchfield: 1 }];
    for (const input of variables) {
      const res = await gql('mutation($input: RealmUpdateInput!) { updateRealm(name: "g6", input: $input) { realm { name } } }', { input });
      expect({ input, code: res.errors?.[0].extensions.code, status: res.status }).toEqual({ input, code: 'BAD_USER_INPUT', status: 400 });
    }
    // Open maps are read as Keycloak reads them by the service: a Map<String, String> holds no objects.
    const nested = await gql(
      'mutation { updateRealm(name: "g6", input: { displayName: "half", attributes: { a: { b: 1 } } }) { realm { name } userErrors { field code message } } }',
    );
    expect(userErrors(nested, 'updateRealm')).toEqual([{ field: ['input'], code: 'BAD_REQUEST', message: 'Cannot parse the JSON' }]);
    expect((await api.get('/admin/realms/g6')).body).toEqual(before);

    const create = await gql('mutation { createRealm(input: { realm: "g7", enabled: "yes" }) { realm { name } } }');
    expect(create.errors?.[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect((await api.get('/admin/realms/g7')).status).toBe(404);
  });

  test('403 FORBIDDEN for a caller without the role', async () => {
    await createLoginUser(ts, 'master', 'plain', 'pw');
    const plain = gqlClient(ts, { username: 'plain', password: 'pw' });
    const res = await plain('mutation { createRealm(input: { realm: "nope2" }) { realm { name } } }');
    expect(res.errors?.[0]).toMatchObject({
      message: 'HTTP 403 Forbidden',
      extensions: { code: 'FORBIDDEN', http: { status: 403 }, keycloak: { error: 'HTTP 403 Forbidden' } },
    });
    const read = await plain('{ realm(name: "master") { name } }');
    expect(read.errors?.[0].extensions.code).toBe('FORBIDDEN');
  });
});
