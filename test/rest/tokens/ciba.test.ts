import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID, type webcrypto } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, decodeJwt, exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import request from 'supertest';
import { clock } from '../../../src/core/clock';
import { dpopKey, dpopProof } from '../../helpers/dpop';
import { createClient, createRealm, createUser, expectStatus } from '../../helpers/fixtures';
import { type AdminApi, startTestServer, type TestServer } from '../../helpers/server';

/**
 * OpenID Connect Client-Initiated Backchannel Authentication (ADR 0044), after Keycloak 26's
 * BackchannelAuthenticationEndpoint, HttpAuthenticationChannelProvider,
 * BackchannelAuthenticationCallbackEndpoint and CibaGrantType, and the fapi-ciba executors
 * (SecureCibaSessionEnforceExecutor, SecureCibaSignedAuthenticationRequestExecutor,
 * SecureCibaAuthenticationRequestSigningAlgorithmExecutor). The authentication device is a real HTTP
 * listener of this test: it records what the server POSTs to it and answers as told.
 */
type Json = Record<string, unknown>;
const R = 'ciba';
const CIBA = 'urn:openid:params:grant-type:ciba';
const ISSUER = `http://localhost:8080/realms/${R}`;

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
  body: Json;
}
const seen: Seen[] = [];
let deviceStatus = 201;
let notifyStatus = 204;
let device: Server;
let deviceUrl: string;
let ts: TestServer;
let api: AdminApi;
let aliceId: string;
let key: webcrypto.CryptoKeyPair;

function listen(): Promise<Server> {
  const s = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      seen.push({ url: req.url ?? '', headers: req.headers, body: text ? (JSON.parse(text) as Json) : {} });
      const status = req.url?.startsWith('/notify') ? notifyStatus : deviceStatus;
      if (status < 0) {
        req.socket.destroy();
        return;
      }
      res.statusCode = status;
      res.end();
    });
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}

