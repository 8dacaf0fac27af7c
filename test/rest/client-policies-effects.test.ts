import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { decodeJwt } from 'jose';
import { createClient, createUser } from '../helpers/fixtures';
import { Jar, type LoginWorld, REDIRECT, exchange, loginWorld, redirectParams, signIn } from '../login/browser-client';

/**
 * Client-policy executors that shape the request rather than refuse it (issue 16, ADR 0032), each as
 * its Keycloak 26 namesake: UseLightweightAccessTokenExecutor, SuppressRefreshTokenRotationExecutor
 * (TOKEN_REFRESH_RESPONSE), AuthenticationFlowSelectorExecutor (AUTHORIZATION_REQUEST; the direct
 * grant's resolver reads the same note but nothing sets it there), IntentClientBindCheckExecutor
 * (a real HTTP listener as the bind-check service), and the condition ClientProtocolCondition
 * (`client-type`). Each shows its effect on the clients its policy covers and none on the others.
 */
type Json = Record<string, unknown>;
const ex = (executor: string, configuration: Json = {}) => ({ executor, configuration });
const cond = (condition: string, configuration: Json = {}) => ({ condition, configuration });

let w: LoginWorld;
const R = 'cpfx';
const base = `/admin/realms/${R}`;
const A = `${base}/authentication`;

beforeAll(async () => {
  w = await loginWorld(R);
  // `conf` is confidential, `pub` public: client-access-type tells them apart.
  await createClient(w.api, R, {
    clientId: 'conf',
    secret: 'conf-secret',
    directAccessGrantsEnabled: true,
    serviceAccountsEnabled: true,
    redirectUris: [REDIRECT],
  });
  await createClient(w.api, R, { clientId: 'pub', publicClient: true, directAccessGrantsEnabled: true, redirectUris: [REDIRECT] });
  await createUser(w.ts, R, 'bob', { password: 'pw' });
});
afterAll(() => w?.ts.close());

async function enforce(executors: Json[], conditions: Json[]) {
  await w.api.put(`${base}/client-policies/profiles`, { profiles: [{ name: 'p', executors }] }).expect(204);
  await w.api
    .put(`${base}/client-policies/policies`, { policies: [{ name: 'pol', enabled: true, conditions, profiles: ['p'] }] })
    .expect(204);
}
afterEach(() => w.api.put(`${base}/client-policies/policies`, { policies: [] }).expect(204));

const confidentialOnly = [cond('client-access-type', { type: ['confidential'] })];
const token = (form: Record<string, string>) =>
  request(w.ts.app).post(`/realms/${R}/protocol/openid-connect/token`).type('form').send(form);
const secretOf = (clientId: string): Record<string, string> => (clientId === 'conf' ? { client_secret: 'conf-secret' } : {});
const password = (clientId: string) =>
  token({ grant_type: 'password', client_id: clientId, ...secretOf(clientId), username: 'bob', password: 'pw' });
const refresh = (clientId: string, refresh_token: string) =>
  token({ grant_type: 'refresh_token', client_id: clientId, ...secretOf(clientId), refresh_token });
const authorize = (params: Record<string, string> = {}) => fetch(w.authUrl(params), { redirect: 'manual' });

