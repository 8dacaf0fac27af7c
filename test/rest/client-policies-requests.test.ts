import request from 'supertest';
import { decodeJwt } from 'jose';
import { createClient, createUser } from '../helpers/fixtures';
import { Jar, type LoginWorld, REDIRECT, exchange, loginWorld, pkcePair, redirectParams, signIn } from '../login/browser-client';
import { type RegistrationFixture, registrationFixture } from '../oidc/client-registration-fixture';

/**
 * Client policies enforced on requests (issue 16 item 2, ADR 0032): the authorization endpoint
 * (AUTHORIZATION_REQUEST, refusals sent back to the redirect URI), the token endpoint (TOKEN_REQUEST,
 * RESOURCE_OWNER_PASSWORD_CREDENTIALS_REQUEST, SERVICE_ACCOUNT_TOKEN_REQUEST, TOKEN_REFRESH: 400
 * `{"error", "error_description"}`) and the client registration service (REGISTER / UPDATE).
 */
type Json = Record<string, unknown>;
const ex = (executor: string, configuration: Json = {}) => ({ executor, configuration });
const cond = (condition: string, configuration: Json = {}) => ({ condition, configuration });

describe('authorization and token requests', () => {
  let w: LoginWorld;
  const R = 'cpreq';
  const base = `/admin/realms/${R}`;
  beforeAll(async () => {
    w = await loginWorld(R);
    await createClient(w.api, R, {
      clientId: 'conf',
      secret: 'conf-secret',
      directAccessGrantsEnabled: true,
      serviceAccountsEnabled: true,
      redirectUris: [REDIRECT],
      optionalClientScopes: ['phone'],
    });
    await createUser(w.ts, R, 'bob', { password: 'pw' });
  });
  afterAll(() => w?.ts.close());

  async function enforce(executors: Json[], conditions: Json[] = [cond('any-client')]) {
    await w.api.put(`${base}/client-policies/profiles`, { profiles: [{ name: 'p', executors }] }).expect(204);
    await w.api
      .put(`${base}/client-policies/policies`, { policies: [{ name: 'pol', enabled: true, conditions, profiles: ['p'] }] })
      .expect(204);
  }
  afterEach(() => w.api.put(`${base}/client-policies/policies`, { policies: [] }).expect(204));

  const token = (form: Record<string, string>) =>
    request(w.ts.app).post(`/realms/${R}/protocol/openid-connect/token`).type('form').send(form);
  const password = () =>
    token({ grant_type: 'password', client_id: 'conf', client_secret: 'conf-secret', username: 'bob', password: 'pw' });
  const serviceAccount = (extra: Record<string, string> = {}) =>
    token({ grant_type: 'client_credentials', client_id: 'conf', client_secret: 'conf-secret', ...extra });
  const refused = (res: { status: number; body: unknown }, error: string, description: string) =>
    expect([res.status, res.body]).toEqual([400, { error, error_description: description }]);
  const authorize = (params: Record<string, string> = {}) => fetch(w.authUrl(params), { redirect: 'manual' });

  test('reject-ropc-grant refuses the password grant (invalid_grant) and records the error event', async () => {
    await password().expect(200);
    await enforce([ex('reject-ropc-grant')]);
    refused(await password(), 'invalid_grant', 'resource owner password credentials grant is prohibited.');
    const events = (await w.api.get(`${base}/events?type=LOGIN_ERROR&client=conf`).expect(200)).body;
    expect(events[0]).toMatchObject({ type: 'LOGIN_ERROR', error: 'invalid_grant' });
    // Other grants are not password requests.
    await serviceAccount().expect(200);
  });

  test('client-scopes (Optional): only an authorization request asking for the listed optional scope is refused', async () => {
    await enforce([ex('confidential-client')], [cond('client-scopes', { type: 'Optional', scopes: ['phone'] })]);
    expect((await authorize()).status).toBe(200);
    const q = redirectParams(await authorize({ scope: 'openid phone' }));
    expect([q.get('error'), q.get('error_description')]).toEqual(['invalid_client', 'invalid client access type']);
    await enforce([ex('confidential-client')], [cond('client-scopes', { type: 'Default', scopes: ['phone'] })]);
    expect((await authorize({ scope: 'openid phone' })).status).toBe(200);
  });

  test("client-scopes without scopes or without type matches nothing (ClientScopesCondition; the console's defaults are its form's)", async () => {
    await enforce([ex('confidential-client')], [cond('client-scopes', { type: 'Optional' })]);
    expect((await authorize({ scope: 'openid offline_access' })).status).toBe(200);
    await enforce([ex('confidential-client')], [cond('client-scopes', { scopes: ['phone'] })]);
    expect((await authorize({ scope: 'openid phone' })).status).toBe(200);
    await enforce([ex('confidential-client')], [cond('client-scopes', { type: 'Any', scopes: ['phone'] })]);
    const q = redirectParams(await authorize({ scope: 'openid phone' }));
    expect(q.get('error')).toBe('invalid_client');
  });

  test('client-scopes judges a code exchange by the scope of its authorization request (ClientScopesCondition: the client session note)', async () => {
    await enforce([ex('use-lightweight-access-token')], [cond('client-scopes', { type: 'Optional', scopes: ['phone'] })]);
    const codeFor = async (scope: string) => redirectParams(await signIn(new Jar(), w.authUrl({ scope }))).get('code') as string;
    const light = await exchange(w, await codeFor('openid phone'));
    expect(light.status).toBe(200);
    expect(decodeJwt(light.body.access_token as string).preferred_username).toBeUndefined();
    const full = await exchange(w, await codeFor('openid'));
    expect(decodeJwt(full.body.access_token as string).preferred_username).toBe('alice');
  });

  test('secure-client-authenticator refuses token requests and refreshes of a client whose authenticator is not allowed', async () => {
    const refresh = (await password().expect(200)).body.refresh_token as string;
    await enforce([ex('secure-client-authenticator', { 'allowed-client-authenticators': ['client-jwt'] })]);
    refused(
      await token({ grant_type: 'refresh_token', client_id: 'conf', client_secret: 'conf-secret', refresh_token: refresh }),
      'invalid_request',
      'Configured client authentication method not allowed for client',
    );
    await enforce([ex('secure-client-authenticator', { 'allowed-client-authenticators': ['client-secret'] })]);
    await token({ grant_type: 'refresh_token', client_id: 'conf', client_secret: 'conf-secret', refresh_token: refresh }).expect(200);
  });

  test('client-access-type: a policy for public clients leaves the confidential client alone', async () => {
    await enforce([ex('reject-ropc-grant')], [cond('client-access-type', { type: ['public'] })]);
    await password().expect(200);
    await enforce([ex('reject-ropc-grant')], [cond('client-access-type', { type: ['confidential'] })]);
    refused(await password(), 'invalid_grant', 'resource owner password credentials grant is prohibited.');
  });

  test('client-roles judges the refresh of a client defining the role, and abstains on the password grant (ClientRolesCondition)', async () => {
    const uuid = (await w.api.get(`${base}/clients?clientId=conf`).expect(200)).body[0].id;
    await w.api.post(`${base}/clients/${uuid}/roles`, { name: 'special' }).expect(201);
    try {
      const refresh = (await password().expect(200)).body.refresh_token as string;
      const refreshed = () =>
        token({ grant_type: 'refresh_token', client_id: 'conf', client_secret: 'conf-secret', refresh_token: refresh });
      await enforce(
        [ex('secure-client-authenticator', { 'allowed-client-authenticators': ['client-jwt'] })],
        [cond('client-roles', { roles: ['other'] })],
      );
      await refreshed().expect(200);
      await enforce(
        [ex('secure-client-authenticator', { 'allowed-client-authenticators': ['client-jwt'] })],
        [cond('client-roles', { roles: ['special'] })],
      );
      refused(await refreshed(), 'invalid_request', 'Configured client authentication method not allowed for client');
      // RESOURCE_OWNER_PASSWORD_CREDENTIALS_REQUEST is not among the events it judges: the policy does not apply.
      await enforce([ex('reject-ropc-grant')], [cond('client-roles', { roles: ['special'] })]);
      await password().expect(200);
    } finally {
      await w.api.delete(`${base}/clients/${uuid}/roles/special`).expect(204);
    }
  });

  test('confidential-client: the public client is sent back invalid_client from the authorization endpoint', async () => {
    await enforce([ex('confidential-client')]);
    const res = await authorize();
    expect(res.status).toBe(302);
    const q = redirectParams(res);
    expect([q.get('error'), q.get('error_description'), q.get('state')]).toEqual(['invalid_client', 'invalid client access type', 'st-1']);
  });

  test('pkce-enforcer: an authorization request without S256 PKCE is refused; the code exchange needs the verifier', async () => {
    const { verifier, challenge } = pkcePair();
    await enforce([ex('pkce-enforcer')]);
    const plain = redirectParams(await authorize());
    expect([plain.get('error'), plain.get('error_description')]).toEqual(['invalid_request', 'Missing parameter: code_challenge_method']);
    const wrong = redirectParams(await authorize({ code_challenge: challenge, code_challenge_method: 'plain' }));
    expect(wrong.get('error_description')).toBe('Invalid parameter: invalid code_challenge_method');

    const jar = new Jar();
    const done = await signIn(jar, w.authUrl({ code_challenge: challenge, code_challenge_method: 'S256' }));
    const code = redirectParams(done).get('code') as string;
    expect(code).toBeTruthy();
    const missing = await exchange(w, code);
    expect([missing.status, missing.body]).toEqual([
      400,
      { error: 'code_verifier_missing', error_description: 'PKCE code verifier not specified' },
    ]);
    const jar2 = new Jar();
    const again = redirectParams(await signIn(jar2, w.authUrl({ code_challenge: challenge, code_challenge_method: 'S256' }))).get(
      'code',
    ) as string;
    const ok = await exchange(w, again, { code_verifier: verifier });
    expect(ok.status).toBe(200);
    expect(decodeJwt(ok.body.access_token as string).azp).toBe('app');
  });

  test('secure-response-type and reject-implicit-grant on the authorization request', async () => {
    // Keycloak's SecureResponseTypeExecutor / RejectImplicitGrantExecutor; the client allows the implicit flow.
    await createClient(w.api, R, { clientId: 'hyb', publicClient: true, implicitFlowEnabled: true, redirectUris: [REDIRECT] });
    const fragment = (res: Response) => new URLSearchParams(new URL(res.headers.get('location') as string).hash.slice(1));
    await enforce([ex('secure-response-type')]);
    const q = redirectParams(await authorize());
    expect([q.get('error'), q.get('error_description')]).toEqual(['invalid_request', 'invalid response_type']);
    // query.jwt is not `jwt`: refused, in its own (signed) mode.
    expect((await authorize({ response_mode: 'query.jwt' })).headers.get('location')).toMatch(/\?response=/);
    const hybrid = { client_id: 'hyb', response_type: 'code id_token', nonce: 'n' };
    const tokenToo = fragment(await authorize({ ...hybrid, response_type: 'code id_token token' }));
    expect([tokenToo.get('error'), tokenToo.get('error_description')]).toEqual(['invalid_request', 'invalid response_type']);
    const passed = fragment(await signIn(new Jar(), w.authUrl(hybrid)));
    expect([passed.get('code'), passed.get('id_token')].every(Boolean)).toBe(true);
    expect(redirectParams(await signIn(new Jar(), w.authUrl({ response_mode: 'jwt' }))).get('response')).toBeTruthy();
    await enforce([ex('secure-response-type', { 'allow-token-response-type': true })]);
    expect(
      fragment(await signIn(new Jar(), w.authUrl({ ...hybrid, response_type: 'code id_token token' }))).get('access_token'),
    ).toBeTruthy();

    await enforce([ex('reject-implicit-grant')]);
    for (const type of ['token', 'id_token', 'code id_token', 'code token']) {
      const refusal = fragment(await authorize({ ...hybrid, response_type: type }));
      expect([refusal.get('error'), refusal.get('error_description'), refusal.get('state')]).toEqual([
        'invalid_request',
        'Implicit/Hybrid flow is prohibited.',
        'st-1',
      ]);
    }
    const jar = new Jar();
    expect(redirectParams(await signIn(jar, w.authUrl())).get('code')).toBeTruthy();
  });

  test('a realm without enabled policies pays no statement for them on the token endpoint', async () => {
    await serviceAccount().expect(200);
    const without = await w.ts.countSql(() => serviceAccount().expect(200));
    // A disabled policy is a plain read of the realm settings too.
    await w.api.put(`${base}/client-policies/profiles`, { profiles: [{ name: 'p', executors: [ex('reject-ropc-grant')] }] }).expect(204);
    await w.api
      .put(`${base}/client-policies/policies`, {
        policies: [{ name: 'pol', enabled: false, conditions: [cond('any-client')], profiles: ['p'] }],
      })
      .expect(204);
    await serviceAccount().expect(200);
    const disabled = await w.ts.countSql(() => serviceAccount().expect(200));
    expect(disabled.count).toBe(without.count);
  });
});