beforeAll(async () => {
  device = await listen();
  deviceUrl = `http://127.0.0.1:${(device.address() as AddressInfo).port}`;
  ts = await startTestServer({ ciba: { channelUri: `${deviceUrl}/auth` } });
  api = await ts.api();
  await createRealm(api, R, { eventsEnabled: true, attributes: { cibaInterval: '2' } });
  key = (await globalThis.crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const jwk = { ...(await exportJWK(key.publicKey)), kid: 'ec', alg: 'ES256' };
  const ciba = { 'oidc.ciba.grant.enabled': 'true' };
  await createClient(api, R, { clientId: 'cd', secret: 'cd-secret', attributes: ciba });
  await createClient(api, R, { clientId: 'cd2', secret: 'cd2-secret', attributes: ciba });
  await createClient(api, R, { clientId: 'plain', secret: 'plain-secret' });
  await createClient(api, R, {
    clientId: 'pinger',
    secret: 'pinger-secret',
    attributes: {
      ...ciba,
      'ciba.backchannel.token.delivery.mode': 'ping',
      'ciba.backchannel.client.notification.endpoint': `${deviceUrl}/notify`,
    },
  });
  await createClient(api, R, {
    clientId: 'signer',
    secret: 'signer-secret',
    attributes: {
      ...ciba,
      'ciba.backchannel.auth.request.signing.alg': 'ES256',
      'use.jwks.string': 'true',
      'jwks.string': JSON.stringify({ keys: [jwk] }),
    },
  });
  aliceId = await createUser(ts, R, 'alice');
  await createUser(ts, R, 'pending', { extra: { requiredActions: ['UPDATE_PASSWORD'] } });
  await createUser(ts, R, 'off', { extra: { enabled: false } });
  await createUser(ts, R, 'bob', { defaultRoles: true });
});
afterAll(async () => {
  await ts?.close();
  device?.closeAllConnections();
  await new Promise((r) => device?.close(r));
});
const realNow = clock.now;
afterEach(async () => {
  clock.now = realNow;
  deviceStatus = 201;
  notifyStatus = 204;
  seen.length = 0;
  await api.put(`/admin/realms/${R}/client-policies/policies`, { policies: [] }).expect(204);
});

const creds: Record<string, string> = {
  cd: 'cd-secret',
  cd2: 'cd2-secret',
  plain: 'plain-secret',
  pinger: 'pinger-secret',
  signer: 'signer-secret',
  sealed: 'sealed-secret',
};
const authRequest = (fields: Record<string, string | string[]>, client = 'cd') =>
  request(ts.app).post(`/realms/${R}/protocol/openid-connect/ext/ciba/auth`).auth(client, creds[client]).type('form').send(fields);
const poll = (authReqId: string | undefined, client = 'cd') =>
  request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .auth(client, creds[client])
    .type('form')
    .send({ grant_type: CIBA, ...(authReqId === undefined ? {} : { auth_req_id: authReqId }) });
const callback = (bearer: string | undefined, body: unknown) => {
  const r = request(ts.app).post(`/realms/${R}/protocol/openid-connect/ext/ciba/auth/callback`);
  if (bearer) r.set('Authorization', `Bearer ${bearer}`);
  return r.set('Content-Type', 'application/json').send(JSON.stringify(body));
};
const later = (seconds: number) => {
  clock.now = () => realNow() + seconds * 1000;
};
const err = (res: request.Response) => [res.status, res.body.error, res.body.error_description];

/** An accepted request: its auth_req_id and the device's bearer token. */
async function started(fields: Record<string, string> = {}, client = 'cd'): Promise<{ authReqId: string; bearer: string; body: Json }> {
  const res = expectStatus(await authRequest({ scope: 'openid', login_hint: 'alice', ...fields }, client), 200, 'ciba auth');
  const last = seen[seen.length - 1];
  return { authReqId: res.body.auth_req_id, bearer: String(last.headers.authorization).slice(7), body: last.body };
}

async function events(type: string): Promise<Json[]> {
  return expectStatus(await api.get(`/admin/realms/${R}/events?type=${type}`), 200, 'events').body as Json[];
}

test('poll mode: the device is asked, the client polls (pending, slow_down), the device approves, the client gets tokens of a session', async () => {
  const res = await authRequest({ scope: 'openid', login_hint: 'alice', binding_message: 'Confirm-123' });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ auth_req_id: expect.any(String), expires_in: 120, interval: 2 });
  expect(res.headers['cache-control']).toBe('no-store');
  // What the device received: Keycloak's AuthenticationChannelRequest and a bearer token for the callback.
  expect(seen).toHaveLength(1);
  expect(seen[0].url).toBe('/auth');
  expect(seen[0].headers['content-type']).toMatch(/^application\/json/);
  expect(seen[0].body).toEqual({
    scope: expect.stringMatching(/^openid /),
    binding_message: 'Confirm-123',
    login_hint: 'alice',
    is_consent_required: false,
  });
  expect(String(seen[0].body.scope).split(' ')).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
  const bearer = String(seen[0].headers.authorization).replace(/^Bearer /, '');
  const channel = decodeJwt(bearer);
  expect(channel).toMatchObject({ iss: ISSUER, aud: ISSUER, azp: 'cd', sub: aliceId });
  expect(channel.typ).not.toBe('Bearer');
  // The channel token is no access token: the admin API and userinfo refuse it.
  expect((await request(ts.app).get(`/admin/realms/${R}/users`).set('Authorization', `Bearer ${bearer}`)).status).toBe(401);
  expect((await request(ts.app).get(`/realms/${R}/protocol/openid-connect/userinfo`).set('Authorization', `Bearer ${bearer}`)).status).toBe(
    401,
  );

  const id = res.body.auth_req_id as string;
  const pending = await ts.countSql(() => poll(id));
  expect(err(pending.result)).toEqual([
    400,
    'authorization_pending',
    "The authorization request is still pending as the end-user hasn't yet been authenticated.",
  ]);
  expect(pending.count).toBeLessThanOrEqual(6);
  expect(err(await poll(id))).toEqual([400, 'slow_down', 'too early to access']);

  const cb = await callback(bearer, { status: 'SUCCEED' });
  expect(cb.status).toBe(200);
  later(3);
  const tokens = await poll(id);
  expect(tokens.status).toBe(200);
  expect(tokens.body).toMatchObject({
    token_type: 'Bearer',
    access_token: expect.any(String),
    id_token: expect.any(String),
    refresh_token: expect.any(String),
  });
  expect(decodeJwt(tokens.body.id_token)).toMatchObject({ sub: aliceId, aud: 'cd', iss: ISSUER, auth_time: expect.any(Number) });
  expect(decodeJwt(tokens.body.access_token)).toMatchObject({ sub: aliceId, azp: 'cd', sid: tokens.body.session_state });
  expect(String(tokens.body.scope).split(' ')).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
  // Used up.
  expect(err(await poll(id))).toEqual([400, 'invalid_grant', 'Invalid auth_req_id']);
  clock.now = realNow;

  const sessions = expectStatus(await api.get(`/admin/realms/${R}/users/${aliceId}/sessions`), 200, 'sessions').body as Json[];
  expect(sessions.map((s) => s.id)).toContain(tokens.body.session_state);
  expect(Object.values((sessions.find((s) => s.id === tokens.body.session_state)?.clients ?? {}) as Json)).toEqual(['cd']);
  const consents = expectStatus(await api.get(`/admin/realms/${R}/users/${aliceId}/consents`), 200, 'consents').body as Json[];
  expect(consents.map((c) => c.clientId)).toContain('cd');
  const [ev] = await events('AUTHREQID_TO_TOKEN');
  expect(ev).toMatchObject({ clientId: 'cd', userId: aliceId, sessionId: tokens.body.session_state });
  expect(ev.details).toMatchObject({ grant_type: CIBA, consent: 'consent_granted', scope: tokens.body.scope });
  // The refresh token refreshes.
  const refreshed = await request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .auth('cd', 'cd-secret')
    .type('form')
    .send({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token });
  expect(refreshed.status).toBe(200);
});

