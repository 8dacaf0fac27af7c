import request from 'supertest';
import { createLoginUser, createRealm, createUser } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

/**
 * PUT /admin/realms/{realm} and POST /admin/realms read the body as Keycloak's Jackson reads a
 * RealmRepresentation: a value of the wrong type is a 400 and nothing is stored; what Jackson coerces
 * ("60" for an int, "true" for a boolean, 5 for a string) is accepted and stored with the field's type.
 */
let ts: TestServer;
let api: AdminApi;

const CANNOT_PARSE = { error: 'unknown_error', error_description: 'Cannot parse the JSON' };
const UNREADABLE = { errorMessage: 'unable to read contents from stream' };

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  await createRealm(api, 'typed');
  await createUser(ts, 'typed', 'alice');
});
afterAll(() => ts.close());

const read = async (realm = 'typed') => {
  const res = await api.get(`/admin/realms/${realm}`);
  expect(res.status).toBe(200);
  return res.body;
};

/** A password grant of `alice` in realm `typed`: the decoded access token's claims. */
async function aliceToken(): Promise<Record<string, unknown>> {
  const res = await request(ts.app)
    .post('/realms/typed/protocol/openid-connect/token')
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username: 'alice', password: 'pw' });
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 200 });
  return JSON.parse(Buffer.from(String(res.body.access_token).split('.')[1], 'base64url').toString('utf8'));
}

