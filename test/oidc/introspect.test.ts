import { decodeJwt } from 'jose';
import request from 'supertest';
import { createClient, createRealm } from '../helpers/fixtures';
import { advanceClock, resetClock } from '../helpers/sessions';
import { startTestServer, type TestServer } from '../helpers/server';
import { basic, type RpFixture, rpFixture } from './rp-fixture';

/** POST /realms/{realm}/protocol/openid-connect/token/introspect (RFC 7662, issue 14), as Keycloak answers it. */

let ts: TestServer;
let f: RpFixture;
const R = 'introspect-rp';

beforeAll(async () => {
  ts = await startTestServer();
  f = await rpFixture(ts, R);
});
afterAll(() => ts.close());
afterEach(() => resetClock());

const introspect = (form: Record<string, string> | string, auth: string | null = basic('web', 'web-secret')) => {
  const r = request(ts.app).post(f.endpoint('token/introspect')).type('form');
  if (auth) r.set('Authorization', auth);
  return r.send(form);
};

describe('token introspection', () => {
  test("an active access token: its claims, the introspection mappers' claims, client_id, username, token_type", async () => {
    const t = await f.login();
    const access = decodeJwt(t.access_token);
    const res = await introspect({ token: t.access_token });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({
      exp: access.exp,
      iat: access.iat,
      jti: access.jti,
      iss: `http://localhost:8080/realms/${R}`,
      sub: f.alice,
      typ: 'Bearer',
      azp: 'web',
      sid: t.session_state,
      scope: 'profile email',
      preferred_username: 'alice',
      email: 'alice@example.org',
      realm_access: { roles: expect.arrayContaining(['offline_access', 'uma_authorization']) },
      client_id: 'web',
      username: 'alice',
      token_type: 'Bearer',
      active: true,
    });
    const [ev] = await f.events('INTROSPECT_TOKEN');
    expect(ev).toMatchObject({ clientId: 'web', userId: f.alice, sessionId: t.session_state });
    expect(ev.details).toMatchObject({ token_id: access.jti, token_type: 'Bearer', token_issued_for: 'web' });
  });

  test('any confidential client may introspect, with Basic or form credentials; a public client may not', async () => {
    const t = await f.login();
    const other = await introspect({ token: t.access_token }, basic('other', 'other-secret'));
    expect([other.status, other.body.active, other.body.client_id]).toEqual([200, true, 'web']);
    const post = await introspect({ token: t.access_token, client_id: 'other', client_secret: 'other-secret' }, null);
    expect([post.status, post.body.active]).toEqual([200, true]);
    const pub = await introspect({ token: t.access_token, client_id: 'spa' }, null);
    expect([pub.status, pub.body]).toEqual([403, { error: 'invalid_request', error_description: 'Client not allowed.' }]);
  });

  test('a bearer-only confidential client may introspect', async () => {
    await createClient(f.admin, R, { clientId: 'api', bearerOnly: true, publicClient: false, secret: 'api-secret' });
    const rep = (await f.admin.get(`/admin/realms/${R}/clients?clientId=api`)).body[0];
    let secret: string = rep.secret;
    if (!secret) {
      const made = await f.admin.post(`/admin/realms/${R}/clients/${rep.id}/client-secret`);
      secret = made.body.value;
    }
    const t = await f.login();
    const res = await introspect({ token: t.access_token }, basic('api', secret));
    expect([res.status, res.body.active]).toEqual([200, true]);
  });

  test.each([
    ['no credentials', null, 401, { error: 'invalid_client', error_description: 'Invalid client or Invalid client credentials' }],
    [
      'an unknown client',
      basic('nobody', 'x'),
      401,
      { error: 'invalid_client', error_description: 'Invalid client or Invalid client credentials' },
    ],
    [
      'a wrong secret',
      basic('web', 'wrong'),
      401,
      { error: 'unauthorized_client', error_description: 'Invalid client or Invalid client credentials' },
    ],
  ])('%s is refused', async (_what, auth, status, body) => {
    const res = await introspect({ token: 'x' }, auth);
    expect([res.status, res.body]).toEqual([status, body]);
  });

  test('a missing token, an unknown hint and a repeated parameter are invalid_request', async () => {
    const bad = (description: string) => ({ error: 'invalid_request', error_description: description });
    const none = await introspect({});
    expect([none.status, none.body]).toEqual([400, bad('Token not provided.')]);
    const hint = await introspect({ token: 'x', token_type_hint: 'id_token' });
    expect([hint.status, hint.body]).toEqual([400, bad('Unsupported token type [id_token].')]);
    const twice = await introspect('token=a&token=b');
    expect([twice.status, twice.body]).toEqual([400, bad('duplicated parameter')]);
    const [ev] = await f.events('INTROSPECT_TOKEN_ERROR');
    expect(ev).toMatchObject({ error: 'invalid_request', clientId: 'web', details: { detail: 'duplicated parameter' } });
  });

  test('anything that does not check out is {"active": false}', async () => {
    const inactive = async (token: string, hint?: string) => {
      const res = await introspect({ token, ...(hint ? { token_type_hint: hint } : {}) });
      expect([res.status, res.body]).toEqual([200, { active: false }]);
    };
    await inactive('garbage');
    const t = await f.login();
    const [h, p] = t.access_token.split('.');
    await inactive(`${h}.${p}.${'A'.repeat(40)}`);
    // Another realm's token.
    const master = await request(ts.app)
      .post('/realms/master/protocol/openid-connect/token')
      .type('form')
      .send({ grant_type: 'password', client_id: 'admin-cli', username: 'admin', password: 'admin' });
    await inactive(master.body.access_token);
    // An access token is not a refresh token.
    await inactive(t.access_token, 'refresh_token');
    const [ev] = await f.events('INTROSPECT_TOKEN_ERROR');
    expect(ev).toMatchObject({ error: 'invalid_token_type' });
  });

  test('an expired token is inactive', async () => {
    const t = await f.login();
    advanceClock(301);
    const res = await introspect({ token: t.access_token });
    expect(res.body).toEqual({ active: false });
  });

  test('a session logged out through the admin API makes its tokens inactive', async () => {
    const t = await f.login();
    expect((await introspect({ token: t.access_token })).body.active).toBe(true);
    expect((await f.admin.delete(`/admin/realms/${R}/sessions/${t.session_state}`)).status).toBe(204);
    expect((await introspect({ token: t.access_token })).body).toEqual({ active: false });
    expect((await introspect({ token: t.refresh_token, token_type_hint: 'refresh_token' })).body).toEqual({ active: false });
    const [ev] = await f.events('INTROSPECT_TOKEN_ERROR');
    expect(ev).toMatchObject({ error: 'user_session_not_found', sessionId: t.session_state });
  });

  test('a refresh token is introspected as such', async () => {
    const t = await f.login();
    const res = await introspect({ token: t.refresh_token, token_type_hint: 'refresh_token' });
    expect(res.body).toMatchObject({
      active: true,
      typ: 'Refresh',
      token_type: 'Refresh',
      client_id: 'web',
      sid: t.session_state,
      sub: f.alice,
      username: 'alice',
    });
    // The refresh token's own audience (the issuer), then those the introspection mappers add (audience resolve).
    expect(res.body.aud).toEqual([`http://localhost:8080/realms/${R}`, 'account']);
  });

  test('introspection.token.claim false keeps a claim out of the answer, while the access token has it', async () => {
    const mapper = {
      name: 'secret-claim',
      protocol: 'openid-connect',
      protocolMapper: 'oidc-hardcoded-claim-mapper',
      config: { 'claim.name': 'secret_claim', 'claim.value': 'v', 'access.token.claim': 'true', 'introspection.token.claim': 'false' },
    };
    expect((await f.admin.post(`/admin/realms/${R}/clients/${f.ids.other}/protocol-mappers/models`, mapper)).status).toBe(201);
    const t = await f.login({}, 'other');
    expect(decodeJwt(t.access_token).secret_claim).toBe('v');
    const res = await introspect({ token: t.access_token });
    expect(res.body.active).toBe(true);
    expect(res.body).not.toHaveProperty('secret_claim');
  });

  test('a disabled realm is access_denied; an unknown realm 404', async () => {
    await createRealm(f.admin, 'introspect-off', { enabled: false });
    const off = await request(ts.app)
      .post('/realms/introspect-off/protocol/openid-connect/token/introspect')
      .type('form')
      .send({ token: 'x', client_id: 'a', client_secret: 'b' });
    expect([off.status, off.body]).toEqual([403, { error: 'access_denied', error_description: 'Realm not enabled' }]);
    const gone = await request(ts.app).post('/realms/nope/protocol/openid-connect/token/introspect').type('form').send({ token: 'x' });
    expect([gone.status, gone.body]).toEqual([404, { error: 'Realm does not exist' }]);
  });
});