test('a login_hint may be the e-mail address; the device hears the username', async () => {
  // Bounded SQL: realm, client, user (by username, then e-mail), its scopes (two), the purge look and the insert.
  const { result, count } = await ts.countSql(() => authRequest({ scope: 'openid', login_hint: 'alice@example.org' }));
  expect(result.status).toBe(200);
  expect(count).toBeLessThanOrEqual(8);
  expect(seen[0].body.login_hint).toBe('alice');
});

test('offline_access: an offline session for a user holding the offline_access role, refused otherwise', async () => {
  const a = await started({ scope: 'openid offline_access', login_hint: 'bob' });
  expect((await callback(a.bearer, { status: 'SUCCEED' })).status).toBe(200);
  const tokens = await poll(a.authReqId);
  expect(tokens.status).toBe(200);
  expect(decodeJwt(tokens.body.refresh_token).typ).toBe('Offline');
  const b = await started({ scope: 'openid offline_access' });
  expect((await callback(b.bearer, { status: 'SUCCEED' })).status).toBe(200);
  expect(err(await poll(b.authReqId))).toEqual([400, 'not_allowed', 'Offline tokens not allowed for the user or client']);
});

test('the device refuses: UNAUTHORIZED and CANCELLED deny the request (LOGIN_ERROR), the poll answers access_denied', async () => {
  const a = await started();
  expect((await callback(a.bearer, { status: 'UNAUTHORIZED' })).status).toBe(200);
  expect(err(await poll(a.authReqId))).toEqual([400, 'access_denied', 'not authorized']);
  const b = await started();
  expect((await callback(b.bearer, { status: 'CANCELLED' })).status).toBe(200);
  expect(err(await poll(b.authReqId))).toEqual([400, 'access_denied', 'not authorized']);
  const errors = (await events('LOGIN_ERROR')).filter((e) => e.clientId === 'cd').map((e) => e.error);
  expect(errors).toEqual(expect.arrayContaining(['consent_denied', 'not_allowed']));
});

test('expiry: past expires_in the poll answers expired_token', async () => {
  const a = await started();
  later(121);
  expect(err(await poll(a.authReqId))).toEqual([400, 'expired_token', 'authentication timed out']);
});

test('the grant: refusals as CibaGrantType', async () => {
  const a = await started();
  expect(err(await poll(undefined))).toEqual([400, 'invalid_request', 'Missing parameter: auth_req_id']);
  expect(err(await poll('garbage'))).toEqual([400, 'invalid_grant', 'Invalid Auth Req ID']);
  expect(err(await poll('A'.repeat(43)))).toEqual([400, 'invalid_grant', 'Invalid auth_req_id']);
  expect(err(await poll(a.authReqId, 'plain'))).toEqual([400, 'invalid_grant', 'Client not allowed OIDC CIBA Grant']);
  expect(err(await poll(a.authReqId, 'cd2'))).toEqual([400, 'invalid_grant', 'unauthorized client']);
  const wrong = await request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .auth('cd', 'nope')
    .type('form')
    .send({ grant_type: CIBA, auth_req_id: a.authReqId });
  expect(err(wrong)).toEqual([401, 'unauthorized_client', 'Invalid client or Invalid client credentials']);
  const errors = (await events('AUTHREQID_TO_TOKEN_ERROR')).map((e) => e.error);
  expect(errors).toEqual(
    expect.arrayContaining(['invalid_code', 'not_allowed', 'invalid_oauth2_device_code', 'invalid_client_credentials']),
  );
  // The user must be able to log in when the tokens are issued.
  const p = await started({ login_hint: 'pending' });
  expect((await callback(p.bearer, { status: 'SUCCEED' })).status).toBe(200);
  expect(err(await poll(p.authReqId))).toEqual([400, 'invalid_grant', 'Account is not fully set up']);
  // BACKCHANNEL_TOKEN_REQUEST policies: holder-of-key-enforcer wants a client certificate (none is forwarded here).
  await api
    .put(`/admin/realms/${R}/client-policies/profiles`, {
      profiles: [{ name: 'hok', executors: [{ executor: 'holder-of-key-enforcer', configuration: {} }] }],
    })
    .expect(204);
  await api
    .put(`/admin/realms/${R}/client-policies/policies`, {
      policies: [{ name: 'hok', enabled: true, conditions: [{ condition: 'any-client', configuration: {} }], profiles: ['hok'] }],
    })
    .expect(204);
  expect(err(await poll(a.authReqId))).toEqual([400, 'invalid_grant', 'Client Certification missing for MTLS HoK Token Binding']);
});

