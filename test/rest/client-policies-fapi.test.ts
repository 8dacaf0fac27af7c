import { createHash, randomUUID, type webcrypto } from 'node:crypto';

type CryptoKeyPair = webcrypto.CryptoKeyPair;
import { createRemoteJWKSet, decodeJwt, exportJWK, jwtVerify, SignJWT } from 'jose';
import { clientCertificate } from '../helpers/dpop';
import { formAction, Jar, type LoginWorld, loginWorld, pageError, pkcePair, redirectParams, signIn } from '../login/browser-client';

type OidcClient = typeof import('openid-client', { with: { 'resolution-mode': 'import' }});

/**
 * Keycloak's global FAPI client profiles named by a realm policy (issue 16, ADR 0037): for each, a
 * conforming client passes (created through the admin API, logging in over HTTP, getting tokens) and
 * a non-conforming one gets Keycloak's error. Clients authenticate with signed JWTs (client-jwt).
 * The profiles with `holder-of-key-enforcer` (fapi-1-advanced, both FAPI 2 ones) bind tokens to the
 * client's TLS certificate, which the reverse proxy forwards in `ssl-client-cert` (ADR 0038); every
 * profile has `consent-required`, so the user grants consent after signing in.
 */
type Json = Record<string, unknown>;
const R = 'fapi';
const HTTPS = 'https://app.example/cb';
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
let w: LoginWorld;
let oidc: OidcClient;
let issuer: string;
let ps: CryptoKeyPair;
let rs: CryptoKeyPair;
let jwks: string;
const CERT_HEADER = 'ssl-client-cert';
const cert = clientCertificate('fapi-client');
const forwarded = encodeURIComponent(cert.pem);

beforeAll(async () => {
  oidc = (await import('openid-client')) as OidcClient;
  w = await loginWorld(R, {}, { x509: { provider: 'nginx', header: CERT_HEADER } });
  issuer = `${w.base}/realms/${R}`;
  ps = await rsaKeys('RSA-PSS');
  rs = await rsaKeys('RSASSA-PKCS1-v1_5');
  jwks = JSON.stringify({
    keys: [
      { ...(await exportJWK(ps.publicKey)), kid: 'ps', alg: 'PS256', use: 'sig' },
      { ...(await exportJWK(rs.publicKey)), kid: 'rs', alg: 'RS256', use: 'sig' },
    ],
  });
});
afterAll(() => w?.ts.close());

