import { decodeJwt } from 'jose';
import request from 'supertest';
import { clock } from '../../../src/core/clock';
import { createClient, createUser, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/**
 * The realm's revokeRefreshToken and refreshTokenMaxReuse on the refresh grant, as Keycloak 26's
 * TokenManager.validateTokenReuseForRefresh / validateTokenReuse: per client session and refresh
 * token chain (`reuse_id`), the token used last and its use count (AuthenticatedClientSessionModel's
 * refresh token notes), refused as invalid_grant "Maximum allowed refresh token reuse exceeded" or
 * "Stale token" (an older token than the chain's newest), with REFRESH_TOKEN_ERROR / invalid_token;
 * a refusal detaches the client session, so the chain's newer tokens are refused too. The state is
 * in the database: concurrent uses of one token count once each (a conditional UPDATE).
 */
let ts: TestServer;
let api: AdminApi;
const R = 'rtreuse';
type Rep = Record<string, unknown>;
const realNow = clock.now;
let offset = 0;

const token = (form: Record<string, string>) =>
  request(ts.app).post(`/realms/${R}/protocol/openid-connect/token`).type('form').send(new URLSearchParams(form).toString());
const login = async (scope?: string) =>
  (await token({ grant_type: 'password', client_id: 'app', username: 'alice', password: 'pw', ...(scope ? { scope } : {}) }).expect(200))
    .body as Rep;
const refresh = (refresh_token: unknown, client_id = 'app') =>
  token({
    grant_type: 'refresh_token',
    client_id,
    ...(client_id === 'conf' ? { client_secret: 's' } : {}),
    refresh_token: String(refresh_token),
  });
const settings = (revokeRefreshToken: boolean, refreshTokenMaxReuse = 0) =>
  api.put(`/admin/realms/${R}`, { revokeRefreshToken, refreshTokenMaxReuse }).expect(204);
/** Moves the server's clock on: a later refresh token's `iat` is then larger. */
const later = (seconds = 2) => {
  offset += seconds * 1000;
};
const refused = (res: request.Response, description: string) => {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ error: 'invalid_grant', error_description: description });
};
const EXCEEDED = 'Maximum allowed refresh token reuse exceeded';
const DETACHED = "Session doesn't have required client";
const lastError = async () => ((await api.get(`/admin/realms/${R}/events?type=REFRESH_TOKEN_ERROR&max=1`).expect(200)).body as Rep[])[0];

beforeAll(async () => {
  ({ ts, api } = await realmServer(R, { eventsEnabled: true, enabledEventTypes: ['REFRESH_TOKEN', 'REFRESH_TOKEN_ERROR'] }));
  await createClient(api, R, { clientId: 'app', publicClient: true, directAccessGrantsEnabled: true });
  await createClient(api, R, { clientId: 'conf', secret: 's', publicClient: false, directAccessGrantsEnabled: true });
  await createUser(ts, R, 'alice', { defaultRoles: true });
  clock.now = () => realNow() + offset;
});
afterAll(async () => {
  clock.now = realNow;
  await ts.close();
});
afterEach(() => settings(false, 0));

test('revokeRefreshToken off (the default): a refresh token is reused without limit and carries no reuse_id', async () => {
  const first = await login();
  expect(decodeJwt(String(first.refresh_token)).reuse_id).toBeUndefined();
  for (let i = 0; i < 4; i++) expect((await refresh(first.refresh_token)).status).toBe(200);
});

test('max reuse 0: a second use is refused (REFRESH_TOKEN_ERROR, invalid_token), then the whole client session is', async () => {
  await settings(true, 0);
  const first = await login();
  const rt1 = decodeJwt(String(first.refresh_token));
  expect(rt1.reuse_id).toEqual(expect.any(String));
  later();
  const second = (await refresh(first.refresh_token).expect(200)).body as Rep;
  // The refresh passes the chain on: same reuse_id, a new token id.
  const rt2 = decodeJwt(String(second.refresh_token));
  expect(rt2.reuse_id).toBe(rt1.reuse_id);
  expect(rt2.jti).not.toBe(rt1.jti);

  refused(await refresh(first.refresh_token), EXCEEDED);
  const ev = await lastError();
  expect(ev).toMatchObject({ type: 'REFRESH_TOKEN_ERROR', error: 'invalid_token', clientId: 'app', sessionId: rt1.sid });
  expect(ev.userId).toBeUndefined();
  expect(ev.details).toMatchObject({ refresh_token_id: rt1.jti, refresh_token_type: 'Refresh', grant_type: 'refresh_token' });
  // Keycloak detaches the client session on a refused reuse: the newer token goes with it.
  refused(await refresh(second.refresh_token), DETACHED);
});

test('max reuse 0: the newest token works, refresh after refresh; an older one is a "Stale token"', async () => {
  await settings(true, 0);
  const first = await login();
  later();
  const second = (await refresh(first.refresh_token).expect(200)).body as Rep;
  later();
  const third = (await refresh(second.refresh_token).expect(200)).body as Rep;
  later();
  const fourth = (await refresh(third.refresh_token).expect(200)).body as Rep;
  refused(await refresh(first.refresh_token), 'Stale token');
  expect((await lastError()).error).toBe('invalid_token');
  refused(await refresh(fourth.refresh_token), DETACHED);
});

