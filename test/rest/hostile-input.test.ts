import request from 'supertest';
import { gqlClient } from '../graphql/gql';
import { realmServer } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';

/**
 * Input no client should send, answered with a 4xx and no trace (issue 10): paths that do not
 * percent-decode, numbers out of a Java Integer's range, NUL characters and unpaired surrogates,
 * nesting deeper than Jackson reads, malformed Basic credentials. Each was a 500 before.
 */
const R = 'hostile';
let ts: TestServer;
let api: AdminApi;
const base = `/admin/realms/${R}`;
const BAD_TEXT = { error: 'invalid_request', error_description: 'Text must not contain NUL characters or unpaired surrogates' };

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
});
afterAll(() => ts.close());

const userCount = async () => Number((await api.get(`${base}/users/count`)).body);

test('a path parameter that does not percent-decode is a 400, on every kind of route', async () => {
  for (const path of [`${base}/users/%zz`, `${base}/roles/%E0%A4%A`, `${base}/clients/%zz/roles`, `${base}/groups/a%`]) {
    const res = await api.get(path);
    expect([path, res.status, res.body]).toEqual([path, 400, { error: 'HTTP 400 Bad Request' }]);
  }
});

test('a paging number beyond a Java Integer is the 404 of a failed JAX-RS conversion', async () => {
  for (const q of ['first=99999999999999999999', 'max=2147483648', 'first=-2147483649']) {
    const res = await api.get(`${base}/users?${q}`);
    expect([q, res.status, res.body]).toEqual([q, 404, { error: 'HTTP 404 Not Found' }]);
  }
  expect((await api.get(`${base}/users?first=2147483647`)).body).toEqual([]);
});

test('NUL and unpaired surrogates in bodies, paths and queries are 400s and nothing is written', async () => {
  const before = await userCount();
  expect(await api.post(`${base}/users`, { username: 'a\u0000b' }).then((r) => [r.status, r.body])).toEqual([400, BAD_TEXT]);
  expect(await api.post(`${base}/users`, { username: 'ok', attributes: { 'k\u0000': ['v'] } }).then((r) => r.status)).toBe(400);
  expect(await userCount()).toBe(before);

  const lone = await api.post(`${base}/roles`, { name: 'r\ud800x' });
  expect([lone.status, lone.body]).toEqual([400, BAD_TEXT]);
  expect((await api.get(`${base}/roles`)).body.map((r: { name: string }) => r.name)).not.toContain('r\ud800x');

  expect((await api.get(`${base}/users?search=%00`)).status).toBe(400);
  expect((await api.get(`${base}/roles/a%00b`)).body).toEqual(BAD_TEXT);
  // A pair of surrogates is one character: accepted.
  expect((await api.post(`${base}/roles`, { name: 'emoji-\ud83d\ude00' })).status).toBe(201);
});

test('a body nested deeper than Jackson reads (1,000 levels) is a 400; 900 levels are read', async () => {
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const deep = await api
    .post(`${base}/users`)
    .set('Content-Type', 'application/json')
    .send(`{"username":"deep","attributes":{"x":[${nested(20_000)}]}}`);
  expect([deep.status, deep.body]).toEqual([400, { error: 'invalid_request', error_description: 'Cannot parse the JSON' }]);
  expect((await api.get(`${base}/users?username=deep&exact=true`)).body).toEqual([]);
  // Within the limit the body is read, then refused as Keycloak refuses it: attributes hold strings.
  const within = await api
    .post(`${base}/users`)
    .set('Content-Type', 'application/json')
    .send(`{"username":"deep","attributes":{"x":[${nested(900)}]}}`);
  expect([within.status, within.body]).toEqual([400, { error: 'unknown_error', error_description: 'Cannot parse the JSON' }]);
});

test('the token endpoint: a Basic header that does not decode is an invalid client, NUL in the form a 400', async () => {
  const token = `/realms/${R}/protocol/openid-connect/token`;
  const basic = await request(ts.app)
    .post(token)
    .set('Authorization', `Basic ${Buffer.from('%zz:%zz').toString('base64')}`)
    .type('form')
    .send({ grant_type: 'client_credentials' });
  expect([basic.status, basic.body.error]).toEqual([401, 'invalid_client']);
  const nul = await request(ts.app)
    .post(token)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username: 'a\u0000', password: 'x' });
  expect([nul.status, nul.body]).toEqual([400, BAD_TEXT]);
});