/** A key pair of this realm's WebCrypto (openid-client checks `instanceof CryptoKey`; jose's own keys come from another realm under jest). */
const rsaKeys = async (name: string) =>
  (await globalThis.crypto.subtle.generateKey(
    { name, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  )) as CryptoKeyPair;
afterEach(() => w.api.put(`/admin/realms/${R}/client-policies/policies`, { policies: [] }).expect(204));

const usePolicy = (profile: string) =>
  w.api
    .put(`/admin/realms/${R}/client-policies/policies`, {
      policies: [{ name: 'fapi', enabled: true, conditions: [{ condition: 'any-client', configuration: {} }], profiles: [profile] }],
    })
    .expect(204);
const fapiClient = (clientId: string, extra: Json = {}) => ({
  clientId,
  clientAuthenticatorType: 'client-jwt',
  redirectUris: [HTTPS],
  ...extra,
  attributes: { 'use.jwks.string': 'true', 'jwks.string': jwks, ...((extra.attributes as Json | undefined) ?? {}) },
});
const create = (rep: Json) => w.api.post(`/admin/realms/${R}/clients`, rep);
const stored = async (clientId: string) => (await w.api.get(`/admin/realms/${R}/clients?clientId=${clientId}`).expect(200)).body[0];
const assertion = (clientId: string, alg = 'PS256') =>
  new SignJWT({})
    .setProtectedHeader({ alg, kid: alg === 'PS256' ? 'ps' : 'rs' })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(issuer)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime('1m')
    .sign(alg === 'PS256' ? ps.privateKey : rs.privateKey);
/** POSTs a form to an endpoint, through the proxy with the client certificate when `withCert`. */
const post = async (path: string, fields: Record<string, string>, withCert = false) => {
  const res = await fetch(`${issuer}/protocol/openid-connect/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(withCert ? { [CERT_HEADER]: forwarded } : {}) },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, body: (await res.json()) as Json };
};
const authed = async (clientId: string, alg = 'PS256') => ({
  client_id: clientId,
  client_assertion_type: JWT_BEARER,
  client_assertion: await assertion(clientId, alg),
});
const authUrl = (params: Record<string, string>) => `${issuer}/protocol/openid-connect/auth?${new URLSearchParams(params)}`;
/** Signs in and grants the consent the profile requires; returns the redirect back to the client. */
const signInAndConsent = async (url: string) => {
  const jar = new Jar();
  const page = await signIn(jar, url);
  expect(page.status).toBe(200);
  return jar.post(formAction(await page.text()), { accept: 'yes' });
};
const backWith = (res: Response) => {
  const q = redirectParams(res);
  return [q.get('error'), q.get('error_description')];
};

test('fapi-1-baseline: a conforming client is auto-configured and logs in; http URIs, secrets and missing nonce are refused', async () => {
  await usePolicy('fapi-1-baseline');
  expect((await create(fapiClient('b1', { redirectUris: ['http://app.example/cb'] }))).body).toEqual({
    error: 'invalid_client_metadata',
    error_description: 'Invalid redirectUris',
  });
  expect((await create({ clientId: 'b1', clientAuthenticatorType: 'client-secret', secret: 's', redirectUris: [HTTPS] })).body).toEqual({
    error: 'invalid_client_metadata',
    error_description: 'Invalid client metadata: token_endpoint_auth_method',
  });
  expect((await create(fapiClient('b1'))).status).toBe(201);
  const c = await stored('b1');
  expect([c.consentRequired, c.fullScopeAllowed, c.attributes['pkce.code.challenge.method']]).toEqual([true, false, 'S256']);
  const { verifier, challenge } = pkcePair();
  const params = { client_id: 'b1', response_type: 'code', redirect_uri: HTTPS, scope: 'openid', state: 's', code_challenge: challenge };
  const noNonce = await new Jar().fetch(authUrl({ ...params, code_challenge_method: 'S256' }));
  expect(backWith(noNonce)).toEqual(['invalid_request', 'Missing parameter: nonce']);
  const back = await signInAndConsent(authUrl({ ...params, code_challenge_method: 'S256', nonce: 'n' }));
  const code = redirectParams(back).get('code') as string;
  const tokens = await post('token', {
    grant_type: 'authorization_code',
    code,
    redirect_uri: HTTPS,
    code_verifier: verifier,
    ...(await authed('b1', 'RS256')),
  });
  expect(tokens.status).toBe(200);
  expect(tokens.body.access_token).toBeTruthy();
});

test('fapi-1-advanced: PS256 and detached ID token auto-configured; insecure algorithms and missing or expired request objects refused', async () => {
  await usePolicy('fapi-1-advanced');
  expect((await create(fapiClient('a1', { attributes: { 'request.object.signature.alg': 'RS256' } }))).body).toEqual({
    error: 'invalid_request',
    error_description: 'not allowed signature algorithm.',
  });
  expect((await create(fapiClient('a1'))).status).toBe(201);
  const a = (await stored('a1')).attributes;
  expect([
    a['id.token.signed.response.alg'],
    a['request.object.signature.alg'],
    a['id.token.as.detached.signature'],
    a['tls.client.certificate.bound.access.tokens'],
  ]).toEqual(['PS256', 'PS256', 'true', 'true']);
  const { challenge } = pkcePair();
  const params = { client_id: 'a1', response_type: 'code', redirect_uri: HTTPS, scope: 'openid', nonce: 'n', code_challenge: challenge };
  expect(backWith(await new Jar().fetch(authUrl({ ...params, code_challenge_method: 'S256' })))).toEqual([
    'invalid_request',
    "Missing parameter: 'request' or 'request_uri'",
  ]);
  const object = (exp: number, extra: Record<string, string> = {}) =>
    new SignJWT({ ...params, code_challenge_method: 'S256', aud: issuer, nbf: exp - 60, exp, ...extra })
      .setProtectedHeader({ alg: 'PS256', kid: 'ps' })
      .sign(ps.privateKey);
  const now = Math.floor(Date.now() / 1000);
  expect(backWith(await new Jar().fetch(authUrl({ client_id: 'a1', request: await object(now - 10) })))).toEqual([
    'invalid_request_object',
    'Request Expired',
  ]);
  // A valid request object for `code` in the query: secure-response-type wants a hybrid or JWT-mode response.
  expect(backWith(await new Jar().fetch(authUrl({ client_id: 'a1', request: await object(now + 60) })))).toEqual([
    'invalid_request',
    'invalid response_type',
  ]);
});

/**
 * fapi-1-advanced end to end (Keycloak's FAPI1 Advanced tests): a hybrid `code id_token` request
 * object, or `code` with `response_mode=jwt`, signs in and gets certificate-bound tokens; the ID token
 * of the front channel is a detached signature (c_hash, s_hash; no user claims).
 */
test('fapi-1-advanced: code id_token and JARM authorizations complete with certificate-bound tokens', async () => {
  await usePolicy('fapi-1-advanced');
  // The hybrid flow needs the implicit flow enabled on the client (AuthorizationEndpointChecker).
  expect((await create(fapiClient('a2', { implicitFlowEnabled: true }))).status).toBe(201);
  // Remote: the profile signs ID tokens with PS256, whose fallback key the realm makes on first use.
  const keys = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`), { cooldownDuration: 0 });
  const object = async (extra: Record<string, string>) =>
    new SignJWT({ client_id: 'a2', redirect_uri: HTTPS, scope: 'openid', nonce: 'n-a2', state: 'st-a2', aud: issuer, ...extra })
      .setProtectedHeader({ alg: 'PS256', kid: 'ps' })
      .setNotBefore('0s')
      .setExpirationTime('1m')
      .sign(ps.privateKey);
  const exchange = async (code: string) =>
    post('token', { grant_type: 'authorization_code', code, redirect_uri: HTTPS, ...(await authed('a2')) }, true);

  const hybrid = await signInAndConsent(authUrl({ client_id: 'a2', request: await object({ response_type: 'code id_token' }) }));
  const location = new URL(hybrid.headers.get('location') as string);
  expect(`${location.origin}${location.pathname}`).toBe(HTTPS);
  const front = new URLSearchParams(location.hash.slice(1));
  const code = front.get('code') as string;
  const id = (await jwtVerify(front.get('id_token') as string, keys, { issuer, audience: 'a2' })).payload;
  const half = (v: string) => createHash('sha256').update(v).digest().subarray(0, 16).toString('base64url');
  expect([id.nonce, id.c_hash, id.s_hash, id.preferred_username]).toEqual(['n-a2', half(code), half('st-a2'), undefined]);
  const tokens = await exchange(code);
  expect(tokens.status).toBe(200);
  expect(decodeJwt(tokens.body.access_token as string).cnf).toEqual({ 'x5t#S256': cert.x5t });

  // The consent is granted already: the sign-in goes straight back.
  const jarm = await signIn(
    new Jar(),
    authUrl({ client_id: 'a2', request: await object({ response_type: 'code', response_mode: 'jwt' }) }),
  );
  const response = redirectParams(jarm).get('response') as string;
  const claims = (await jwtVerify(response, keys, { issuer, audience: 'a2' })).payload;
  expect(claims.state).toBe('st-a2');
  expect((await exchange(String(claims.code))).status).toBe(200);

  // `code token` without id_token, and `code id_token token` (allow-token-response-type is false), are refused.
  for (const response_type of ['code token', 'code id_token token']) {
    const refused = await new Jar().fetch(authUrl({ client_id: 'a2', request: await object({ response_type }) }));
    const back = new URLSearchParams(new URL(refused.headers.get('location') as string).hash.slice(1));
    expect([back.get('error'), back.get('error_description')]).toEqual(['invalid_request', 'invalid response_type']);
  }
});