test('client-access-type abstains on the CIBA events (ClientAccessTypeCondition): its policies leave both requests alone', async () => {
  const policy = (profile: string, condition: string, configuration: Json = {}) =>
    api
      .put(`/admin/realms/${R}/client-policies/policies`, {
        policies: [{ name: 'p', enabled: true, conditions: [{ condition, configuration }], profiles: [profile] }],
      })
      .expect(204);
  await api
    .put(`/admin/realms/${R}/client-policies/profiles`, {
      profiles: [{ name: 'hok', executors: [{ executor: 'holder-of-key-enforcer', configuration: {} }] }],
    })
    .expect(204);
  // BACKCHANNEL_AUTHENTICATION_REQUEST: fapi-ciba wants a binding message, but the condition abstains.
  await policy('fapi-ciba', 'client-access-type', { type: ['confidential'] });
  const a = await started();
  await policy('fapi-ciba', 'any-client');
  expect(err(await authRequest({ scope: 'openid', login_hint: 'alice' }))).toEqual([
    400,
    'invalid_request',
    'Missing parameter: binding_message',
  ]);
  // BACKCHANNEL_TOKEN_REQUEST: holder-of-key-enforcer wants a client certificate, but the condition abstains.
  expect((await callback(a.bearer, { status: 'SUCCEED' })).status).toBe(200);
  await policy('hok', 'client-access-type', { type: ['confidential'] });
  expect((await poll(a.authReqId)).status).toBe(200);
});

test('client-scopes judges a CIBA token request by the scope of its authentication request (ClientScopesCondition)', async () => {
  const withPhone = await started({ scope: 'openid phone' });
  const without = await started();
  for (const s of [withPhone, without]) expect((await callback(s.bearer, { status: 'SUCCEED' })).status).toBe(200);
  await api
    .put(`/admin/realms/${R}/client-policies/profiles`, {
      profiles: [{ name: 'hok', executors: [{ executor: 'holder-of-key-enforcer', configuration: {} }] }],
    })
    .expect(204);
  const condition = { condition: 'client-scopes', configuration: { type: 'Optional', scopes: ['phone'] } };
  await api
    .put(`/admin/realms/${R}/client-policies/policies`, {
      policies: [{ name: 'p', enabled: true, conditions: [condition], profiles: ['hok'] }],
    })
    .expect(204);
  // The token request names no scope: the condition reads the authentication request's.
  expect(err(await poll(withPhone.authReqId))).toEqual([400, 'invalid_grant', 'Client Certification missing for MTLS HoK Token Binding']);
  expect((await poll(without.authReqId)).status).toBe(200);
});