test('GraphQL: NUL in a variable or a literal is refused before anything runs', async () => {
  const gql = gqlClient(ts);
  const before = await userCount();
  const viaVariable = await gql(`mutation($u: String!) { createUser(realm: "${R}", input: { username: $u }) { user { id } } }`, {
    u: 'x\u0000y',
  });
  expect([viaVariable.status, viaVariable.errors?.[0].extensions.code]).toEqual([400, 'BAD_USER_INPUT']);
  const viaLiteral = await gql(`mutation { createUser(realm: "${R}", input: { username: "x\\u0000y" }) { user { id } } }`);
  expect([viaLiteral.status, viaLiteral.errors?.[0].message]).toEqual([
    400,
    'Text must not contain NUL characters or unpaired surrogates.',
  ]);
  expect(await userCount()).toBe(before);
});

test('a JSON body without a JSON Content-Type is a 415, with none at all too', async () => {
  const body = JSON.stringify({ name: 'typed-role' });
  const none = await api.post(`${base}/roles`).unset('Content-Type').send(Buffer.from(body));
  expect([none.status, none.body]).toEqual([415, { error: 'HTTP 415 Unsupported Media Type' }]);
  const text = await api.post(`${base}/roles`).set('Content-Type', 'text/plain').send(body);
  expect([text.status, text.body]).toEqual([415, { error: 'The content-type header value did not match the value in @Consumes' }]);
  expect((await api.get(`${base}/roles/typed-role`)).status).toBe(404);
});

test('maps hold what Keycloak declares: objects in string maps are refused, scalars coerced to text', async () => {
  const clients = `${base}/clients`;
  const nested = await api.post(clients, { clientId: 'typed-attrs', attributes: { x: { b: [] } } });
  expect([nested.status, nested.body]).toEqual([400, { error: 'unknown_error', error_description: 'Cannot parse the JSON' }]);
  expect((await api.get(`${clients}?clientId=typed-attrs`)).body).toEqual([]);
  expect((await api.post(clients, { clientId: 'typed-attrs', attributes: { 'pkce.code.challenge.method': 5 } })).status).toBe(201);
  const [client] = (await api.get(`${clients}?clientId=typed-attrs`)).body;
  expect(client.attributes['pkce.code.challenge.method']).toBe('5');
  const mapper = { name: 'm', protocol: 'openid-connect', protocolMapper: 'oidc-hardcoded-claim-mapper' };
  const badConfig = await api.post(`${clients}/${client.id}/protocol-mappers/models`, { ...mapper, config: { 'claim.name': ['a'] } });
  expect(badConfig.status).toBe(400);
  const component = { name: 'k', providerId: 'rsa-generated', providerType: 'org.keycloak.keys.KeyProvider' };
  expect((await api.post(`${base}/components`, { ...component, config: { priority: { x: 1 } } })).status).toBe(400);
  expect((await api.get(`${base}/components?name=k`)).body).toEqual([]);
});

test('a value longer than its column is a 400 on both databases, and nothing is written', async () => {
  const long = await api.post(`${base}/roles`, { name: 'r'.repeat(256) });
  expect([long.status, long.body]).toEqual([400, { error: 'invalid_request', error_description: 'name is longer than 255 characters' }]);
  expect((await api.get(`${base}/roles`)).body.some((r: { name: string }) => r.name.length > 255)).toBe(false);
  const huge = await api.post(`${base}/clients`, { clientId: 'c'.repeat(65_536) });
  expect(huge.status).toBe(400);
  expect((await api.get(`${base}/clients?clientId=${'c'.repeat(300)}&search=true`)).body).toEqual([]);
  // The limit counts characters as MariaDB does: 255 emoji (510 UTF-16 units) fit.
  const emoji = '\ud83d\ude00'.repeat(255);
  expect((await api.post(`${base}/roles`, { name: emoji })).status).toBe(201);
  const gql = gqlClient(ts);
  const viaGql = await gql(
    `mutation($n: String!) { createRole(realm: "${R}", input: { name: $n }) { role { id } userErrors { code message } } }`,
    {
      n: 'g'.repeat(300),
    },
  );
  expect(viaGql.data?.createRole).toEqual({
    role: null,
    userErrors: [{ code: 'BAD_REQUEST', message: 'name is longer than 255 characters' }],
  });
});

// Found by the fuzz suite (test/fuzz/routes.fuzz.test.ts); each was a 500.

