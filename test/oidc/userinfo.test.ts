import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import request from 'supertest';
import { advanceClock, resetClock } from '../helpers/sessions';
import { startTestServer, type TestServer } from '../helpers/server';
import { type RpFixture, rpFixture } from './rp-fixture';

/** GET|POST /realms/{realm}/protocol/openid-connect/userinfo (issue 14), as Keycloak answers it. */

let ts: TestServer;
let f: RpFixture;
const R = 'userinfo-rp';

beforeAll(async () => {
  ts = await startTestServer();
  f = await rpFixture(ts, R);
});
afterAll(() => ts.close());
afterEach(() => resetClock());

const get = (token?: string) => {
  const r = request(ts.app).get(f.endpoint('userinfo'));
  return token === undefined ? r : r.set('Authorization', `Bearer ${token}`);
};
const challenge = (error?: string, description?: string) =>
  [`Bearer realm="${R}"`, ...(error ? [`error="${error}"`] : []), ...(description ? [`error_description="${description}"`] : [])].join(
    ', ',
  );

/** A refused userinfo request: the status, Keycloak's Bearer challenge and no body. */
function expectChallenge(res: request.Response, status: number, error?: string, description?: string): void {
  expect([res.status, res.headers['www-authenticate'], res.text]).toEqual([status, challenge(error, description), '']);
}