test('the authentication request: refusals as BackchannelAuthenticationEndpoint', async () => {
  const base = { scope: 'openid', login_hint: 'alice' };
  const noAuth = await request(ts.app).post(`/realms/${R}/protocol/openid-connect/ext/ciba/auth`).type('form').send(base);
  expect(err(noAuth)).toEqual([401, 'invalid_client', 'Invalid client or Invalid client credentials']);
  const badSecret = await request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/ext/ciba/auth`)
    .auth('cd', 'x')
    .type('form')
    .send(base);
  expect(err(badSecret)).toEqual([401, 'unauthorized_client', 'Invalid client or Invalid client credentials']);
  expect(err(await authRequest(base, 'plain'))).toEqual([401, 'invalid_grant', 'Client not allowed OIDC CIBA Grant']);
  expect((await events('LOGIN_ERROR')).find((e) => e.clientId === 'plain')?.error).toBe('not_allowed');
  expect(err(await authRequest({ scope: 'openid' }))).toEqual([400, 'invalid_request', 'missing parameter : login_hint']);
  expect(err(await authRequest({ ...base, login_hint: 'nobody' }))).toEqual([400, 'invalid_request', 'invalid user']);
  expect(err(await authRequest({ ...base, login_hint: 'off' }))).toEqual([400, 'invalid_request', 'invalid user']);
  expect(err(await authRequest({ login_hint: 'alice' }))).toEqual([400, 'invalid_request', 'missing parameter : scope']);
  expect(err(await authRequest({ ...base, scope: 'openid nope' }))).toEqual([400, 'invalid_scope', 'Invalid scopes: openid nope']);
  expect(err(await authRequest({ ...base, binding_message: 'has spaces' }))).toEqual([
    400,
    'invalid_binding_message',
    'the binding_message value has to be max 50 characters in length and must contain only basic plain-text characters without spaces',
  ]);
  expect(err(await authRequest({ ...base, user_code: '1234' }))).toEqual([400, 'invalid_request', 'User code not supported']);
  expect(err(await authRequest({ ...base, client_notification_token: 't' }))).toEqual([
    400,
    'invalid_request',
    'Client Notification token supported only for the ping mode',
  ]);
  expect(err(await authRequest({ ...base, requested_expiry: 'soon' }))).toEqual([400, 'invalid_request', 'For input string: "soon"']);
  expect(err(await authRequest({ ...base, login_hint: ['alice', 'bob'] }))).toEqual([400, 'invalid_request', 'duplicated parameter']);
  expect(err(await authRequest({ ...base, request: 'a.b.c', request_uri: 'https://x' }))).toEqual([
    400,
    'invalid_request',
    "Illegal to use both 'request' and 'request_uri' parameters together",
  ]);
  expect(err(await authRequest({ ...base, request_uri: 'https://elsewhere.example/r' }))).toEqual([
    400,
    'invalid_request',
    "Specified 'request_uri' not allowed for this client.",
  ]);
  expect(seen).toHaveLength(0);
  // The device does not answer 201: 503, and nothing is kept.
  const rows = async () => {
    const [{ n }] = (await ts.db.sequelize.query('SELECT COUNT(*) AS n FROM ciba_auth_request', { type: 'SELECT' })) as Array<{
      n: number | string;
    }>;
    return Number(n);
  };
  const before = await rows();
  deviceStatus = 500;
  expect(err(await authRequest(base))).toEqual([503, 'server_error', 'Unexpected response from authentication device']);
  expect(await rows()).toBe(before);
  // The device cannot be reached: 503 too.
  deviceStatus = -1;
  expect(err(await authRequest(base))).toEqual([503, 'server_error', 'Failed to send authentication request']);
  expect(await rows()).toBe(before);
});

test('the callback: refusals as BackchannelAuthenticationCallbackEndpoint', async () => {
  expect(err(await callback(undefined, { status: 'SUCCEED' }))).toEqual([401, 'invalid_token', 'Invalid token']);
  expect(err(await callback('not-a-token', { status: 'SUCCEED' }))).toEqual([403, 'invalid_token', 'Invalid token']);
  // A real access token of the realm is no channel token.
  const pw = await request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username: 'alice', password: 'pw' });
  expect(err(await callback(pw.body.access_token, { status: 'SUCCEED' }))).toEqual([403, 'invalid_token', 'Invalid token']);
  const a = await started();
  expect(err(await callback(a.bearer, { status: 'MAYBE' }))).toEqual([400, 'invalid_request', 'Invalid authentication status']);
  expect(err(await callback(a.bearer, {}))).toEqual([400, 'invalid_request', 'Invalid authentication status']);
  const garbled = await request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/ext/ciba/auth/callback`)
    .set('Authorization', `Bearer ${a.bearer}`)
    .set('Content-Type', 'application/json')
    .send('{not json');
  expect(err(garbled)).toEqual([400, 'invalid_request', 'Invalid authentication status']);
  expect((await callback(a.bearer, { status: 'SUCCEED' })).status).toBe(200);
  // A second answer for a settled request is refused and cancels it (Keycloak's cancelRequest).
  expect(err(await callback(a.bearer, { status: 'SUCCEED' }))).toEqual([403, 'invalid_token', 'Invalid token']);
  expect(err(await poll(a.authReqId))).toEqual([400, 'invalid_grant', 'Invalid auth_req_id']);
  // Past its expiry the token is refused.
  const b = await started({ requested_expiry: '1' });
  await new Promise((r) => setTimeout(r, 2100));
  expect(err(await callback(b.bearer, { status: 'SUCCEED' }))).toEqual([403, 'invalid_token', 'Invalid token']);
});