describe('client-type (ClientProtocolCondition)', () => {
  test('votes by the client protocol on requests, and by the proposed one on a create', async () => {
    await enforce([ex('confidential-client')], [cond('client-type', { protocol: 'openid-connect' })]);
    const q = redirectParams(await authorize());
    expect([q.get('error'), q.get('error_description')]).toEqual(['invalid_client', 'invalid client access type']);
    await enforce([ex('confidential-client')], [cond('client-type', { protocol: 'saml' })]);
    expect((await authorize()).status).toBe(200);
    // Keycloak's condition does not judge the password grant: it abstains, and the policy does not apply.
    await enforce([ex('reject-ropc-grant')], [cond('client-type', { protocol: 'openid-connect' })]);
    expect((await password('conf')).status).toBe(200);
    await enforce([ex('full-scope-disabled', { 'auto-configure': false })], [cond('client-type', { protocol: 'saml' })]);
    const saml = await w.api.post(`${base}/clients`, { clientId: 'urn:sp', protocol: 'saml', fullScopeAllowed: true });
    expect([saml.status, saml.body]).toEqual([
      400,
      { error: 'invalid_registration', error_description: 'Not permitted to enable fullScopeAllowed' },
    ]);
    // An OIDC client, and (as Keycloak's REGISTER) a body that names no protocol, are not covered.
    await w.api.post(`${base}/clients`, { clientId: 'oidc1', protocol: 'openid-connect', fullScopeAllowed: true }).expect(201);
    await w.api.post(`${base}/clients`, { clientId: 'oidc2', fullScopeAllowed: true }).expect(201);
  });
});

describe('use-lightweight-access-token', () => {
  test('access tokens of covered clients carry no mapped claims, on every token grant; others keep them', async () => {
    const before = decodeJwt((await password('conf').expect(200)).body.access_token);
    expect(before.preferred_username).toBe('bob');
    await enforce([ex('use-lightweight-access-token')], confidentialOnly);
    const grant = (await password('conf').expect(200)).body;
    const light = decodeJwt(grant.access_token);
    expect(light.preferred_username).toBeUndefined();
    expect(light.realm_access).toBeUndefined();
    expect(light).toMatchObject({ azp: 'conf', typ: 'Bearer' });
    const refreshed = decodeJwt((await refresh('conf', grant.refresh_token).expect(200)).body.access_token);
    expect(refreshed.preferred_username).toBeUndefined();
    const sa = decodeJwt(
      (await token({ grant_type: 'client_credentials', client_id: 'conf', client_secret: 'conf-secret' }).expect(200)).body.access_token,
    );
    expect(sa.preferred_username).toBeUndefined();
    // The public client is not covered.
    expect(decodeJwt((await password('pub').expect(200)).body.access_token).preferred_username).toBe('bob');
  });
});

describe('suppress-refresh-token-rotation (TOKEN_REFRESH_RESPONSE)', () => {
  test('a covered refresh answers no new refresh token, and the one held keeps working', async () => {
    await enforce([ex('suppress-refresh-token-rotation')], confidentialOnly);
    const first = (await password('conf').expect(200)).body;
    expect(first.refresh_token).toEqual(expect.any(String));
    for (let i = 0; i < 2; i++) {
      const res = (await refresh('conf', first.refresh_token).expect(200)).body;
      expect(res.access_token).toEqual(expect.any(String));
      expect(res.refresh_token).toBeUndefined();
      expect(res.refresh_expires_in).toBe(0);
    }
    // The public client rotates as usual.
    const pub = (await password('pub').expect(200)).body;
    const rotated = (await refresh('pub', pub.refresh_token).expect(200)).body;
    expect(rotated.refresh_token).toEqual(expect.any(String));
    expect(rotated.refresh_token).not.toBe(pub.refresh_token);
    expect(rotated.refresh_expires_in).toBeGreaterThan(0);
  });

  test('grant-type abstains on the response event, as Keycloak: a policy judged by it alone does not suppress', async () => {
    await enforce([ex('suppress-refresh-token-rotation')], [cond('grant-type', { grant_types: ['refresh_token'] })]);
    const first = (await password('conf').expect(200)).body;
    expect((await refresh('conf', first.refresh_token).expect(200)).body.refresh_token).toEqual(expect.any(String));
  });
});