test('an unknown field whose name is 70,000 characters long is the usual 400', async () => {
  const name = 'x'.repeat(70_000);
  const upToValue = `{"name":"long-key","${name}":1`;
  const res = await api.post(`${base}/roles`).set('Content-Type', 'application/json').send(`${upToValue}}`);
  expect(res.status).toBe(400);
  // Jackson's column: just after the value's token.
  expect(res.body.error).toBe(
    `Invalid json representation for RoleRepresentation. Unrecognized field "${name}" at line 1 column ${upToValue.length + 1}.`,
  );
  expect((await api.get(`${base}/roles/long-key`)).status).toBe(404);
});

test("a provider type named like an object's own property (valueOf, constructor) is no provider type", async () => {
  const noSuch = { error: 'Invalid provider type or no such provider' };
  for (const providerType of ['valueOf', 'constructor', '__proto__']) {
    const res = await api.post(`${base}/components`, { name: 'p', providerId: 'rsa-generated', providerType });
    expect([providerType, res.status, res.body]).toEqual([providerType, 400, noSuch]);
  }
  const key = { name: 'proto-key', providerId: 'rsa-generated', providerType: 'org.keycloak.keys.KeyProvider' };
  const id = String((await api.post(`${base}/components`, key)).headers.location)
    .split('/')
    .pop();
  const put = await api.put(`${base}/components/${id}`, { ...key, providerType: 'valueOf' });
  expect([put.status, put.body]).toEqual([400, noSuch]);
  expect((await api.get(`${base}/components/${id}`)).body.providerType).toBe('org.keycloak.keys.KeyProvider');
  expect((await api.get(`${base}/components/${id}/sub-component-types?type=valueOf`)).body).toEqual([]);
});

test('NUL in a text/plain body (a localization value, a credential label) is a 400 and nothing is written', async () => {
  const text = await api.put(`${base}/localization/en/nul-key`).set('Content-Type', 'text/plain').send('a\u0000b');
  expect([text.status, text.body]).toEqual([400, BAD_TEXT]);
  expect((await api.get(`${base}/localization/en/nul-key`)).status).toBe(404);
  const user = String(
    (await api.post(`${base}/users`, { username: 'labelled', credentials: [{ type: 'password', value: 'pw' }] })).headers.location,
  )
    .split('/')
    .pop();
  const [cred] = (await api.get(`${base}/users/${user}/credentials`)).body;
  const label = await api.put(`${base}/users/${user}/credentials/${cred.id}/userLabel`).set('Content-Type', 'text/plain').send('x\u0000');
  expect([label.status, label.body]).toEqual([400, BAD_TEXT]);
  expect((await api.get(`${base}/users/${user}/credentials`)).body[0].userLabel).toBeUndefined();
});

test('client-description-converter: a description it cannot read is a 400 (Keycloak answers 500)', async () => {
  const convert = (body: string, type = 'application/json') =>
    api
      .post(`${base}/client-description-converter`)
      .set('Content-Type', type)
      .send(body)
      .then((r) => [r.status, r.body]);
  expect(await convert('{"redirect_uris": [1,}')).toEqual([400, { error: 'invalid_request', error_description: 'Cannot parse the JSON' }]);
  const mapping = [400, { error: 'unknown_error', error_description: 'Cannot parse the JSON' }];
  expect(await convert('{"redirect_uris": [], "client_id": {"toString": 1}}')).toEqual(mapping);
  expect(await convert('{"redirect_uris": [{"toString": []}]}', 'text/plain')).toEqual(mapping);
  const deep = `{"redirect_uris": [], "jwks": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
  expect(await convert(deep)).toEqual([400, { error: 'invalid_request', error_description: 'Cannot parse the JSON' }]);
  expect(await convert('<EntityDescriptor>', 'application/xml')).toEqual([400, { error: 'Unsupported format' }]);
  // A binding named like an object's own property is no binding (it became an attribute named after a function).
  const odd = await convert(
    '<EntityDescriptor entityID="sp"><SPSSODescriptor><SingleLogoutService Binding="constructor" Location="https://sp/slo"/></SPSSODescriptor></EntityDescriptor>',
    'application/xml',
  );
  expect(odd[0]).toBe(200);
  expect(Object.keys((odd[1] as { attributes: object }).attributes).some((k) => k.includes('function'))).toBe(false);
});

test('testSMTPConnection reads a map of strings: an object value is the 400 of a JSON mapping error', async () => {
  const res = await api.post(`${base}/testSMTPConnection`, { host: 'localhost', from: 'a@b.c', auth: { toString: [] } });
  expect([res.status, res.body]).toEqual([400, { error: 'unknown_error', error_description: 'Cannot parse the JSON' }]);
});
