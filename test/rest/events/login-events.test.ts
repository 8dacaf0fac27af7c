import { decodeJwt } from 'jose';
import { startTestServer, type TestServer } from '../../helpers/server';
import { realmIdOf, serviceAccountClient } from '../../helpers/fixtures';
import { type SessionFixture, sessionFixture } from '../../helpers/sessions';

let ts: TestServer;
let f: SessionFixture;
let realmId: string;
const R = 'ev';
const A = `/admin/realms/${R}`;

beforeAll(async () => {
  ts = await startTestServer();
  f = await sessionFixture(ts, R, ['alice', 'bob']);
  realmId = await realmIdOf(f.admin, R);
});
afterAll(() => ts.close());

const events = async () =>
  (await ts.db.models.Event.findAll({ where: { realmId }, order: [['time', 'ASC']] })).map((e) => e.toJSON() as Record<string, unknown>);
const clear = () => ts.db.models.Event.destroy({ where: { realmId } });

describe('login events of the token endpoint', () => {
  test('nothing is recorded while events are disabled', async () => {
    await f.login('alice');
    await f.login('alice', { password: 'wrong' });
    expect(await events()).toEqual([]);
  });

  test('LOGIN and LOGIN_ERROR with Keycloak details', async () => {
    expect((await f.admin.put(A, { eventsEnabled: true })).status).toBe(204);
    const t = await f.login('alice');
    await f.login('alice', { password: 'wrong' });
    await f.login('nobody', { password: 'x' });
    const [login, bad, unknown] = await events();
    expect(login).toMatchObject({
      type: 'LOGIN',
      realmId,
      clientId: 'admin-cli',
      userId: f.users.alice,
      sessionId: t.body.session_state,
      ipAddress: expect.any(String),
      error: null,
      details: {
        auth_method: 'openid-connect',
        grant_type: 'password',
        username: 'alice',
        token_id: String(decodeJwt(t.body.access_token).jti),
        refresh_token_id: String(decodeJwt(t.body.refresh_token).jti),
        refresh_token_type: 'Refresh',
        scope: t.body.scope,
        client_auth_method: 'client-secret',
      },
    });
    expect(bad).toMatchObject({
      type: 'LOGIN_ERROR',
      clientId: 'admin-cli',
      userId: f.users.alice,
      error: 'invalid_user_credentials',
      details: { auth_method: 'openid-connect', grant_type: 'password', username: 'alice' },
    });
    expect(unknown).toMatchObject({ type: 'LOGIN_ERROR', userId: null, error: 'user_not_found', details: { username: 'nobody' } });
    await clear();
  });

  test('REFRESH_TOKEN is stored only when listed; CLIENT_LOGIN and client errors', async () => {
    const t = await f.login('bob');
    await f.grant({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: t.body.refresh_token });
    expect((await events()).map((e) => e.type)).toEqual(['LOGIN']);
    await clear();

    await f.admin.put(A, {
      eventsEnabled: true,
      enabledEventTypes: ['LOGIN', 'LOGIN_ERROR', 'REFRESH_TOKEN', 'REFRESH_TOKEN_ERROR', 'CLIENT_LOGIN', 'LOGOUT'],
    });
    const r = await f.grant({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: t.body.refresh_token });
    await f.grant({ grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: 'garbage' });
    await f.grant({ grant_type: 'password', client_id: 'no-such-client', username: 'bob', password: 'x' });
    const [refresh, refreshErr, clientErr] = await events();
    expect(refresh).toMatchObject({
      type: 'REFRESH_TOKEN',
      clientId: 'admin-cli',
      userId: f.users.bob,
      sessionId: t.body.session_state,
      details: {
        grant_type: 'refresh_token',
        refresh_token_id: String(decodeJwt(t.body.refresh_token).jti),
        refresh_token_type: 'Refresh',
        token_id: String(decodeJwt(r.body.access_token).jti),
        updated_refresh_token_id: String(decodeJwt(r.body.refresh_token).jti),
        client_auth_method: 'client-secret',
      },
    });
    expect(refreshErr).toMatchObject({ type: 'REFRESH_TOKEN_ERROR', error: 'invalid_token' });
    expect(clientErr).toMatchObject({ type: 'LOGIN_ERROR', clientId: 'no-such-client', error: 'client_not_found' });
    await clear();

    // LOGOUT when an admin logs the user out
    await f.admin.post(`${A}/users/${f.users.bob}/logout`);
    const logout = await events();
    expect(logout).toEqual([expect.objectContaining({ type: 'LOGOUT', userId: f.users.bob, sessionId: t.body.session_state })]);
    await clear();
  });

  test('CLIENT_LOGIN for client_credentials', async () => {
    const { userId } = await serviceAccountClient(f.admin, R, 'robot', 's3cret');
    const t = await f.grant({ grant_type: 'client_credentials', client_id: 'robot', client_secret: 's3cret' });
    expect(t.status).toBe(200);
    await f.grant({ grant_type: 'client_credentials', client_id: 'robot', client_secret: 'bad' });
    const [ok] = await events();
    expect(ok).toMatchObject({
      type: 'CLIENT_LOGIN',
      clientId: 'robot',
      userId,
      details: {
        grant_type: 'client_credentials',
        username: 'service-account-robot',
        token_id: String(decodeJwt(t.body.access_token).jti),
        client_auth_method: 'client-secret',
      },
    });
    // CLIENT_LOGIN_ERROR is not in the enabled list
    expect((await events()).map((e) => e.type)).toEqual(['CLIENT_LOGIN']);
  });
});