test('fapi-2-security-profile: a client-jwt client pushes, logs in and gets certificate-bound tokens; plain requests, RS256 assertions and missing certificates are refused', async () => {
  await usePolicy('fapi-2-security-profile');
  expect((await create(fapiClient('f2', { attributes: { 'token.endpoint.auth.signing.alg': 'RS256' } }))).body).toEqual({
    error: 'invalid_request',
    error_description: 'not allowed signature algorithm.',
  });
  expect((await create(fapiClient('f2'))).status).toBe(201);
  const { verifier, challenge } = pkcePair();
  const request = { response_type: 'code', redirect_uri: HTTPS, scope: 'openid', state: 'st', code_challenge: challenge };
  const plain = await new Jar().fetch(authUrl({ client_id: 'f2', ...request, code_challenge_method: 'S256' }));
  expect(plain.status).toBe(400);
  expect(pageError(await plain.text())).toBe('request_uri not included.');
  const pushed = await post('ext/par/request', { ...request, code_challenge_method: 'S256', ...(await authed('f2')) });
  expect(pushed.status).toBe(201);
  const requestUri = pushed.body.request_uri as string;
  // A parameter the pushed request did not hold drops it.
  const added = await new Jar().fetch(authUrl({ client_id: 'f2', request_uri: requestUri, prompt: 'login' }));
  expect(pageError(await added.text())).toBe('PAR request did not include necessary parameters');
  const again = await post('ext/par/request', { ...request, code_challenge_method: 'S256', ...(await authed('f2')) });
  const back = await signInAndConsent(authUrl({ client_id: 'f2', request_uri: again.body.request_uri as string }));
  const code = redirectParams(back).get('code') as string;
  const exchange = async (alg: string, withCert: boolean) =>
    post(
      'token',
      { grant_type: 'authorization_code', code, redirect_uri: HTTPS, code_verifier: verifier, ...(await authed('f2', alg)) },
      withCert,
    );
  // The profile auto-configured token.endpoint.auth.signing.alg=PS256: Keycloak's JWTClientValidator
  // (validateSignatureAlgorithm) refuses an RS256 assertion while authenticating the client, before any policy runs.
  for (const withCert of [false, true])
    expect(await exchange('RS256', withCert)).toEqual({
      status: 400,
      body: { error: 'invalid_client', error_description: 'invalid signature algorithm' },
    });
  expect(await exchange('PS256', false)).toEqual({
    status: 400,
    body: { error: 'invalid_request', error_description: 'Client Certification missing for MTLS HoK Token Binding' },
  });
  const tokens = await exchange('PS256', true);
  expect(tokens.status).toBe(200);
  expect(decodeJwt(tokens.body.access_token as string).cnf).toEqual({ 'x5t#S256': cert.x5t });
});

