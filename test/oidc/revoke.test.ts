import { decodeJwt } from 'jose';
import { QueryTypes } from 'sequelize';
import request from 'supertest';
import { nowSeconds } from '../../src/core/clock';
import { startTestServer, type TestServer } from '../helpers/server';
import { basic, type RpFixture, rpFixture } from './rp-fixture';

/** POST /realms/{realm}/protocol/openid-connect/revoke (RFC 7009, issue 14), as Keycloak answers it. */

let ts: TestServer;
let f: RpFixture;
const R = 'revoke-rp';

beforeAll(async () => {
  ts = await startTestServer();
  f = await rpFixture(ts, R);
});
afterAll(() => ts.close());

const revoke = (form: Record<string, string> | string, auth: string | null = basic('web', 'web-secret')) => {
  const r = request(ts.app).post(f.endpoint('revoke')).type('form');
  if (auth) r.set('Authorization', auth);
  return r.send(form);
};
const introspect = (token: string) =>
  request(ts.app).post(f.endpoint('token/introspect')).type('form').set('Authorization', basic('other', 'other-secret')).send({ token });
const userinfo = (token: string) => request(ts.app).get(f.endpoint('userinfo')).set('Authorization', `Bearer ${token}`);
const INVALID = { error: 'invalid_token', error_description: 'Invalid token' };