test('ping mode: the client names a notification token, the callback notifies the client, the client then takes its tokens', async () => {
  const base = { scope: 'openid', login_hint: 'alice' };
  expect(err(await authRequest(base, 'pinger'))).toEqual([
    400,
    'invalid_request',
    'Client Notification token needs to be provided with the ping mode',
  ]);
  expect(err(await authRequest({ ...base, client_notification_token: 'x'.repeat(1025) }, 'pinger'))).toEqual([
    400,
    'invalid_request',
    'Client Notification token length is limited to 1024 characters',
  ]);
  const a = await started({ client_notification_token: 'note-1' }, 'pinger');
  expect((await callback(a.bearer, { status: 'SUCCEED' })).status).toBe(200);
  const note = seen.find((s) => s.url === '/notify');
  expect(note?.headers.authorization).toBe('Bearer note-1');
  expect(note?.body).toEqual({ auth_req_id: a.authReqId });
  const tokens = await poll(a.authReqId, 'pinger');
  expect(tokens.status).toBe(200);
  expect(decodeJwt(tokens.body.access_token).azp).toBe('pinger');
  // A notification endpoint that fails: the device hears of it.
  notifyStatus = 500;
  const b = await started({ client_notification_token: 'note-2' }, 'pinger');
  expect(err(await callback(b.bearer, { status: 'SUCCEED' }))).toEqual([
    400,
    'invalid_request',
    'Failed to send request to client notification endpoint',
  ]);
});

/** A signed authentication request of `signer` (ES256), with the claims FAPI-CIBA asks for. */
async function signedRequest(claims: Json = {}, omit: string[] = [], signWith = key.privateKey): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const all: Json = {
    iss: 'signer',
    aud: ISSUER,
    exp: now + 300,
    nbf: now,
    iat: now,
    jti: randomUUID(),
    scope: 'openid',
    login_hint: 'alice',
    binding_message: 'Sign-1',
    ...claims,
  };
  for (const k of omit) delete all[k];
  return new SignJWT(all).setProtectedHeader({ alg: 'ES256', kid: 'ec' }).sign(signWith);
}

test('signed authentication requests: verified with the client keys and its ciba.backchannel.auth.request.signing.alg', async () => {
  const ok = await authRequest({ request: await signedRequest() }, 'signer');
  expect(ok.status).toBe(200);
  expect(seen[0].body).toMatchObject({ login_hint: 'alice', binding_message: 'Sign-1' });
  const other = (await globalThis.crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  expect(err(await authRequest({ request: await signedRequest({}, [], other.privateKey) }, 'signer'))).toEqual([
    400,
    'invalid_request',
    'Failed to verify signature',
  ]);
  const hs = await new SignJWT({ login_hint: 'alice' })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode('signer-secret'));
  expect(err(await authRequest({ request: hs }, 'signer'))).toEqual([400, 'invalid_request', 'Signed algorithm is not allowed']);
  const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"login_hint":"alice"}').toString('base64url')}.`;
  expect(err(await authRequest({ request: none }, 'signer'))).toEqual([400, 'invalid_request', 'None signed algorithm is not allowed']);
  // cd registered no algorithm.
  expect(err(await authRequest({ request: await signedRequest() }))).toEqual([
    400,
    'invalid_request',
    'Client requested algorithm not registered in advance or request signed with different algorithm other than client requested algorithm',
  ]);
});

test('fapi-ciba: binding message and signed request required, signing algorithm enforced on client writes', async () => {
  await api
    .put(`/admin/realms/${R}/client-policies/policies`, {
      policies: [{ name: 'ciba', enabled: true, conditions: [{ condition: 'any-client', configuration: {} }], profiles: ['fapi-ciba'] }],
    })
    .expect(204);
  expect(err(await authRequest({ scope: 'openid', login_hint: 'alice' }))).toEqual([
    400,
    'invalid_request',
    'Missing parameter: binding_message',
  ]);
  expect(err(await authRequest({ scope: 'openid', login_hint: 'alice', binding_message: 'B-1' }))).toEqual([
    400,
    'invalid_request',
    "Missing parameter: 'request' or 'request_uri'",
  ]);
  expect(err(await authRequest({ request: await signedRequest({}, ['nbf']) }, 'signer'))).toEqual([
    400,
    'invalid_request',
    'Missing parameter in the signed authentication request: nbf',
  ]);
  const now = Math.floor(Date.now() / 1000);
  expect(err(await authRequest({ request: await signedRequest({ exp: now + 4000 }) }, 'signer'))).toEqual([
    400,
    'invalid_request',
    "signed authentication request's available period is long",
  ]);
  expect(err(await authRequest({ request: await signedRequest({ aud: 'https://other' }) }, 'signer'))).toEqual([
    400,
    'invalid_request',
    "Invalid parameter in the 'request' object: aud",
  ]);
  expect(err(await authRequest({ request: await signedRequest({}, ['jti']) }, 'signer'))).toEqual([
    400,
    'invalid_request',
    'Missing parameter in the signed authentication request: jti',
  ]);
  expect((await events('LOGIN_ERROR')).some((e) => e.clientId === 'signer' && e.error === 'invalid_request')).toBe(true);
  expect((await authRequest({ request: await signedRequest() }, 'signer')).status).toBe(200);
  // Client writes: the signing algorithm defaults to PS256, RS256 is refused.
  const id = await createClient(api, R, { clientId: 'fapi-new' });
  const rep = expectStatus(await api.get(`/admin/realms/${R}/clients/${id}`), 200, 'client').body;
  expect(rep.attributes['ciba.backchannel.auth.request.signing.alg']).toBe('PS256');
  const bad = await api.post(`/admin/realms/${R}/clients`, {
    clientId: 'fapi-rs',
    attributes: { 'ciba.backchannel.auth.request.signing.alg': 'RS256' },
  });
  expect(err(bad)).toEqual([400, 'invalid_request', 'not allowed signature algorithm.']);
});