test('fapi-2-message-signing: openid-client pushes a signed request object (PAR + JAR, private_key_jwt) and gets certificate-bound tokens; without one it is refused', async () => {
  await usePolicy('fapi-2-message-signing');
  expect((await create(fapiClient('ms'))).status).toBe(201);
  const key = { key: ps.privateKey, kid: 'ps' };
  // The profile auto-configured id.token.signed.response.alg=PS256: the ID token comes signed so (issue 16).
  const metadata = { token_endpoint_auth_signing_alg: 'PS256', id_token_signed_response_alg: 'PS256' };
  const config = await oidc.discovery(new URL(issuer), 'ms', metadata, oidc.PrivateKeyJwt(key), {
    execute: [oidc.allowInsecureRequests],
  });
  const verifier = oidc.randomPKCECodeVerifier();
  const params = {
    redirect_uri: HTTPS,
    scope: 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: 'ms-state',
  };
  // Pushed without a request object: the authorization endpoint refuses it.
  const unsigned = await oidc.buildAuthorizationUrlWithPAR(config, params);
  expect(backWith(await new Jar().fetch(unsigned.href))).toEqual(['invalid_request', "Invalid parameter: : 'request' or 'request_uri'"]);
  const jar = await oidc.buildAuthorizationUrlWithJAR(config, params, key);
  const url = await oidc.buildAuthorizationUrlWithPAR(config, jar.searchParams);
  expect(url.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);
  const back = await signInAndConsent(url.href);
  // The code exchange goes through the proxy that forwards the client's certificate.
  config[oidc.customFetch] = (input, init) =>
    fetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), [CERT_HEADER]: forwarded } });
  const tokens = await oidc.authorizationCodeGrant(config, new URL(back.headers.get('location') as string), {
    pkceCodeVerifier: verifier,
    expectedState: 'ms-state',
  });
  expect(decodeJwt(tokens.access_token).cnf).toEqual({ 'x5t#S256': cert.x5t });
  expect(tokens.claims()?.preferred_username).toBe('alice');
});

test('fapi-ciba: its executors judge only CIBA requests (test/rest/tokens/ciba.test.ts), so browser logins are unaffected', async () => {
  await usePolicy('fapi-ciba');
  const back = await signIn(new Jar(), w.authUrl());
  expect(redirectParams(back).get('code')).toBeTruthy();
});
