import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import request from 'supertest';
import { adminEvents, createClient, createUser, serviceAccountClient } from '../../helpers/fixtures';
import { startTestServer, type TestServer } from '../../helpers/server';
import { advanceClock, freezeClock, resetClock, type SessionFixture, sessionFixture } from '../../helpers/sessions';

let ts: TestServer;
let f: SessionFixture;
const R = 'sess';

beforeAll(async () => {
  ts = await startTestServer();
  f = await sessionFixture(ts, R, ['alice', 'bob', 'carol']);
});
afterAll(async () => {
  resetClock();
  await ts.close();
});

const A = () => `/admin/realms/${R}`;

describe('sessions of a user', () => {
  test('a password grant creates a session listed with Keycloak fields', async () => {
    const t = await f.login('alice');
    expect(t.status).toBe(200);
    const adminCli = await f.clientUuid('admin-cli');
    const res = await f.admin.get(`${A()}/users/${f.users.alice}/sessions`);
    expect(res.status).toBe(200);
    const mine = res.body.find((s: { id: string }) => s.id === t.body.session_state);
    expect(mine).toEqual({
      id: t.body.session_state,
      username: 'alice',
      userId: f.users.alice,
      ipAddress: expect.any(String),
      start: expect.any(Number),
      lastAccess: expect.any(Number),
      rememberMe: false,
      clients: { [adminCli]: 'admin-cli' },
      transientUser: false,
    });
    expect(mine.start % 1000).toBe(0);
    expect(Math.abs(mine.start - Date.now())).toBeLessThan(5000);
    // a refresh later moves lastAccess
    advanceClock(10);
    const again = await f.grant({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: t.body.refresh_token });
    expect(again.status).toBe(200);
    const after = (await f.admin.get(`${A()}/users/${f.users.alice}/sessions`)).body.find(
      (s: { id: string }) => s.id === t.body.session_state,
    );
    expect(after.lastAccess - after.start).toBeGreaterThanOrEqual(10000);
  });

  test('unknown user → 404; a caller without view-users → 403', async () => {
    const missing = await f.admin.get(`${A()}/users/00000000-0000-4000-8000-000000000000/sessions`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'User not found' });
    await createUser(ts, R, 'viewer', { roles: ['view-users'] });
    const viewer = await ts.api({ realm: R, username: 'viewer', password: 'pw' });
    expect((await viewer.get(`${A()}/users/${f.users.alice}/sessions`)).status).toBe(200);
    const denied = await viewer.post(`${A()}/users/${f.users.alice}/logout`);
    expect(denied.status).toBe(403);
    expect((await viewer.post(`${A()}/logout-all`)).status).toBe(403);
    expect((await viewer.delete(`${A()}/sessions/nope`)).status).toBe(403);
    expect((await viewer.get(`${A()}/client-session-stats`)).status).toBe(403);
  });

  test('offline_access gives an Offline refresh token and an offline session that survives logout', async () => {
    const t = await f.login('bob', { scope: 'offline_access' });
    expect(t.status).toBe(200);
    expect(t.body.refresh_expires_in).toBe(0);
    expect(t.body.scope.split(' ')).toContain('offline_access');
    const refresh = decodeJwt(t.body.refresh_token);
    expect(refresh.typ).toBe('Offline');
    expect(refresh.exp).toBeUndefined();
    const online = await f.login('bob');
    const adminCli = await f.clientUuid('admin-cli');

    const listed = await f.admin.get(`${A()}/users/${f.users.bob}/sessions`);
    expect(listed.body.map((s: { id: string }) => s.id)).toEqual([online.body.session_state]);
    const offline = await f.admin.get(`${A()}/users/${f.users.bob}/offline-sessions/${adminCli}`);
    expect(offline.status).toBe(200);
    expect(offline.body).toEqual([
      expect.objectContaining({ id: t.body.session_state, userId: f.users.bob, clients: { [adminCli]: 'admin-cli' } }),
    ]);
    const unknown = await f.admin.get(`${A()}/users/${f.users.bob}/offline-sessions/00000000-0000-4000-8000-000000000000`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Client not found' });

    // the offline token refreshes
    const r1 = await f.grant({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: t.body.refresh_token });
    expect(r1.status).toBe(200);
    expect(decodeJwt(r1.body.refresh_token).typ).toBe('Offline');

    advanceClock(2);
    const out = await f.admin.post(`${A()}/users/${f.users.bob}/logout`);
    expect(out.status).toBe(204);
    expect((await f.admin.get(`${A()}/users/${f.users.bob}/sessions`)).body).toEqual([]);
    // the offline session is kept, but tokens issued before the user's notBefore are stale
    expect((await f.admin.get(`${A()}/users/${f.users.bob}/offline-sessions/${adminCli}`)).body).toHaveLength(1);
    const dead = await f.grant({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: online.body.refresh_token });
    expect(dead.body).toEqual({ error: 'invalid_grant', error_description: 'Session not active' });
    const stale = await f.grant({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: r1.body.refresh_token });
    expect(stale.body).toEqual({ error: 'invalid_grant', error_description: 'Stale token' });
    const user = await f.admin.get(`${A()}/users/${f.users.bob}`);
    expect(user.body.notBefore).toBeGreaterThan(0);
  });

  test('DELETE sessions/{id}: 404 Sesssion not found, isOffline, and a deleted session kills its tokens', async () => {
    const missing = await f.admin.delete(`${A()}/sessions/does-not-exist`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Sesssion not found' });

    const t = await f.login('carol');
    const wrongKind = await f.admin.delete(`${A()}/sessions/${t.body.session_state}?isOffline=true`);
    expect(wrongKind.status).toBe(404);
    const del = await f.admin.delete(`${A()}/sessions/${t.body.session_state}`);
    expect(del.status).toBe(204);
    const refresh = await f.grant({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: t.body.refresh_token });
    expect(refresh.body).toEqual({ error: 'invalid_grant', error_description: 'Session not active' });

    const off = await f.login('carol', { scope: 'offline_access' });
    expect((await f.admin.delete(`${A()}/sessions/${off.body.session_state}`)).status).toBe(404);
    expect((await f.admin.delete(`${A()}/sessions/${off.body.session_state}?isOffline=true`)).status).toBe(204);
    const offRefresh = await f.grant({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: off.body.refresh_token });
    expect(offRefresh.status).toBe(400);
    expect(offRefresh.body.error).toBe('invalid_grant');

    // an admin whose session is deleted gets 401 on the next call
    const other = await request(ts.app)
      .post('/realms/master/protocol/openid-connect/token')
      .type('form')
      .send({ grant_type: 'password', client_id: 'admin-cli', username: 'admin', password: 'admin' });
    const bearer = `Bearer ${other.body.access_token}`;
    expect((await request(ts.app).get(`${A()}`).set('Authorization', bearer)).status).toBe(200);
    expect((await f.admin.delete(`/admin/realms/master/sessions/${other.body.session_state}`)).status).toBe(204);
    const gone = await request(ts.app).get(`${A()}`).set('Authorization', bearer);
    expect(gone.status).toBe(401);
    expect(gone.body).toEqual({ error: 'HTTP 401 Unauthorized' });
  });
});

describe('sessions of a client and of the realm', () => {
  test('session counts, listings with first/max, client-session-stats', async () => {
    const adminCli = await f.clientUuid('admin-cli');
    const before = (await f.admin.get(`${A()}/clients/${adminCli}/session-count`)).body.count;
    const logins = [await f.login('alice'), await f.login('alice'), await f.login('carol')];
    await f.login('alice', { scope: 'offline_access' });
    const count = await f.admin.get(`${A()}/clients/${adminCli}/session-count`);
    expect(count.status).toBe(200);
    expect(count.body).toEqual({ count: before + 3 });
    const offCount = (await f.admin.get(`${A()}/clients/${adminCli}/offline-session-count`)).body.count;
    expect(offCount).toBeGreaterThanOrEqual(1);
    const all = await f.admin.get(`${A()}/clients/${adminCli}/user-sessions`);
    expect(all.body).toHaveLength(before + 3);
    expect(all.body.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining(logins.map((l) => l.body.session_state)));
    const page = await f.admin.get(`${A()}/clients/${adminCli}/user-sessions?first=1&max=2`);
    expect(page.body.map((s: { id: string }) => s.id)).toEqual(all.body.slice(1, 3).map((s: { id: string }) => s.id));
    expect((await f.admin.get(`${A()}/clients/${adminCli}/user-sessions?max=0`)).body).toEqual([]);
    const offline = await f.admin.get(`${A()}/clients/${adminCli}/offline-sessions`);
    expect(offline.body).toHaveLength(offCount);
    expect(offline.body[0]).toMatchObject({ clients: { [adminCli]: 'admin-cli' }, transientUser: false });

    const stats = await f.admin.get(`${A()}/client-session-stats`);
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual([{ id: adminCli, clientId: 'admin-cli', active: String(before + 3), offline: String(offCount) }]);
    const missing = await f.admin.get(`${A()}/clients/00000000-0000-4000-8000-000000000000/session-count`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Could not find client' });
  });

  test('idle timeout and max lifespan end a session', async () => {
    expect((await f.admin.put(`${A()}`, { ssoSessionIdleTimeout: 60, ssoSessionMaxLifespan: 100 })).status).toBe(204);
    const t = await f.login('carol');
    expect(t.body.refresh_expires_in).toBe(60);
    advanceClock(61);
    const sessions = (await f.admin.get(`${A()}/users/${f.users.carol}/sessions`)).body;
    expect(sessions.map((s: { id: string }) => s.id)).not.toContain(t.body.session_state);
    const refresh = await f.grant({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: t.body.refresh_token });
    expect(refresh.body).toEqual({ error: 'invalid_grant', error_description: 'Session not active' });
    // max lifespan: refreshed every 50 s, the session still ends after 100 s
    freezeClock();
    const u = await f.login('carol');
    advanceClock(50);
    const r1 = await f.grant({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: u.body.refresh_token });
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_expires_in).toBe(50);
    advanceClock(51);
    const r2 = await f.grant({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: r1.body.refresh_token });
    expect(r2.body).toEqual({ error: 'invalid_grant', error_description: 'Session not active' });
    await f.admin.put(`${A()}`, { ssoSessionIdleTimeout: 1800, ssoSessionMaxLifespan: 36000 });
  });

  test('logout-all removes every session and sets the realm notBefore', async () => {
    const t = await f.login('alice');
    await f.login('bob', { scope: 'offline_access' });
    advanceClock(1);
    const res = await f.admin.post(`${A()}/logout-all`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const adminCli = await f.clientUuid('admin-cli');
    expect((await f.admin.get(`${A()}/clients/${adminCli}/session-count`)).body).toEqual({ count: 0 });
    expect((await f.admin.get(`${A()}/clients/${adminCli}/offline-session-count`)).body).toEqual({ count: 0 });
    expect((await f.admin.get(`${A()}/client-session-stats`)).body).toEqual([]);
    const realm = await f.admin.get(`${A()}`);
    expect(realm.body.notBefore).toBeGreaterThan(0);
    const refresh = await f.grant({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: t.body.refresh_token });
    expect(refresh.body).toEqual({ error: 'invalid_grant', error_description: 'Session not active' });
    // a new login works after the notBefore
    advanceClock(1);
    expect((await f.login('alice')).status).toBe(200);
  });

  test('push-revocation: GlobalRequestResult from the admin URLs, signed PUSH_NOT_BEFORE bodies, admin events', async () => {
    const received: Array<{ url: string; body: string }> = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        received.push({ url: String(req.url), body });
        res.statusCode = req.url?.startsWith('/fail') ? 500 : 204;
        res.end();
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
    const port = (server.address() as AddressInfo).port;
    try {
      const mk = (clientId: string, adminUrl: string) =>
        createClient(f.admin, R, {
          clientId,
          enabled: true,
          protocol: 'openid-connect',
          publicClient: false,
          bearerOnly: false,
          serviceAccountsEnabled: false,
          directAccessGrantsEnabled: false,
          fullScopeAllowed: true,
          secret: 'x',
          adminUrl,
        });
      const appOk = await mk('app-ok', `http://127.0.0.1:${port}/ok`);
      await mk('app-fail', `http://127.0.0.1:${port}/fail`);
      await f.admin.put(`${A()}`, { adminEventsEnabled: true, adminEventsDetailsEnabled: true });

      const res = await f.admin.post(`${A()}/push-revocation`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ successRequests: [`http://127.0.0.1:${port}/ok`], failedRequests: [`http://127.0.0.1:${port}/fail`] });
      const ok = received.find((x) => x.url === '/ok/k_push_not_before');
      expect(ok).toBeDefined();
      expect(decodeJwt(String(ok?.body))).toMatchObject({ action: 'PUSH_NOT_BEFORE', resource: 'app-ok', notBefore: expect.any(Number) });
      // Keycloak's AdminAction is TokenCategory.ADMIN: the realm's defaultSignatureAlgorithm (RS256 unless set).
      const rsKid = (await f.admin.get(`${A()}/keys`).expect(200)).body.active.RS256;
      expect(decodeProtectedHeader(String(ok?.body))).toEqual({ alg: 'RS256', typ: 'JWT', kid: rsKid });

      const one = await f.admin.post(`${A()}/clients/${appOk}/push-revocation`);
      expect(one.body).toEqual({ successRequests: [`http://127.0.0.1:${port}/ok`] });
      const adminCli = await f.clientUuid('admin-cli');
      expect((await f.admin.post(`${A()}/clients/${adminCli}/push-revocation`)).body).toEqual({});

      await f.admin.put(`${A()}`, { defaultSignatureAlgorithm: 'ES256' }).expect(204);
      const all = await f.admin.post(`${A()}/logout-all`);
      await f.admin.put(`${A()}`, { defaultSignatureAlgorithm: 'RS256' }).expect(204);
      expect(all.body.successRequests).toEqual([`http://127.0.0.1:${port}/ok`]);
      const logout = received.find((x) => x.url === '/ok/k_logout');
      expect(decodeJwt(String(logout?.body))).toMatchObject({ action: 'LOGOUT', resource: 'app-ok' });
      expect(decodeProtectedHeader(String(logout?.body)).alg).toBe('ES256');

      const events = await adminEvents(f.admin, R);
      const paths = events.map((e) => `${e.operationType} ${e.resourceType} ${e.resourcePath}`);
      expect(paths).toEqual(
        expect.arrayContaining([
          'ACTION REALM push-revocation',
          `ACTION CLIENT clients/${appOk}/push-revocation`,
          'ACTION REALM logout-all',
        ]),
      );
      const push = events.find((e) => e.resourcePath === 'push-revocation');
      expect(JSON.parse(String(push?.representation))).toEqual(res.body);

      const t = await f.login('alice');
      await f.admin.delete(`${A()}/sessions/${t.body.session_state}`);
      await f.admin.post(`${A()}/users/${f.users.alice}/logout`);
      const more = await adminEvents(f.admin, R, { resourceTypes: 'USER_SESSION,USER' });
      // An event without a representation lists none; `null` as the table holds it.
      expect(more.map((e) => `${e.operationType} ${e.resourceType} ${e.resourcePath} ${e.representation ?? null}`)).toEqual(
        expect.arrayContaining([
          `DELETE USER_SESSION sessions/${t.body.session_state} {"offline":false}`,
          `ACTION USER users/${f.users.alice}/logout null`,
        ]),
      );
    } finally {
      await f.admin.put(`${A()}`, { adminEventsEnabled: false });
      await new Promise<void>((ok) => server.close(() => ok()));
    }
  });

  test('client_credentials: a transient session by default (nothing stored, no sid), a stored one with use_refresh_token', async () => {
    // Keycloak's ClientCredentialsGrantType: TRANSIENT unless the client's client_credentials.use_refresh_token is on.
    const client = await serviceAccountClient(f.admin, R, 'robot', 's3cret');
    const t = await f.grant({ grant_type: 'client_credentials', client_id: 'robot', client_secret: 's3cret' });
    expect(t.status).toBe(200);
    expect(t.body.session_state).toBeUndefined();
    expect(t.body.refresh_token).toBeUndefined();
    expect(decodeJwt(t.body.access_token).sid).toBeUndefined();
    expect((await f.admin.get(`${A()}/clients/${client.id}/user-sessions`)).body).toEqual([]);
    expect((await f.admin.get(`${A()}/clients/${client.id}/session-count`)).body).toEqual({ count: 0 });
    // Such a token still works where a session-bound one would: userinfo answers for the service account.
    const oidc = await f.grant({ grant_type: 'client_credentials', client_id: 'robot', client_secret: 's3cret', scope: 'openid' });
    expect(decodeJwt(oidc.body.id_token).sid).toBeUndefined();
    const info = await request(ts.app)
      .get(`/realms/${R}/protocol/openid-connect/userinfo`)
      .set('Authorization', `Bearer ${oidc.body.access_token}`);
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ preferred_username: 'service-account-robot' });
    const introspected = await request(ts.app)
      .post(`/realms/${R}/protocol/openid-connect/token/introspect`)
      .type('form')
      .send({ token: t.body.access_token, client_id: 'robot', client_secret: 's3cret' });
    expect(introspected.status).toBe(200);
    expect(introspected.body).toMatchObject({ active: true, username: 'service-account-robot', client_id: 'robot' });
    expect(introspected.body.sid).toBeUndefined();

    const rep = (await f.admin.get(`${A()}/clients/${client.id}`)).body;
    rep.attributes = { ...rep.attributes, 'client_credentials.use_refresh_token': 'true' };
    expect((await f.admin.put(`${A()}/clients/${client.id}`, rep)).status).toBe(204);
    const stored = await f.grant({ grant_type: 'client_credentials', client_id: 'robot', client_secret: 's3cret' });
    expect(stored.status).toBe(200);
    expect(stored.body.refresh_token).toEqual(expect.any(String));
    expect(decodeJwt(stored.body.access_token).sid).toBe(stored.body.session_state);
    const sessions = await f.admin.get(`${A()}/clients/${client.id}/user-sessions`);
    expect(sessions.body).toEqual([expect.objectContaining({ username: 'service-account-robot', clients: { [client.id]: 'robot' } })]);
    expect((await f.admin.get(`${A()}/clients/${client.id}/session-count`)).body).toEqual({ count: 1 });
    const refreshed = await f.grant({
      grant_type: 'refresh_token',
      refresh_token: stored.body.refresh_token,
      client_id: 'robot',
      client_secret: 's3cret',
    });
    expect(refreshed.status).toBe(200);
  });
});