describe('userinfo', () => {
  test('a GET with the Bearer header answers the user claims of the mappers, sub first, as JSON; the event is recorded', async () => {
    const t = await f.login({ scope: 'openid' });
    const res = await get(t.access_token);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toEqual({
      sub: f.alice,
      email_verified: false,
      name: 'Alice Liddell',
      preferred_username: 'alice',
      given_name: 'Alice',
      family_name: 'Liddell',
      email: 'alice@example.org',
      acr: '1',
    });
    // Role mappers are access-token only: no roles in userinfo.
    expect(res.body.realm_access).toBeUndefined();
    const [ev] = await f.events('USER_INFO_REQUEST');
    expect(ev).toMatchObject({ clientId: 'web', userId: f.alice, sessionId: t.session_state });
    expect(ev.details).toEqual({ auth_method: 'validate_access_token', username: 'alice', signature_required: 'false' });
  });

  test('a POST takes the token from the header or from the access_token form parameter, not both', async () => {
    const t = await f.login({ scope: 'openid' });
    const viaForm = await request(ts.app).post(f.endpoint('userinfo')).type('form').send({ access_token: t.access_token });
    expect([viaForm.status, viaForm.body.sub]).toEqual([200, f.alice]);
    const viaHeader = await request(ts.app).post(f.endpoint('userinfo')).set('Authorization', `Bearer ${t.access_token}`);
    expect([viaHeader.status, viaHeader.body.sub]).toEqual([200, f.alice]);
    const both = await request(ts.app)
      .post(f.endpoint('userinfo'))
      .set('Authorization', `Bearer ${t.access_token}`)
      .type('form')
      .send({ access_token: t.access_token });
    expectChallenge(both, 400, 'invalid_request', 'More than one method used for including an access token');
    const twice = await request(ts.app).post(f.endpoint('userinfo')).type('form').send(`access_token=${t.access_token}&access_token=x`);
    expectChallenge(twice, 400, 'invalid_request', 'Duplicate parameter');
  });

  test('no token is a bare Bearer challenge (RFC 6750 §3.1), recorded as an invalid_token error', async () => {
    expectChallenge(await get(), 401);
    expectChallenge(await get().set('Authorization', 'Basic d2ViOndlYi1zZWNyZXQ='), 401);
    const [ev] = await f.events('USER_INFO_REQUEST_ERROR');
    expect(ev).toMatchObject({ error: 'invalid_token', details: { reason: 'Missing token', auth_method: 'validate_access_token' } });
  });

  test('a token that does not verify is invalid_token "Token verification failed"', async () => {
    expectChallenge(await get('not-a-jwt'), 401, 'invalid_token', 'Token verification failed');
    const t = await f.login({ scope: 'openid' });
    const [h, p] = t.access_token.split('.');
    expectChallenge(await get(`${h}.${p}.${'A'.repeat(40)}`), 401, 'invalid_token', 'Token verification failed');
    // A token of another realm (master's admin) does not verify here.
    const master = await request(ts.app)
      .post('/realms/master/protocol/openid-connect/token')
      .type('form')
      .send({ grant_type: 'password', client_id: 'admin-cli', username: 'admin', password: 'admin', scope: 'openid' });
    expectChallenge(await get(master.body.access_token), 401, 'invalid_token', 'Token verification failed');
    // The refresh token is not an access token.
    expectChallenge(await get(t.refresh_token), 401, 'invalid_token', 'Token verification failed');
  });

  test('an expired token is refused', async () => {
    const t = await f.login({ scope: 'openid' });
    advanceClock(301);
    expectChallenge(await get(t.access_token), 401, 'invalid_token', 'Token verification failed');
  });

  test('a token without the openid scope is insufficient_scope (403)', async () => {
    const t = await f.login();
    expectChallenge(await get(t.access_token), 403, 'insufficient_scope', 'Missing openid scope');
    const [ev] = await f.events('USER_INFO_REQUEST_ERROR');
    expect(ev).toMatchObject({ error: 'access_denied' });
  });

  test('a session logged out through the admin API ends userinfo for its tokens', async () => {
    const t = await f.login({ scope: 'openid' });
    expect((await get(t.access_token)).status).toBe(200);
    expect((await f.admin.delete(`/admin/realms/${R}/sessions/${t.session_state}`)).status).toBe(204);
    expectChallenge(await get(t.access_token), 401, 'invalid_token', 'user_session_not_found');
    const [ev] = await f.events('USER_INFO_REQUEST_ERROR');
    expect(ev).toMatchObject({ error: 'user_session_not_found', clientId: 'web', sessionId: t.session_state });
  });

  test('an idle session is session_expired', async () => {
    const client = (await f.admin.get(`/admin/realms/${R}/clients/${f.ids.other}`)).body;
    const longLived = { ...client, attributes: { ...client.attributes, 'access.token.lifespan': '7200' } };
    expect((await f.admin.put(`/admin/realms/${R}/clients/${f.ids.other}`, longLived)).status).toBe(204);
    try {
      // The token outlives the session, which idles out after 30 minutes.
      const t = await f.login({ scope: 'openid' }, 'other');
      advanceClock(1801);
      expectChallenge(await get(t.access_token), 401, 'invalid_token', 'session_expired');
    } finally {
      resetClock(); // the admin's own session idled out too
      expect((await f.admin.put(`/admin/realms/${R}/clients/${f.ids.other}`, client)).status).toBe(204);
    }
  });

  test('a disabled user and a disabled client are refused', async () => {
    const t = await f.login({ scope: 'openid' });
    const user = (await f.admin.get(`/admin/realms/${R}/users/${f.alice}`)).body;
    expect((await f.admin.put(`/admin/realms/${R}/users/${f.alice}`, { ...user, enabled: false })).status).toBe(204);
    try {
      expectChallenge(await get(t.access_token), 401, 'invalid_token', 'User disabled');
    } finally {
      expect((await f.admin.put(`/admin/realms/${R}/users/${f.alice}`, { ...user, enabled: true })).status).toBe(204);
    }
    const client = (await f.admin.get(`/admin/realms/${R}/clients/${f.ids.other}`)).body;
    const o = await f.login({ scope: 'openid' }, 'other');
    expect((await f.admin.put(`/admin/realms/${R}/clients/${f.ids.other}`, { ...client, enabled: false })).status).toBe(204);
    try {
      expectChallenge(await get(o.access_token), 401, 'invalid_token', 'Client disabled');
    } finally {
      expect((await f.admin.put(`/admin/realms/${R}/clients/${f.ids.other}`, { ...client, enabled: true })).status).toBe(204);
    }
  });

  test("the client's mappers decide: userinfo.token.claim true puts the claim in, false leaves it in the access token only", async () => {
    const mapper = (name: string, userinfo: string) => ({
      name,
      protocol: 'openid-connect',
      protocolMapper: 'oidc-hardcoded-claim-mapper',
      config: {
        'claim.name': name,
        'claim.value': `${name}-value`,
        'jsonType.label': 'String',
        'access.token.claim': 'true',
        'id.token.claim': 'false',
        'userinfo.token.claim': userinfo,
      },
    });
    for (const m of [mapper('shown', 'true'), mapper('hidden', 'false')]) {
      expect((await f.admin.post(`/admin/realms/${R}/clients/${f.ids.other}/protocol-mappers/models`, m)).status).toBe(201);
    }
    const t = await f.login({ scope: 'openid' }, 'other');
    expect(decodeJwt(t.access_token)).toMatchObject({ shown: 'shown-value', hidden: 'hidden-value' });
    const res = await get(t.access_token);
    expect(res.status).toBe(200);
    expect(res.body.shown).toBe('shown-value');
    expect(res.body).not.toHaveProperty('hidden');
  });

  test('a client asking for signed userinfo gets a JWT signed with the realm key: iss, aud and the claims', async () => {
    const client = (await f.admin.get(`/admin/realms/${R}/clients/${f.ids.web}`)).body;
    const signed = { ...client, attributes: { ...client.attributes, 'user.info.response.signature.alg': 'RS256' } };
    expect((await f.admin.put(`/admin/realms/${R}/clients/${f.ids.web}`, signed)).status).toBe(204);
    try {
      const t = await f.login({ scope: 'openid' });
      const res = await get(t.access_token)
        .buffer(true)
        .parse((r, cb) => {
          let text = '';
          r.on('data', (c: Buffer) => {
            text += c.toString();
          });
          r.on('end', () => cb(null, text));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/jwt/);
      const jwt = res.body as string;
      const header = decodeProtectedHeader(jwt);
      expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
      const jwks = await request(ts.app).get(f.endpoint('certs'));
      const jwk = jwks.body.keys.find((k: { kid: string }) => k.kid === header.kid);
      const { payload } = await jwtVerify(jwt, await importJWK(jwk, 'RS256'));
      expect(payload).toMatchObject({ sub: f.alice, iss: `http://localhost:8080/realms/${R}`, aud: 'web', preferred_username: 'alice' });
      const [ev] = await f.events('USER_INFO_REQUEST');
      expect(ev.details).toMatchObject({ signature_required: 'true', signature_algorithm: 'RS256' });
    } finally {
      expect((await f.admin.put(`/admin/realms/${R}/clients/${f.ids.web}`, client)).status).toBe(204);
    }
  });

  test("CORS: the client's web origins may read the answer, others not; any origin may read an error before the client is known", async () => {
    const t = await f.login({ scope: 'openid' });
    const ok = await get(t.access_token).set('Origin', 'https://app.example');
    expect([ok.status, ok.headers['access-control-allow-origin'], ok.headers['access-control-allow-credentials']]).toEqual([
      200,
      'https://app.example',
      'true',
    ]);
    const foreign = await get(t.access_token).set('Origin', 'https://evil.example');
    expect([foreign.status, foreign.headers['access-control-allow-origin']]).toEqual([200, undefined]);
    const refused = await get('garbage').set('Origin', 'https://evil.example');
    expect(refused.headers['access-control-allow-origin']).toBe('https://evil.example');
    const pre = await request(ts.app)
      .options(f.endpoint('userinfo'))
      .set('Origin', 'https://app.example')
      .set('Access-Control-Request-Method', 'GET');
    expect([pre.status, pre.headers['access-control-allow-origin']]).toEqual([200, 'https://app.example']);
  });

  test('an unknown realm is 404; a NUL character in the header is a 400, never a 500', async () => {
    const res = await request(ts.app).get('/realms/no-such-realm/protocol/openid-connect/userinfo').set('Authorization', 'Bearer x');
    expect([res.status, res.body]).toEqual([404, { error: 'Realm does not exist' }]);
    const nul = await request(ts.app).post(f.endpoint('userinfo')).type('form').send('access_token=a%00b');
    expect(nul.status).toBe(400);
  });
});