describe('token revocation', () => {
  test("a revoked refresh token no longer refreshes, and its session's access tokens stop working", async () => {
    const t = await f.login({ scope: 'openid' });
    const res = await revoke({ token: t.refresh_token, token_type_hint: 'refresh_token' });
    expect([res.status, res.text]).toEqual([200, '']);
    const again = await f.refresh(t.refresh_token);
    expect([again.status, again.body]).toEqual([400, { error: 'invalid_grant', error_description: 'Session not active' }]);
    expect((await introspect(t.access_token)).body).toEqual({ active: false });
    expect((await userinfo(t.access_token)).status).toBe(401);
    const [ev] = await f.events('REVOKE_GRANT');
    expect(ev).toMatchObject({ clientId: 'web', userId: f.alice, sessionId: t.session_state });
    expect(ev.details).toEqual({
      revoked_client: 'web',
      refresh_token_id: decodeJwt(t.refresh_token).jti,
      refresh_token_type: 'Refresh',
    });
    // Revoking it again: its session is gone, which RFC 7009 answers with 200 (Keycloak with its invalid_token body).
    const twice = await revoke({ token: t.refresh_token });
    expect([twice.status, twice.body]).toEqual([200, INVALID]);
  });

  test('a revoked offline token ends the offline session', async () => {
    const t = await f.login({ scope: 'offline_access' });
    expect(decodeJwt(t.refresh_token).typ).toBe('Offline');
    const offline = () => f.admin.get(`/admin/realms/${R}/users/${f.alice}/offline-sessions/${f.ids.web}`);
    expect((await offline()).body).toHaveLength(1);
    expect((await revoke({ token: t.refresh_token })).status).toBe(200);
    expect((await offline()).body).toHaveLength(0);
    const again = await f.refresh(t.refresh_token);
    expect([again.status, again.body]).toEqual([400, { error: 'invalid_grant', error_description: 'Offline user session not found' }]);
  });

  test('a revoked access token is refused by userinfo and introspection until it expires; the session goes on', async () => {
    const t = await f.login({ scope: 'openid' });
    const { jti, exp } = decodeJwt(t.access_token);
    expect((await revoke({ token: t.access_token, token_type_hint: 'access_token' })).status).toBe(200);
    expect((await introspect(t.access_token)).body).toEqual({ active: false });
    const info = await userinfo(t.access_token);
    expect([info.status, info.headers['www-authenticate']]).toEqual([
      401,
      `Bearer realm="${R}", error="invalid_token", error_description="Token verification failed"`,
    ]);
    // Kept as long as the token lives (Keycloak: exp - now + 1 seconds, at least 10).
    const rows = await ts.db.sequelize.query<{ id: string; expires_at: number | string }>('SELECT id, expires_at FROM revoked_token', {
      type: QueryTypes.SELECT,
    });
    const row = rows.find((r) => r.id === jti);
    expect(Number(row?.expires_at)).toBeGreaterThanOrEqual(Number(exp) + 1 - 2);
    expect(Number(row?.expires_at)).toBeLessThanOrEqual(Number(exp) + 1 + 2);
    // The session was not revoked: the refresh token still works, and its new access token too.
    const fresh = await f.refresh(t.refresh_token);
    expect(fresh.status).toBe(200);
    expect((await introspect(fresh.body.access_token)).body.active).toBe(true);
    const [ev] = await f.events('REVOKE_GRANT');
    expect(ev.details).toEqual({ token_id: jti });
  });

  test('a revoked access token is refused by the admin API too (Keycloak checks revocation on admin bearer tokens)', async () => {
    const t = await f.login({ scope: 'openid' });
    const admin = () => request(ts.app).get(`/admin/realms/${R}/users`).set('Authorization', `Bearer ${t.access_token}`);
    expect((await admin()).status).toBe(403); // a valid token, without admin roles
    expect((await revoke({ token: t.access_token, token_type_hint: 'access_token' })).status).toBe(200);
    expect((await admin()).status).toBe(401);
  });

  test('a token of another client is "Unmatching clients"', async () => {
    const t = await f.login({}, 'other');
    const res = await revoke({ token: t.refresh_token });
    expect([res.status, res.body]).toEqual([400, { error: 'invalid_request', error_description: 'Unmatching clients' }]);
    expect((await f.refresh(t.refresh_token, 'other')).status).toBe(200);
    const [ev] = await f.events('REVOKE_GRANT_ERROR');
    expect(ev).toMatchObject({ error: 'invalid_request', details: { reason: 'Unmatching clients' } });
  });

  test("an invalid token is answered 200 (RFC 7009 §2.2) with Keycloak's invalid_token body", async () => {
    const res = await revoke({ token: 'garbage' });
    expect([res.status, res.body]).toEqual([200, INVALID]);
    const t = await f.login();
    const [h, p] = t.refresh_token.split('.');
    expect((await revoke({ token: `${h}.${p}.AAAA` })).body).toEqual(INVALID);
  });

  test('an ID token is unsupported_token_type', async () => {
    const t = await f.login({ scope: 'openid' });
    const res = await revoke({ token: t.id_token as string });
    expect([res.status, res.body]).toEqual([400, { error: 'unsupported_token_type', error_description: 'Unsupported token type' }]);
  });

  test('a missing token and a repeated parameter are invalid_request', async () => {
    const none = await revoke({});
    expect([none.status, none.body]).toEqual([400, { error: 'invalid_request', error_description: 'Token not provided' }]);
    const twice = await revoke('token=a&token=b');
    expect([twice.status, twice.body]).toEqual([400, { error: 'invalid_request', error_description: 'duplicated parameter' }]);
  });

  test('a public client revokes its own token with its client_id; wrong credentials and bearer-only clients are refused', async () => {
    const t = await f.login({}, 'spa');
    expect((await revoke({ token: t.refresh_token, client_id: 'spa' }, null)).status).toBe(200);
    expect((await f.refresh(t.refresh_token, 'spa')).status).toBe(400);
    const wrong = await revoke({ token: 'x' }, basic('web', 'wrong'));
    expect([wrong.status, wrong.body]).toEqual([
      401,
      { error: 'unauthorized_client', error_description: 'Invalid client or Invalid client credentials' },
    ]);
    const nobody = await revoke({ token: 'x' }, null);
    expect([nobody.status, nobody.body.error]).toEqual([401, 'invalid_client']);
    const created = await f.admin.post(`/admin/realms/${R}/clients`, { clientId: 'api', bearerOnly: true, publicClient: false });
    expect(created.status).toBe(201);
    const rep = (await f.admin.get(`/admin/realms/${R}/clients?clientId=api`)).body[0];
    const secret = rep.secret ?? (await f.admin.post(`/admin/realms/${R}/clients/${rep.id}/client-secret`)).body.value;
    const bearerOnly = await revoke({ token: 'x' }, basic('api', secret));
    expect([bearerOnly.status, bearerOnly.body]).toEqual([400, { error: 'invalid_client', error_description: 'Bearer-only not allowed' }]);
  });

  test("CORS: the client's web origins may read the answer", async () => {
    const t = await f.login();
    const res = await revoke({ token: t.refresh_token }).set('Origin', 'https://app.example');
    expect([res.status, res.headers['access-control-allow-origin']]).toEqual([200, 'https://app.example']);
    const pre = await request(ts.app)
      .options(f.endpoint('revoke'))
      .set('Origin', 'https://app.example')
      .set('Access-Control-Request-Method', 'POST');
    expect([pre.status, pre.headers['access-control-allow-methods']]).toEqual([200, 'POST, OPTIONS']);
  });

  test('revocations that outlived their token are purged by the next revocation', async () => {
    await ts.db.sequelize.query("INSERT INTO revoked_token (id, expires_at) VALUES ('stale-jti', :at)", {
      replacements: { at: nowSeconds() - 5 },
    });
    const t = await f.login();
    expect((await revoke({ token: t.access_token })).status).toBe(200);
    const left = await ts.db.sequelize.query<{ id: string }>("SELECT id FROM revoked_token WHERE id = 'stale-jti'", {
      type: QueryTypes.SELECT,
    });
    expect(left).toEqual([]);
  });
});
