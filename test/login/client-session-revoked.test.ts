import { createClient } from '../helpers/fixtures';
import { exchange, Jar, type LoginWorld, loginWorld, REDIRECT, redirectParams, signIn } from './browser-client';

/**
 * A client's part in a user session (its client session), once revoked, stays revoked: the refresh
 * grant refuses the client's refresh tokens with invalid_grant "Session doesn't have required client"
 * (Keycloak 26's TokenManager#validateToken, event REFRESH_TOKEN_ERROR with error invalid_token as
 * RefreshTokenGrantType records it) whatever the realm's revokeRefreshToken says, while the other
 * clients of the session go on. Before, a refresh with revokeRefreshToken off created the row again.
 */
let w: LoginWorld;
const R = 'cs-revoked';
type Rep = Record<string, unknown>;

beforeAll(async () => {
  w = await loginWorld(R, { enabledEventTypes: ['REFRESH_TOKEN', 'REFRESH_TOKEN_ERROR'], revokeRefreshToken: false });
  await createClient(w.api, R, { clientId: 'second', publicClient: true, redirectUris: [REDIRECT] });
});
afterAll(() => w?.ts.close());

const post = (path: string, form: Record<string, string>) =>
  fetch(`${w.base}/realms/${R}/protocol/openid-connect/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
const refresh = async (client_id: string, refresh_token: unknown) => {
  const res = await post('token', { grant_type: 'refresh_token', client_id, refresh_token: String(refresh_token) });
  return { status: res.status, body: (await res.json()) as Rep };
};
/** One SSO session with both clients in it: `app` signs in, `second` rides on the cookie. */
async function ssoSession(): Promise<{ app: Rep; second: Rep }> {
  const jar = new Jar();
  const app = await exchange(w, redirectParams(await signIn(jar, w.authUrl())).get('code') as string);
  const sso = await jar.fetch(w.authUrl({ client_id: 'second' }));
  expect(sso.status).toBe(302);
  const second = await exchange(w, redirectParams(sso).get('code') as string, { client_id: 'second' });
  expect([app.status, second.status]).toEqual([200, 200]);
  expect(second.body.session_state).toBe(app.body.session_state);
  return { app: app.body, second: second.body };
}
const clientsOfSession = async (sid: unknown) => {
  const sessions = (await w.api.get(`/admin/realms/${R}/users/${w.userId}/sessions`).expect(200)).body as Rep[];
  const s = sessions.find((x) => x.id === sid);
  return s ? Object.values(s.clients as Record<string, string>).sort() : undefined;
};
const DETACHED = { error: 'invalid_grant', error_description: "Session doesn't have required client" };

test('revokeRefreshToken off: a client revoked from the session (token revocation) is refused on refresh, not brought back', async () => {
  const { app, second } = await ssoSession();
  // A refresh before the revocation: its newer refresh token goes with the client session too.
  const newer = await refresh('app', app.refresh_token);
  expect(newer.status).toBe(200);
  const revoked = await post('revoke', { client_id: 'app', token: String(app.refresh_token), token_type_hint: 'refresh_token' });
  expect(revoked.status).toBe(200);
  expect(await clientsOfSession(app.session_state)).toEqual(['second']);

  for (const token of [app.refresh_token, newer.body.refresh_token])
    expect(await refresh('app', token)).toEqual({ status: 400, body: DETACHED });
  const [ev] = (await w.api.get(`/admin/realms/${R}/events?type=REFRESH_TOKEN_ERROR&client=app&max=1`).expect(200)).body as Rep[];
  expect(ev).toMatchObject({ error: 'invalid_token', sessionId: app.session_state, userId: w.userId });
  // The session and its other client go on; the revoked client is still out of it.
  expect((await refresh('second', second.refresh_token)).status).toBe(200);
  expect(await clientsOfSession(app.session_state)).toEqual(['second']);
});

test('a new login of the client into the same session brings it back (a new client session), and its tokens refresh', async () => {
  const jar = new Jar();
  const first = await exchange(w, redirectParams(await signIn(jar, w.authUrl())).get('code') as string);
  const sso = await jar.fetch(w.authUrl({ client_id: 'second' }));
  await exchange(w, redirectParams(sso).get('code') as string, { client_id: 'second' });
  expect((await post('revoke', { client_id: 'app', token: String(first.body.refresh_token) })).status).toBe(200);
  expect(await refresh('app', first.body.refresh_token)).toEqual({ status: 400, body: DETACHED });
  const again = await exchange(w, redirectParams(await jar.fetch(w.authUrl())).get('code') as string);
  expect(again.body.session_state).toBe(first.body.session_state);
  expect((await refresh('app', again.body.refresh_token)).status).toBe(200);
  expect(await clientsOfSession(first.body.session_state)).toEqual(['app', 'second']);
});

test("token revocation revokes the client for the user (Keycloak's revokeClient): its part in every online session of the user goes", async () => {
  // Two browsers: one session with app and second, one with app alone.
  const { app: shared, second } = await ssoSession();
  const alone = await exchange(w, redirectParams(await signIn(new Jar(), w.authUrl())).get('code') as string);
  expect(alone.body.session_state).not.toBe(shared.session_state);
  expect((await post('revoke', { client_id: 'app', token: String(shared.refresh_token) })).status).toBe(200);
  expect(await refresh('app', shared.refresh_token)).toEqual({ status: 400, body: DETACHED });
  // The other session held app alone: it is gone with it.
  expect(await refresh('app', alone.body.refresh_token)).toEqual({
    status: 400,
    body: { error: 'invalid_grant', error_description: 'Session not active' },
  });
  expect(await clientsOfSession(alone.body.session_state)).toBeUndefined();
  expect(await clientsOfSession(shared.session_state)).toEqual(['second']);
  expect((await refresh('second', second.refresh_token)).status).toBe(200);
});