test('max reuse 2: a token serves three refreshes, the fourth is refused', async () => {
  await settings(true, 2);
  const first = await login();
  for (let i = 0; i < 3; i++) expect((await refresh(first.refresh_token)).status).toBe(200);
  refused(await refresh(first.refresh_token), EXCEEDED);
});

test('a login chain is counted apart from another session, and a token of the time before counts under none', async () => {
  const before = await login();
  await settings(true, 0);
  const other = await login();
  expect((await refresh(before.refresh_token)).status).toBe(200);
  refused(await refresh(before.refresh_token), EXCEEDED);
  // The other login's session is untouched.
  const next = (await refresh(other.refresh_token).expect(200)).body as Rep;
  expect((await refresh(next.refresh_token)).status).toBe(200);
});

test('concurrent refreshes with one token under max reuse 0: exactly one succeeds', async () => {
  await settings(true, 0);
  const first = await login();
  const url = await ts.listen();
  const body = new URLSearchParams({ grant_type: 'refresh_token', client_id: 'app', refresh_token: String(first.refresh_token) });
  const N = 8;
  const results = await Promise.all(
    Array.from({ length: N }, () =>
      fetch(`${url}/realms/${R}/protocol/openid-connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Rep })),
    ),
  );
  expect(results.filter((r) => r.status === 200)).toHaveLength(1);
  const losers = results.filter((r) => r.status !== 200);
  expect(losers).toHaveLength(N - 1);
  for (const r of losers) {
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
    expect([EXCEEDED, DETACHED]).toContain(r.body.error_description);
  }
  expect(losers.some((r) => r.body.error_description === EXCEEDED)).toBe(true);
});

test('offline tokens: counted on the offline client session, apart from the online one', async () => {
  await settings(true, 0);
  const online = await login();
  const offline = await login('offline_access');
  const rt = decodeJwt(String(offline.refresh_token));
  expect(rt.typ).toBe('Offline');
  expect(rt.reuse_id).toEqual(expect.any(String));
  later();
  const next = (await refresh(offline.refresh_token).expect(200)).body as Rep;
  expect(decodeJwt(String(next.refresh_token))).toMatchObject({ typ: 'Offline', reuse_id: rt.reuse_id });
  refused(await refresh(offline.refresh_token), EXCEEDED);
  expect((await lastError()).details).toMatchObject({ refresh_token_type: 'Offline', refresh_token_id: rt.jti });
  refused(await refresh(next.refresh_token), DETACHED);
  expect((await refresh(online.refresh_token)).status).toBe(200);
});

test('introspection applies the same rule without counting (validateTokenReuseForIntrospection)', async () => {
  await settings(true, 0);
  const introspect = async (t: unknown) =>
    (
      await request(ts.app)
        .post(`/realms/${R}/protocol/openid-connect/token/introspect`)
        .type('form')
        .send(new URLSearchParams({ client_id: 'conf', client_secret: 's', token: String(t), token_type_hint: 'refresh_token' }).toString())
        .expect(200)
    ).body.active as boolean;
  const first = (
    await token({ grant_type: 'password', client_id: 'conf', client_secret: 's', username: 'alice', password: 'pw' }).expect(200)
  ).body as Rep;
  expect(await introspect(first.refresh_token)).toBe(true);
  expect(await introspect(first.refresh_token)).toBe(true);
  later();
  const second = (await refresh(first.refresh_token, 'conf').expect(200)).body as Rep;
  expect(await introspect(first.refresh_token)).toBe(false);
  expect(await introspect(second.refresh_token)).toBe(true);
  later();
  const third = (await refresh(second.refresh_token, 'conf').expect(200)).body as Rep;
  expect(await introspect(first.refresh_token)).toBe(false);
  expect(await introspect(third.refresh_token)).toBe(true);
  // Introspecting counted nothing: the newest token still refreshes once.
  expect((await refresh(third.refresh_token, 'conf')).status).toBe(200);
});

describe('with suppress-refresh-token-rotation (the reuse check runs before the executor)', () => {
  const base = `/admin/realms/${R}/client-policies`;
  beforeAll(async () => {
    await api
      .put(`${base}/profiles`, {
        profiles: [{ name: 'p', executors: [{ executor: 'suppress-refresh-token-rotation', configuration: {} }] }],
      })
      .expect(204);
    const conditions = [{ condition: 'client-access-type', configuration: { type: ['confidential'] } }];
    await api.put(`${base}/policies`, { policies: [{ name: 'pol', enabled: true, conditions, profiles: ['p'] }] }).expect(204);
  });
  afterAll(() => api.put(`${base}/policies`, { policies: [] }).expect(204));
  const confLogin = async () =>
    (await token({ grant_type: 'password', client_id: 'conf', client_secret: 's', username: 'alice', password: 'pw' }).expect(200))
      .body as Rep;

  test('the token kept counts each refresh: max reuse 1 allows two, the third is refused', async () => {
    await settings(true, 1);
    const first = await confLogin();
    for (let i = 0; i < 2; i++) {
      later();
      const res = (await refresh(first.refresh_token, 'conf').expect(200)).body as Rep;
      expect(res.refresh_token).toBeUndefined();
    }
    refused(await refresh(first.refresh_token, 'conf'), EXCEEDED);
  });

  test('revoke off: the token kept works on', async () => {
    const first = await confLogin();
    for (let i = 0; i < 3; i++) expect((await refresh(first.refresh_token, 'conf')).status).toBe(200);
  });
});