test("the realm's CIBA policy takes effect: expires_in, interval, the user hint (BackchannelAuthenticationEndpoint.resolveUser); a disabled realm is refused", async () => {
  const P = 'cibapolicy';
  await createRealm(api, P, { attributes: { cibaExpiresIn: '30', cibaInterval: '0', cibaAuthRequestedUserHint: 'login_hint' } });
  await createClient(api, P, { clientId: 'cd', secret: 'cd-secret', attributes: { 'oidc.ciba.grant.enabled': 'true' } });
  await createUser(ts, P, 'alice');
  const at = (client: string, secret: string, fields: Record<string, string>) =>
    request(ts.app).post(`/realms/${P}/protocol/openid-connect/ext/ciba/auth`).auth(client, secret).type('form').send(fields);
  const base = { scope: 'openid', login_hint: 'alice' };
  const ok = await at('cd', 'cd-secret', base);
  expect(ok.body).toEqual({ auth_req_id: expect.any(String), expires_in: 30 });
  // Under the login_hint policy the other hints are not read: without login_hint the request is refused.
  expect(err(await at('cd', 'cd-secret', { scope: 'openid', id_token_hint: 'x', login_hint_token: 'y' }))).toEqual([
    400,
    'invalid_request',
    'missing parameter : login_hint',
  ]);
  const realm = expectStatus(await api.get(`/admin/realms/${P}`), 200, 'realm').body;
  await api.put(`/admin/realms/${P}`, { attributes: { ...realm.attributes, cibaAuthRequestedUserHint: 'id_token_hint' } }).expect(204);
  expect(err(await at('cd', 'cd-secret', base))).toEqual([400, 'invalid_request', 'missing parameter : id_token_hint']);
  expect(err(await at('cd', 'cd-secret', { ...base, id_token_hint: 'x' }))).toEqual([400, 'invalid_request', 'invalid user']);
  // Keycloak's DefaultCIBALoginUserResolver resolves no one from an id_token_hint or a login_hint_token ("not yet
  // supported"): a real ID token of the user is no better than garbage.
  const pw = await request(ts.app)
    .post(`/realms/${P}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username: 'alice', password: 'pw', scope: 'openid' });
  expect(pw.body.id_token).toEqual(expect.any(String));
  expect(err(await at('cd', 'cd-secret', { ...base, id_token_hint: pw.body.id_token }))).toEqual([400, 'invalid_request', 'invalid user']);
  await api.put(`/admin/realms/${P}`, { attributes: { ...realm.attributes, cibaAuthRequestedUserHint: 'login_hint_token' } }).expect(204);
  expect(err(await at('cd', 'cd-secret', base))).toEqual([400, 'invalid_request', 'missing parameter : login_hint_token']);
  expect(err(await at('cd', 'cd-secret', { ...base, login_hint_token: pw.body.id_token }))).toEqual([
    400,
    'invalid_request',
    'invalid user',
  ]);
  await api.put(`/admin/realms/${P}`, { attributes: { ...realm.attributes, cibaAuthRequestedUserHint: 'nonsense' } }).expect(204);
  expect(err(await at('cd', 'cd-secret', base))).toEqual([400, 'invalid_request', 'invalid user hint']);
  await api.put(`/admin/realms/${P}`, { enabled: false }).expect(204);
  expect(err(await at('cd', 'cd-secret', base))).toEqual([401, 'access_denied', 'Realm not enabled']);
});

test('discovery lists CIBA: its endpoint, poll and ping, the request signing algorithms and the grant type', async () => {
  const doc = (await request(ts.app).get(`/realms/${R}/.well-known/openid-configuration`)).body;
  expect(doc.backchannel_authentication_endpoint).toBe(`${ISSUER}/protocol/openid-connect/ext/ciba/auth`);
  expect(doc.backchannel_token_delivery_modes_supported).toEqual(['poll', 'ping']);
  expect(doc.backchannel_authentication_request_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256', 'PS256', 'RS256']));
  expect(doc.backchannel_authentication_request_signing_alg_values_supported).not.toContain('HS256');
  expect(doc.grant_types_supported).toContain(CIBA);
});

test('a client with encrypted ID tokens gets its CIBA ID token encrypted, auth_time inside', async () => {
  const enc = await generateKeyPair('RSA-OAEP', { extractable: true });
  const jwk = { ...(await exportJWK(enc.publicKey)), kid: 'sealed-enc', use: 'enc', alg: 'RSA-OAEP' };
  await createClient(api, R, {
    clientId: 'sealed',
    secret: 'sealed-secret',
    attributes: {
      'oidc.ciba.grant.enabled': 'true',
      'use.jwks.string': 'true',
      'jwks.string': JSON.stringify({ keys: [jwk] }),
      'id.token.encrypted.response.alg': 'RSA-OAEP',
    },
  });
  const { authReqId, bearer } = await started({}, 'sealed');
  expect((await callback(bearer, { status: 'SUCCEED' })).status).toBe(200);
  later(3);
  const tokens = await poll(authReqId, 'sealed');
  expect(tokens.status).toBe(200);
  const inner = new TextDecoder().decode((await compactDecrypt(tokens.body.id_token, enc.privateKey)).plaintext);
  expect(decodeJwt(inner)).toMatchObject({ sub: aliceId, aud: 'sealed', auth_time: expect.any(Number) });
});

test('dpop-bind-enforcer on the CIBA grant (DPoPBindEnforcerExecutor, BACKCHANNEL_TOKEN_REQUEST): no proof is refused, a proof binds the tokens', async () => {
  const a = await started();
  expect((await callback(a.bearer, { status: 'SUCCEED' })).status).toBe(200);
  await api
    .put(`/admin/realms/${R}/client-policies/profiles`, {
      profiles: [{ name: 'dpop', executors: [{ executor: 'dpop-bind-enforcer', configuration: {} }] }],
    })
    .expect(204);
  await api
    .put(`/admin/realms/${R}/client-policies/policies`, {
      policies: [{ name: 'dpop', enabled: true, conditions: [{ condition: 'any-client', configuration: {} }], profiles: ['dpop'] }],
    })
    .expect(204);
  later(3);
  expect(err(await poll(a.authReqId))).toEqual([400, 'invalid_grant', 'DPoP proof is missing']);
  const [ev] = await events('AUTHREQID_TO_TOKEN_ERROR');
  expect(ev).toMatchObject({ clientId: 'cd', error: 'invalid_dpop_proof' });
  expect(ev.details).toMatchObject({ reason: 'client_policy_error', client_policy_error: 'invalid_dpop_proof' });
  // The request is still pending: a poll with a proof takes tokens bound to its key.
  later(6);
  const key = await dpopKey();
  const tokens = await request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .auth('cd', creds.cd)
    .set('DPoP', await dpopProof(key, 'POST', `/realms/${R}/protocol/openid-connect/token`))
    .type('form')
    .send({ grant_type: CIBA, auth_req_id: a.authReqId });
  expect(tokens.status).toBe(200);
  expect(tokens.body.token_type).toBe('DPoP');
  expect(decodeJwt(tokens.body.access_token).cnf).toEqual({ jkt: key.jkt });
});

test('an encrypted authentication request is refused (BackchannelAuthenticationEndpointSignedRequestParser)', async () => {
  const certs = (await request(ts.app).get(`/realms/${R}/protocol/openid-connect/certs`)).body as { keys: JWK[] };
  const enc = certs.keys.find((k) => k.use === 'enc') as JWK;
  const sealed = await new CompactEncrypt(new TextEncoder().encode(await signedRequest()))
    .setProtectedHeader({ alg: 'RSA-OAEP', enc: 'A256GCM', kid: enc.kid })
    .encrypt(await importJWK(enc, 'RSA-OAEP'));
  expect(err(await authRequest({ request: sealed }, 'signer'))).toEqual([
    400,
    'invalid_request',
    'Encrypted request object is not allowed',
  ]);
});