describe('the client registration service', () => {
  let f: RegistrationFixture;
  const R = 'cpreg';
  beforeAll(async () => {
    f = await registrationFixture(R);
  });
  afterAll(() => f?.ts.close());

  async function enforce(executors: Json[], conditions: Json[]) {
    await f.api.put(`/admin/realms/${R}/client-policies/profiles`, { profiles: [{ name: 'p', executors }] }).expect(204);
    await f.api
      .put(`/admin/realms/${R}/client-policies/policies`, { policies: [{ name: 'pol', enabled: true, conditions, profiles: ['p'] }] })
      .expect(204);
  }

  test('client-updater-context tells initial access tokens from admins; auto-configure is stored; a refusal creates nothing', async () => {
    await enforce([ex('pkce-enforcer')], [cond('client-updater-context', { 'update-client-source': ['ByInitialAccessToken'] })]);
    const before = await f.clientCount();
    const refused = await f.call('POST', '/default', { token: await f.initialToken(), body: { clientId: 'reg1' } });
    expect(refused.status).toBe(403);
    // Keycloak's ClientRegistrationAuth answers forbidden(cpe.getMessage()): the policy's error code, the detail goes to the event.
    expect(refused.body).toEqual({ error: 'insufficient_scope', error_description: 'invalid_client_metadata' });
    expect(await f.clientCount()).toBe(before);
    expect((await f.events('CLIENT_REGISTER_ERROR'))[0]).toMatchObject({
      details: expect.objectContaining({ client_policy_error: 'invalid_client_metadata' }),
    });
    // The admin API is ByAuthenticatedUser: not this policy's business.
    await f.api.post(`/admin/realms/${R}/clients`, { clientId: 'admin-made' }).expect(201);

    await enforce(
      [ex('pkce-enforcer', { 'auto-configure': true })],
      [cond('client-updater-context', { 'update-client-source': ['ByInitialAccessToken'] })],
    );
    const made = await f.call('POST', '/default', { token: await f.initialToken(), body: { clientId: 'reg2' } });
    expect(made.status).toBe(201);
    expect(made.body.attributes['pkce.code.challenge.method']).toBe('S256');
  });

  test("client-updater-source-roles and -host judge the registration caller (the bearer token's user, the request address)", async () => {
    const bearer = await f.userToken('dcr-writer', ['manage-clients']);
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-roles', { roles: ['realm-management.manage-clients'] })]);
    const byRole = await f.call('POST', '/default', { token: bearer, body: { clientId: 'by-role' } });
    expect([byRole.status, byRole.body]).toEqual([403, { error: 'insufficient_scope', error_description: 'invalid_client_metadata' }]);
    // An initial access token has no user: NO.
    expect((await f.call('POST', '/default', { token: await f.initialToken(), body: { clientId: 'no-user' } })).status).toBe(201);
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-host', { 'trusted-hosts': ['127.0.0.1', '::1'] })]);
    expect((await f.call('POST', '/default', { token: await f.initialToken(), body: { clientId: 'by-host' } })).status).toBe(403);
    await enforce([ex('pkce-enforcer')], [cond('client-updater-source-host', { 'trusted-hosts': ['10.255.255.1'] })]);
    expect((await f.call('POST', '/default', { token: await f.initialToken(), body: { clientId: 'other-host' } })).status).toBe(201);
  });

  test('registration-access-token-rotation-disabled: an update keeps the registration access token', async () => {
    await enforce([], [cond('any-client')]);
    const made = await f.call('POST', '/default', { token: await f.initialToken(), body: { clientId: 'rot' } });
    const rat = made.body.registrationAccessToken as string;
    const rotated = await f.call('PUT', '/default/rot', { token: rat, body: { clientId: 'rot', name: 'A' } });
    expect(decodeJwt(rotated.body.registrationAccessToken).jti).not.toBe(decodeJwt(rat).jti);
    await enforce(
      [ex('registration-access-token-rotation-disabled')],
      [cond('client-updater-context', { 'update-client-source': ['ByRegistrationAccessToken'] })],
    );
    const next = rotated.body.registrationAccessToken as string;
    const kept = await f.call('PUT', '/default/rot', { token: next, body: { clientId: 'rot', name: 'B' } });
    expect(kept.status).toBe(200);
    expect(kept.body.name).toBe('B');
    if (kept.body.registrationAccessToken) expect(decodeJwt(kept.body.registrationAccessToken).jti).toBe(decodeJwt(next).jti);
    expect((await f.call('GET', '/default/rot', { token: next })).status).toBe(200);
  });
});
