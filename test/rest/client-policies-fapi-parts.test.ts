import { randomUUID, type webcrypto } from 'node:crypto';
import { exportJWK, SignJWT } from 'jose';
import { createClient, createUser } from '../helpers/fixtures';
import { Jar, type LoginWorld, loginWorld, pageError, REDIRECT, redirectParams } from '../login/browser-client';

/**
 * The parts of the FAPI profiles one by one (ADR 0037): the conditions grant-type, client-attributes
 * and acr-condition, the executors secure-session, secure-client-uris (authorization requests),
 * secure-logout, reject-request and secure-signature-algorithm-signed-jwt, the
 * PUSHED_AUTHORIZATION_REQUEST event, and client authentication with signed JWTs.
 */
type Json = Record<string, unknown>;
const R = 'fapiparts';
let w: LoginWorld;
let issuer: string;
let key: webcrypto.CryptoKeyPair;
const ex = (executor: string, configuration: Json = {}) => ({ executor, configuration });
const cond = (condition: string, configuration: Json = {}) => ({ condition, configuration });

beforeAll(async () => {
  w = await loginWorld(R);
  issuer = `${w.base}/realms/${R}`;
  key = (await globalThis.crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const jwk = { ...(await exportJWK(key.publicKey)), kid: 'ec', alg: 'ES256' };
  await createClient(w.api, R, {
    clientId: 'conf',
    secret: 'conf-secret',
    directAccessGrantsEnabled: true,
    serviceAccountsEnabled: true,
    redirectUris: [REDIRECT, 'http://localhost:1/cb'],
    attributes: { tier: 'gold' },
  });
  await createClient(w.api, R, {
    clientId: 'jwt',
    clientAuthenticatorType: 'client-jwt',
    serviceAccountsEnabled: true,
    attributes: { 'use.jwks.string': 'true', 'jwks.string': JSON.stringify({ keys: [jwk] }) },
  });
  await createUser(w.ts, R, 'bob', { password: 'pw' });
});
afterAll(() => w?.ts.close());
afterEach(() => w.api.put(`/admin/realms/${R}/client-policies/policies`, { policies: [] }).expect(204));

async function enforce(executors: Json[], conditions: Json[] = [cond('any-client')]) {
  await w.api.put(`/admin/realms/${R}/client-policies/profiles`, { profiles: [{ name: 'p', executors }] }).expect(204);
  await w.api
    .put(`/admin/realms/${R}/client-policies/policies`, { policies: [{ name: 'pol', enabled: true, conditions, profiles: ['p'] }] })
    .expect(204);
}
const post = async (path: string, fields: Record<string, string>) => {
  const res = await fetch(`${issuer}/protocol/openid-connect/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, body: (await res.json()) as Json };
};
const password = () =>
  post('token', { grant_type: 'password', client_id: 'conf', client_secret: 'conf-secret', username: 'bob', password: 'pw' });
const serviceAccount = () => post('token', { grant_type: 'client_credentials', client_id: 'conf', client_secret: 'conf-secret' });
const authorize = (params: Record<string, string> = {}) => new Jar().fetch(w.authUrl({ client_id: 'conf', ...params }));
const backWith = (res: Response) => {
  const q = redirectParams(res);
  return [q.get('error'), q.get('error_description')];
};
const refused = (error: string, error_description: string) => ({ status: 400, body: { error, error_description } });

test('grant-type: only the listed grants are judged (password refused, client credentials and the code flow not)', async () => {
  await enforce([ex('reject-request')], [cond('grant-type', { grant_types: ['password'] })]);
  expect(await password()).toEqual(refused('invalid_request', 'request not allowed'));
  expect((await serviceAccount()).status).toBe(200);
  expect((await authorize()).status).toBe(200);
  await enforce([ex('reject-request')], [cond('grant-type', { grant_types: ['authorization_code'] })]);
  expect(backWith(await authorize())).toEqual(['invalid_request', 'request not allowed']);
  expect((await password()).status).toBe(200);
});

test('client-attributes + secure-session: a client with the attribute needs nonce (OpenID) or state; others do not', async () => {
  await enforce([ex('secure-session')], [cond('client-attributes', { attributes: JSON.stringify([{ key: 'tier', value: 'gold' }]) })]);
  expect(backWith(await authorize())).toEqual(['invalid_request', 'Missing parameter: nonce']);
  expect((await authorize({ nonce: 'n' })).status).toBe(200);
  expect(backWith(await authorize({ scope: 'profile', state: '' }))).toEqual(['invalid_request', 'Missing parameter: state']);
  // The public client `app` has no such attribute.
  expect((await new Jar().fetch(w.authUrl())).status).toBe(200);
});

test('acr-condition: an authorization request asking for the ACR (acr_values or claims) is judged', async () => {
  await enforce([ex('reject-request')], [cond('acr-condition', { 'acr-property': 'gold' })]);
  expect((await authorize()).status).toBe(200);
  expect(backWith(await authorize({ acr_values: 'silver gold' }))).toEqual(['invalid_request', 'request not allowed']);
  const claims = JSON.stringify({ id_token: { acr: { essential: true, values: ['gold'] } } });
  expect(backWith(await authorize({ claims }))).toEqual(['invalid_request', 'request not allowed']);
});

test('secure-client-uris on authorization requests: https only, http on localhost when allowed', async () => {
  await enforce([ex('secure-client-uris')]);
  expect(backWith(await authorize())).toEqual(['invalid_request', 'Invalid redirect_uri']);
  expect(backWith(await authorize({ redirect_uri: 'http://localhost:1/cb' }))).toEqual(['invalid_request', 'Invalid redirect_uri']);
  await enforce([ex('secure-client-uris', { 'allow-http-on-localhost': true })]);
  expect((await authorize({ redirect_uri: 'http://localhost:1/cb' })).status).toBe(200);
});

test('secure-logout: no front-channel logout on written clients, no GET logout', async () => {
  await enforce([ex('secure-logout')]);
  expect((await w.api.post(`/admin/realms/${R}/clients`, { clientId: 'fc', frontchannelLogout: true })).body).toEqual({
    error: 'invalid_registration',
    error_description: 'Front-channel logout is not allowed for this client',
  });
  const res = await new Jar().fetch(`${issuer}/protocol/openid-connect/logout?client_id=conf`);
  expect(res.status).toBe(400);
  expect(pageError(await res.text())).toBe('Front-channel logout is not allowed for this client');
  await enforce([ex('secure-logout', { 'allow-front-channel-logout': true })]);
  expect((await new Jar().fetch(`${issuer}/protocol/openid-connect/logout?client_id=conf`)).status).toBe(200);
});

test('PUSHED_AUTHORIZATION_REQUEST: a policy refusal is a 400 of the PAR endpoint', async () => {
  const fields = { client_id: 'conf', client_secret: 'conf-secret', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' };
  expect((await post('ext/par/request', fields)).status).toBe(201);
  await enforce([ex('reject-request')]);
  expect(await post('ext/par/request', fields)).toEqual(refused('invalid_request', 'request not allowed'));
});

const assertion = (claims: Json = {}) =>
  new SignJWT({ jti: randomUUID(), ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'ec' })
    .setIssuer('jwt')
    .setSubject('jwt')
    .setAudience(String(claims.aud ?? issuer))
    .setIssuedAt()
    .setExpirationTime('1m')
    .sign(key.privateKey);
const jwtGrant = (clientAssertion: string) =>
  post('token', {
    grant_type: 'client_credentials',
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: clientAssertion,
  });

test('client-jwt authentication: a signed assertion is accepted once, for this realm only', async () => {
  const once = await assertion();
  const granted = await jwtGrant(once);
  expect(granted.status).toBe(200);
  // Introspection takes an assertion too.
  const introspected = await post('token/introspect', {
    token: String(granted.body.access_token),
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: await assertion(),
  });
  expect(introspected.body).toMatchObject({ active: true, client_id: 'jwt' });
  expect(await jwtGrant(once)).toEqual({
    status: 401,
    body: { error: 'unauthorized_client', error_description: 'Client authentication with signed JWT failed: Token reuse detected' },
  });
  expect((await jwtGrant(await assertion({ aud: 'http://other.example/realms/x' }))).body.error_description).toBe(
    'Client authentication with signed JWT failed: Invalid token audience',
  );
  const forged = `${(await assertion()).slice(0, -4)}AAAA`;
  expect((await jwtGrant(forged)).status).toBe(401);
});

test('secure-signature-algorithm-signed-jwt: with require-client-assertion a token request without an assertion is refused', async () => {
  await enforce([ex('secure-signature-algorithm-signed-jwt', { 'require-client-assertion': true })]);
  const code = { grant_type: 'refresh_token', client_id: 'conf', client_secret: 'conf-secret', refresh_token: 'x' };
  expect(await post('token', code)).toEqual(refused('invalid_request', 'not allowed input format.'));
});