describe('realm representation types', () => {
  test('PUT: a value of the wrong JSON type is 400 Cannot parse the JSON, and nothing is stored', async () => {
    const before = await read();
    const bad: Array<Record<string, unknown>> = [
      { accessTokenLifespan: 'abc' },
      { accessTokenLifespan: true },
      { accessTokenLifespan: { seconds: 60 } },
      { accessTokenLifespan: [60] },
      { accessTokenLifespan: 3000000000 },
      { accessTokenLifespan: '60.5' },
      { enabled: 'str' },
      { enabled: [] },
      { registrationAllowed: 'yes' },
      { displayName: { en: 'x' } },
      { displayName: ['x'] },
      { supportedLocales: 'en' },
      { supportedLocales: [{ locale: 'en' }] },
      { attributes: 'x' },
      { attributes: { nested: { a: 1 } } },
      { smtpServer: { host: { name: 'mail' } } },
      { smtpServer: ['mail'] },
      { browserSecurityHeaders: { xFrameOptions: ['DENY'] } },
      { bruteForceStrategy: 'SOMETIMES' },
      { quickLoginCheckMilliSeconds: 'soon' },
      { defaultRole: 'default-roles-typed' },
      { clientPolicies: { policies: 'none' } },
      // The first field is fine, the second is not: the whole body is refused.
      { displayName: 'Half stored?', ssoSessionIdleTimeout: 'long' },
    ];
    for (const body of bad) {
      const res = await api.put('/admin/realms/typed', body);
      expect({ body, status: res.status, res: res.body }).toEqual({ body, status: 400, res: CANNOT_PARSE });
    }
    expect(await read()).toEqual(before);
  });

  test('after a refused PUT reads and tokens still work', async () => {
    expect((await api.put('/admin/realms/typed', { accessTokenLifespan: 'abc' })).status).toBe(400);
    expect((await read()).accessTokenLifespan).toBe(300);
    const claims = await aliceToken();
    expect(claims.exp).toBe((claims.iat as number) + 300);
    expect((await api.get('/admin/realms')).status).toBe(200);
  });

  test('PUT: values Jackson coerces are accepted and stored with the field type', async () => {
    const res = await api.put('/admin/realms/typed', {
      accessTokenLifespan: '120',
      ssoSessionIdleTimeout: 1900.7,
      enabled: 'true',
      registrationAllowed: 'false',
      displayName: 5,
      attributes: { answer: 42, flag: true, text: 'x' },
      smtpServer: { host: 'mail.example.com', port: 587, ssl: false },
      quickLoginCheckMilliSeconds: '2000',
      bruteForceStrategy: 'LINEAR',
      eventsExpiration: '3600',
    });
    expect(res.status).toBe(204);
    const got = await read();
    expect(got).toMatchObject({
      accessTokenLifespan: 120,
      ssoSessionIdleTimeout: 1900,
      enabled: true,
      registrationAllowed: false,
      displayName: '5',
      smtpServer: { host: 'mail.example.com', port: '587', ssl: 'false' },
      quickLoginCheckMilliSeconds: 2000,
      bruteForceStrategy: 'LINEAR',
      eventsExpiration: 3600,
    });
    expect(got.attributes).toMatchObject({ answer: '42', flag: 'true', text: 'x' });
    const claims = await aliceToken();
    expect(claims.exp).toBe((claims.iat as number) + 120);
  });

  test('PUT: null and empty strings for numbers and booleans keep the stored value', async () => {
    await api.put('/admin/realms/typed', { accessTokenLifespan: 130, verifyEmail: true });
    expect((await api.put('/admin/realms/typed', { accessTokenLifespan: '', verifyEmail: null })).status).toBe(204);
    expect(await read()).toMatchObject({ accessTokenLifespan: 130, verifyEmail: true });
  });

  test('PUT: the full representation a GET returns is accepted back unchanged', async () => {
    const before = await read();
    expect((await api.put('/admin/realms/typed', before)).status).toBe(204);
    expect(await read()).toEqual(before);
  });

  test('PUT: an unknown field is 400 with the Jackson message, line and column; nested ones name their class', async () => {
    const res = await api.put('/admin/realms/typed').set('Content-Type', 'application/json').send('{"nosuchfield":true}');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'Invalid json representation for RealmRepresentation. Unrecognized field "nosuchfield" at line 1 column 20.',
    });
    const nested = await api
      .put('/admin/realms/typed')
      .set('Content-Type', 'application/json')
      .send('{\n  "displayName": "x",\n  "defaultRole": {"name": "r", "bogus": "y"}\n}');
    expect(nested.body).toEqual({
      error: 'Invalid json representation for RoleRepresentation. Unrecognized field "bogus" at line 3 column 44.',
    });
    expect((await read()).displayName).not.toBe('x');
  });

  test('PUT: a body that is not an object is 400 Cannot parse the JSON', async () => {
    for (const body of ['[]', '"realm"', '42']) {
      const res = await api.put('/admin/realms/typed').set('Content-Type', 'application/json').send(body);
      expect({ body, status: res.status, res: res.body }).toEqual({ body, status: 400, res: CANNOT_PARSE });
    }
  });

  test('PUT: a type error is a 400 before the permission check, as Keycloak reads the body first', async () => {
    await createLoginUser(ts, 'master', 'nobody', 'pw');
    const plain = await ts.api({ username: 'nobody', password: 'pw' });
    expect((await plain.put('/admin/realms/typed', { accessTokenLifespan: 'abc' })).body).toEqual(CANNOT_PARSE);
    expect((await plain.put('/admin/realms/typed', { accessTokenLifespan: 60 })).status).toBe(403);
  });

  test('POST: a wrong type is 400 unable to read contents from stream, and no realm is created', async () => {
    const bad: Array<Record<string, unknown>> = [
      { realm: 'bad1', enabled: 'str' },
      { realm: 'bad2', accessTokenLifespan: 'abc' },
      { realm: 'bad3', attributes: { a: { b: 1 } } },
      { realm: 'bad4', users: [{ username: 'u', enabled: 'maybe' }] },
      { realm: 'bad5', clients: 'account' },
      { realm: 'bad6', nosuchfield: 1 },
      { realm: 'bad7', users: [{ username: 'u', nosuchfield: 1 }] },
    ];
    for (const body of bad) {
      const res = await api.post('/admin/realms', body);
      expect({ body, status: res.status, res: res.body }).toEqual({ body, status: 400, res: UNREADABLE });
      expect((await api.get(`/admin/realms/${body.realm}`)).status).toBe(404);
    }
  });

  test('POST: values Jackson coerces are accepted and stored with the field type', async () => {
    const res = await api.post('/admin/realms', {
      realm: 'coerced',
      enabled: 'true',
      accessTokenLifespan: '90',
      failureFactor: 5.0,
      attributes: { n: 1 },
      users: [{ username: 'bob', enabled: 'true', credentials: [{ type: 'password', value: 'pw', temporary: 'false' }] }],
    });
    expect(res.status).toBe(201);
    const got = await read('coerced');
    expect(got).toMatchObject({ enabled: true, accessTokenLifespan: 90, failureFactor: 5 });
    expect(got.attributes.n).toBe('1');
    const bob = (await api.get('/admin/realms/coerced/users?username=bob&exact=true')).body[0];
    expect(bob.enabled).toBe(true);
  });

  test('POST: a number as the realm name is that name as text, as Jackson reads a String field', async () => {
    const res = await api.post('/admin/realms', { realm: 4711, enabled: true });
    expect(res.status).toBe(201);
    expect((await read('4711')).realm).toBe('4711');
    const object = await api.post('/admin/realms', { realm: { name: 'x' } });
    expect([object.status, object.body]).toEqual([400, { errorMessage: 'unable to read contents from stream' }]);
  });
});