describe('auth-flow-enforcer (AuthenticationFlowSelectorExecutor)', () => {
  beforeAll(async () => {
    await w.api.post(`${A}/flows`, { alias: 'denied', providerId: 'basic-flow', topLevel: true, builtIn: false }).expect(201);
    await w.api.post(`${A}/flows/denied/executions/execution`, { provider: 'deny-access-authenticator' }).expect(201);
    const [exec] = (await w.api.get(`${A}/flows/denied/executions`).expect(200)).body as Json[];
    await w.api.put(`${A}/flows/denied/executions`, { ...exec, requirement: 'REQUIRED' }).expect(204);
  });

  test('the login of a covered authorization request runs the named flow; other clients and the direct grant keep theirs', async () => {
    await enforce([ex('auth-flow-enforcer', { 'auth-flow-alias': 'denied', 'auth-flow-loa': 2 })], confidentialOnly);
    const denied = await authorize({ client_id: 'conf' });
    expect(denied.status).toBe(401);
    expect(await denied.text()).toContain('Access denied');
    // The public `app` logs in through the browser flow.
    const page = await authorize();
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="password"');
    // No authorization request, no requested flow: the password grant runs the direct grant flow.
    await password('conf').expect(200);
  });

  test('the flow is chosen per request (acr-condition), and a flow alias that does not exist fails the login', async () => {
    await enforce([ex('auth-flow-enforcer', { 'auth-flow-alias': 'denied' })], [cond('acr-condition', { 'acr-property': 'gold' })]);
    expect((await authorize({ client_id: 'conf' })).status).toBe(200);
    expect((await authorize({ client_id: 'conf', acr_values: 'gold' })).status).toBe(401);
    await enforce([ex('auth-flow-enforcer', { 'auth-flow-alias': 'no-such-flow' })], confidentialOnly);
    expect((await authorize({ client_id: 'conf' })).status).toBe(500);
  });
});

describe('auth-flow-enforcer auth-flow-loa (AcrStore.setAuthFlowLevelAuthenticatedToCurrentRequest)', () => {
  beforeAll(async () => {
    await w.api.post(`${A}/flows`, { alias: 'pw-only', providerId: 'basic-flow', topLevel: true, builtIn: false }).expect(201);
    await w.api.post(`${A}/flows/pw-only/executions/execution`, { provider: 'auth-username-password-form' }).expect(201);
    const [exec] = (await w.api.get(`${A}/flows/pw-only/executions`).expect(200)).body as Json[];
    await w.api.put(`${A}/flows/pw-only/executions`, { ...exec, requirement: 'REQUIRED' }).expect(204);
  });

  /** The acr of the ID and access tokens of a browser login of `app` (alice). */
  async function acrOfLogin(): Promise<[unknown, unknown]> {
    const code = redirectParams(await signIn(new Jar(), w.authUrl())).get('code') as string;
    const tokens = await exchange(w, code);
    expect(tokens.status).toBe(200);
    return [decodeJwt(tokens.body.id_token as string).acr, decodeJwt(tokens.body.access_token as string).acr];
  }

  test("a login through the chosen flow reaches the flow's level: the tokens' acr is it (named by acr.loa.map)", async () => {
    expect(await acrOfLogin()).toEqual(['1', '1']);
    await enforce([ex('auth-flow-enforcer', { 'auth-flow-alias': 'pw-only', 'auth-flow-loa': 3 })], [cond('any-client')]);
    expect(await acrOfLogin()).toEqual(['3', '3']);
    // Without auth-flow-loa the flow sets no level.
    await enforce([ex('auth-flow-enforcer', { 'auth-flow-alias': 'pw-only' })], [cond('any-client')]);
    expect(await acrOfLogin()).toEqual(['1', '1']);
    // The realm's acr.loa.map names the level.
    const realm = (await w.api.get(base).expect(200)).body as Json;
    const attributes = { ...(realm.attributes as Json), 'acr.loa.map': JSON.stringify({ silver: 1, gold: 2 }) };
    await w.api.put(base, { attributes }).expect(204);
    await enforce([ex('auth-flow-enforcer', { 'auth-flow-alias': 'pw-only', 'auth-flow-loa': 2 })], [cond('any-client')]);
    expect(await acrOfLogin()).toEqual(['gold', 'gold']);
    await w.api.put(base, { attributes: { ...attributes, 'acr.loa.map': '{}' } }).expect(204);
  });
});

describe('intent-client-bind-checker (IntentClientBindCheckExecutor)', () => {
  let service: Server;
  let endpoint: string;
  const calls: Json[] = [];
  beforeAll(async () => {
    // The bind-check service: intent `i-bound` is bound to `conf`, nothing else is.
    service = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        const sent = JSON.parse(body) as Json;
        calls.push({ method: req.method, type: req.headers['content-type'], ...sent });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ is_bound: sent.intent_id === 'i-bound' && sent.client_id === 'conf' }));
      });
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(service.address() as AddressInfo).port}/check`;
  });
  afterAll(() => new Promise<void>((resolve) => service.close(() => resolve())));
  beforeEach(() => {
    calls.length = 0;
  });

  const intent = (value: unknown, essential: unknown = true) => JSON.stringify({ id_token: { intent_id: { value, essential } } });
  const refusal = async (params: Record<string, string>) => {
    const q = redirectParams(await authorize({ client_id: 'conf', ...params }));
    return [q.get('error'), q.get('error_description')];
  };
  const bindCheck = (extra: Json = {}) =>
    ex('intent-client-bind-checker', { 'intent-client-bind-check-endpoint': endpoint, 'intent-name': 'intent_id', ...extra });

  test('asks the service with the intent id and client id; a bound intent logs in, another is refused', async () => {
    await enforce([bindCheck()], confidentialOnly);
    expect((await authorize({ client_id: 'conf', claims: intent('i-bound') })).status).toBe(200);
    expect(calls).toEqual([{ method: 'POST', type: 'application/json', intent_id: 'i-bound', client_id: 'conf' }]);
    expect(await refusal({ claims: intent('i-other') })).toEqual(['invalid_request', 'The intent is not bound with the client']);
    // The public `app` is not covered: no call, no refusal.
    calls.length = 0;
    expect((await authorize({ claims: intent('i-other') })).status).toBe(200);
    expect(calls).toEqual([]);
  });

  test("the intent claim must be in the claims parameter's id_token, essential, with a value", async () => {
    await enforce([bindCheck()], confidentialOnly);
    expect(await refusal({})).toEqual(['invalid_request', 'no claim for an intent value in an authorization request']);
    expect(await refusal({ claims: '{' })).toEqual(['invalid_request', 'invalid claim for an intent value']);
    expect(await refusal({ claims: JSON.stringify({ userinfo: { intent_id: { value: 'i-bound', essential: true } } }) })).toEqual([
      'invalid_request',
      'no claim for an intent value for ID token',
    ]);
    expect(await refusal({ claims: intent('i-bound', false) })).toEqual([
      'invalid_request',
      'not specifying a claim for an intent as essential claim',
    ]);
    expect(await refusal({ claims: intent(null) })).toEqual(['invalid_request', 'invalid intent value']);
    expect(calls).toEqual([]);
  });

  test('a bad configuration or an unreachable service refuses the request', async () => {
    await enforce([bindCheck({ 'intent-client-bind-check-endpoint': 'ftp://x' })], confidentialOnly);
    expect(await refusal({ claims: intent('i-bound') })).toEqual(['server_error', 'invalid Intent Client Bind Check Endpoint setting']);
    await enforce([bindCheck({ 'intent-name': '' })], confidentialOnly);
    expect(await refusal({ claims: intent('i-bound') })).toEqual(['invalid_request', 'invalid intent name setting']);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await enforce([bindCheck({ 'intent-client-bind-check-endpoint': `http://127.0.0.1:${port}/check` })], confidentialOnly);
    expect(await refusal({ claims: intent('i-bound') })).toEqual(['invalid_request', 'checking intent bound with client failed']);
  });
});
