import { randomUUID } from 'node:crypto';
import {
  compactDecrypt,
  createLocalJWKSet,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  type JSONWebKeySet,
  jwtVerify,
  type KeyLike,
  SignJWT,
} from 'jose';
import request from 'supertest';
import { setConsoleStream } from '../../src/logging';
import { createClient, createdId } from '../helpers/fixtures';
import { payloadOf } from '../helpers/dpop';
import { startTestServer, type TestServer } from '../helpers/server';
import { Capture } from '../logging/helpers';
import { basic, type RpFixture, rpFixture } from './rp-fixture';

/**
 * What a realm signs its tokens with (Keycloak's DefaultTokenManager.signatureAlgorithm and
 * DefaultKeyManager): key providers created through the admin API (rsa-generated with its
 * `algorithm`, ecdsa-generated, eddsa-generated), the client attributes that choose an algorithm per
 * token, the realm's `defaultSignatureAlgorithm`, the fallback key Keycloak's factories create when
 * a realm has no key of an algorithm, and the JWE of an ID token or userinfo answer to the client's
 * key. Each token verifies with jose against the realm's JWKS, and every endpoint that takes a token
 * back (userinfo, introspection, refresh, logout with id_token_hint, the admin bearer check) accepts it.
 */
let ts: TestServer;
let rp: RpFixture;
const R = 'algs';
const KEY_PROVIDER = 'org.keycloak.keys.KeyProvider';
/** The server's log at its test level (ERROR). */
const log = new Capture();

beforeAll(async () => {
  setConsoleStream(log);
  ts = await startTestServer();
  rp = await rpFixture(ts, R);
});
afterAll(async () => {
  await ts.close();
  setConsoleStream(undefined);
});

const jwks = async (realm = R) =>
  (await request(ts.app).get(`/realms/${realm}/protocol/openid-connect/certs`).expect(200)).body as JSONWebKeySet;
const keys = async (realm = R) => (await rp.admin.get(`/admin/realms/${realm}/keys`).expect(200)).body;

async function addKeyProvider(providerId: string, config: Record<string, string[]>, realm = R): Promise<string> {
  const res = await rp.admin.post(`/admin/realms/${realm}/components`, {
    name: `${providerId}-${Object.values(config).flat().join('-')}`,
    providerId,
    providerType: KEY_PROVIDER,
    config: { priority: ['100'], ...config },
  });
  return createdId(res, `creating ${providerId}`);
}

async function setAttributes(clientId: string, attributes: Record<string, string | null>, realm = R): Promise<void> {
  const [rep] = (await rp.admin.get(`/admin/realms/${realm}/clients?clientId=${clientId}`).expect(200)).body;
  // An attribute sent empty is removed (Keycloak's updateClient); null stands for that here.
  const merged: Record<string, string> = { ...rep.attributes };
  for (const [k, v] of Object.entries(attributes)) merged[k] = v ?? '';
  await rp.admin.put(`/admin/realms/${realm}/clients/${rep.id}`, { ...rep, attributes: merged }).expect(204);
}

const token = (form: Record<string, string>, clientId = 'web') =>
  request(ts.app)
    .post(rp.endpoint('token'))
    .type('form')
    .send({ client_id: clientId, client_secret: `${clientId}-secret`, ...form });
const login = (clientId = 'web') => token({ grant_type: 'password', username: 'alice', password: 'alice-pw', scope: 'openid' }, clientId);

/** Everything that takes the access token back: userinfo (signed too), introspection, refresh, the admin bearer check, logout. */
async function roundTrip(alg: string, body: { access_token: string; refresh_token: string; id_token: string }) {
  const set = createLocalJWKSet(await jwks());
  const userinfo = await request(ts.app).get(rp.endpoint('userinfo')).set('Authorization', `Bearer ${body.access_token}`);
  expect([userinfo.status, userinfo.headers['content-type']]).toEqual([200, 'application/jwt; charset=utf-8']);
  const signedUserinfo = await jwtVerify(userinfo.text, set, { algorithms: [alg], audience: 'web' });
  expect(signedUserinfo.payload.preferred_username).toBe('alice');
  const introspection = await request(ts.app)
    .post(rp.endpoint('token/introspect'))
    .set('Authorization', basic('web', 'web-secret'))
    .type('form')
    .send({ token: body.access_token });
  expect([introspection.status, introspection.body.active]).toEqual([200, true]);
  // Verified as the realm's token: alice has no admin role, so 403 (a token that does not verify is a 401).
  const admin = await request(ts.app).get(`/admin/realms/${R}/users`).set('Authorization', `Bearer ${body.access_token}`);
  expect(admin.status).toBe(403);
  const refreshed = await rp.refresh(body.refresh_token);
  expect(refreshed.status).toBe(200);
  expect(decodeProtectedHeader(refreshed.body.access_token).alg).toBe(alg);
  const logout = await request(ts.app).get(`${rp.endpoint('logout')}?${new URLSearchParams({ id_token_hint: body.id_token })}`);
  expect(logout.status).toBe(200);
  expect(logout.text).toContain('You are logged out.');
  // The session the hint named is gone.
  expect((await rp.refresh(refreshed.body.refresh_token)).body.error_description).toBe('Session not active');
}

const ALGORITHMS: Array<[string, string | undefined, Record<string, string[]>, string]> = [
  ['RS256', undefined, {}, 'RSA'],
  ['RS384', 'rsa-generated', { algorithm: ['RS384'] }, 'RSA'],
  ['RS512', 'rsa-generated', { algorithm: ['RS512'] }, 'RSA'],
  ['PS256', 'rsa-generated', { algorithm: ['PS256'] }, 'RSA'],
  ['PS384', 'rsa-generated', { algorithm: ['PS384'] }, 'RSA'],
  ['PS512', 'rsa-generated', { algorithm: ['PS512'] }, 'RSA'],
  ['ES256', 'ecdsa-generated', { ecdsaEllipticCurveKey: ['P-256'] }, 'EC'],
  ['ES384', 'ecdsa-generated', { ecdsaEllipticCurveKey: ['P-384'] }, 'EC'],
  ['ES512', 'ecdsa-generated', { ecdsaEllipticCurveKey: ['P-521'] }, 'EC'],
  ['EdDSA', 'eddsa-generated', { eddsaEllipticCurveKey: ['Ed25519'] }, 'OKP'],
];

test.each(ALGORITHMS)(
  '%s: a key provider of the admin API signs the access, ID and userinfo tokens the client asks for',
  async (alg, providerId, config, type) => {
    const componentId = providerId ? await addKeyProvider(providerId, config) : undefined;
    const meta = await keys();
    const kid = meta.active[alg];
    expect(kid).toBeDefined();
    const key = meta.keys.find((k: { kid: string }) => k.kid === kid);
    expect(key).toMatchObject({ type, algorithm: alg, use: 'SIG', status: 'ACTIVE' });
    expect(key.publicKey).toMatch(/^[A-Za-z0-9+/=]+$/);
    if (componentId) expect(key.providerId).toBe(componentId);
    const jwk = (await jwks()).keys.find((k) => k.kid === kid);
    expect(jwk).toMatchObject({ kid, alg, use: 'sig', kty: type });
    await setAttributes('web', {
      'access.token.signed.response.alg': alg,
      'id.token.signed.response.alg': alg,
      'user.info.response.signature.alg': alg,
    });
    try {
      const res = await login();
      expect(res.status).toBe(200);
      const set = createLocalJWKSet(await jwks());
      for (const t of [res.body.access_token, res.body.id_token]) {
        expect(decodeProtectedHeader(t)).toMatchObject({ alg, kid, typ: 'JWT' });
        await jwtVerify(t, set, { algorithms: [alg] });
      }
      // The refresh token is internal: HS512 whatever the client chose.
      expect(decodeProtectedHeader(res.body.refresh_token).alg).toBe('HS512');
      await roundTrip(alg, res.body);
    } finally {
      await setAttributes('web', {
        'access.token.signed.response.alg': null,
        'id.token.signed.response.alg': null,
        'user.info.response.signature.alg': null,
      });
    }
  },
);

test('Ed448 keys sign EdDSA tokens too', async () => {
  const id = await addKeyProvider('eddsa-generated', { eddsaEllipticCurveKey: ['Ed448'], priority: ['300'] });
  await setAttributes('web', { 'access.token.signed.response.alg': 'EdDSA', 'id.token.signed.response.alg': 'EdDSA' });
  try {
    const meta = await keys();
    const kid = meta.active.EdDSA;
    expect(meta.keys.find((k: { kid: string }) => k.kid === kid).providerId).toBe(id);
    const jwk = (await jwks()).keys.find((k) => k.kid === kid);
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed448', alg: 'EdDSA' });
    const res = await login();
    expect(decodeProtectedHeader(res.body.id_token).kid).toBe(kid);
    await jwtVerify(res.body.id_token, createLocalJWKSet(await jwks()), { algorithms: ['EdDSA'] });
  } finally {
    await rp.admin.delete(`/admin/realms/${R}/components/${id}`).expect(204);
    await setAttributes('web', { 'access.token.signed.response.alg': null, 'id.token.signed.response.alg': null });
  }
});

test("the realm's defaultSignatureAlgorithm signs the tokens of a client that names none", async () => {
  const realm = (await rp.admin.get(`/admin/realms/${R}`).expect(200)).body;
  await rp.admin.put(`/admin/realms/${R}`, { ...realm, defaultSignatureAlgorithm: 'ES256' }).expect(204);
  try {
    const res = await login();
    expect(decodeProtectedHeader(res.body.access_token).alg).toBe('ES256');
    expect(decodeProtectedHeader(res.body.id_token).alg).toBe('ES256');
    // A client attribute wins over the realm's default.
    await setAttributes('web', { 'id.token.signed.response.alg': 'PS256' });
    const mixed = await login();
    expect(decodeProtectedHeader(mixed.body.access_token).alg).toBe('ES256');
    expect(decodeProtectedHeader(mixed.body.id_token).alg).toBe('PS256');
  } finally {
    await setAttributes('web', { 'id.token.signed.response.alg': null });
    await rp.admin.put(`/admin/realms/${R}`, { ...realm, defaultSignatureAlgorithm: 'RS256' }).expect(204);
  }
});

test('no key of the algorithm: a fallback key is created as Keycloak does; an algorithm no provider makes is a 400', async () => {
  await createClient(rp.admin, 'algs', {
    clientId: 'fb',
    secret: 'fb-secret',
    directAccessGrantsEnabled: true,
    attributes: { 'access.token.signed.response.alg': 'HS384' },
  });
  const res = await login('fb');
  expect(res.status).toBe(200);
  expect(decodeProtectedHeader(res.body.access_token).alg).toBe('HS384');
  const components = (await rp.admin.get(`/admin/realms/${R}/components?type=${KEY_PROVIDER}`).expect(200)).body;
  const fallback = components.find((c: { name: string }) => c.name === 'fallback-HS384');
  expect(fallback).toMatchObject({ providerId: 'hmac-generated', config: { priority: ['-100'], algorithm: ['HS384'] } });
  expect((await keys()).active.HS384).toBeDefined();
  // The second token uses that key: no second fallback.
  await login('fb');
  const again = (await rp.admin.get(`/admin/realms/${R}/components?type=${KEY_PROVIDER}`).expect(200)).body;
  expect(again.filter((c: { name: string }) => c.name === 'fallback-HS384')).toHaveLength(1);

  await setAttributes('fb', { 'access.token.signed.response.alg': 'RSA-OAEP' });
  const logged = log.text.length;
  const refused = await login('fb');
  expect([refused.status, refused.body]).toEqual([
    400,
    { error: 'invalid_request', error_description: 'Failed to find key: realm=algs algorithm=RSA-OAEP use=SIG' },
  ]);
  // Answered as a bad request, so not logged at ERROR (a WARN: the client's configuration names the algorithm).
  expect(log.text.slice(logged)).not.toContain('Failed to find key');
});

test('a passive key still verifies the tokens it signed; a disabled one no longer does (the bearer check forgets it)', async () => {
  const id = await addKeyProvider('ecdsa-generated', { ecdsaEllipticCurveKey: ['P-256'], priority: ['500'] });
  await setAttributes('web', { 'access.token.signed.response.alg': 'ES256' });
  try {
    const res = await login();
    expect(decodeProtectedHeader(res.body.access_token).kid).toBe((await keys()).active.ES256);
    const adminCall = () => request(ts.app).get(`/admin/realms/${R}/users`).set('Authorization', `Bearer ${res.body.access_token}`);
    expect((await adminCall()).status).toBe(403);
    const component = (await rp.admin.get(`/admin/realms/${R}/components/${id}`).expect(200)).body;
    await rp.admin
      .put(`/admin/realms/${R}/components/${id}`, { ...component, config: { ...component.config, active: ['false'] } })
      .expect(204);
    expect((await adminCall()).status).toBe(403);
    const introspect = () =>
      request(ts.app)
        .post(rp.endpoint('token/introspect'))
        .set('Authorization', basic('web', 'web-secret'))
        .type('form')
        .send({ token: res.body.access_token });
    expect((await introspect()).body.active).toBe(true);
    await rp.admin
      .put(`/admin/realms/${R}/components/${id}`, { ...component, config: { ...component.config, enabled: ['false'] } })
      .expect(204);
    expect((await adminCall()).status).toBe(401);
    expect((await introspect()).body.active).toBe(false);
    const userinfo = await request(ts.app).get(rp.endpoint('userinfo')).set('Authorization', `Bearer ${res.body.access_token}`);
    expect(userinfo.status).toBe(401);
  } finally {
    await rp.admin.delete(`/admin/realms/${R}/components/${id}`).expect(204);
    await setAttributes('web', { 'access.token.signed.response.alg': null });
  }
});

describe('encrypted ID tokens and userinfo (JWE to the client’s key)', () => {
  // The last column: the client's userinfo signature algorithm (none: the encrypted answer holds the JSON claims).
  test.each([
    ['RSA-OAEP', undefined, 'A128CBC-HS256', undefined],
    ['RSA-OAEP-256', 'A256GCM', 'A256GCM', 'ES256'],
    ['RSA-OAEP-256', 'A128CBC-HS256', 'A128CBC-HS256', undefined],
    ['ECDH-ES+A256KW', 'A256GCM', 'A256GCM', 'PS256'],
  ])('%s with %s (%s), userinfo signed with %s', async (alg, enc, expectedEnc, userinfoAlg) => {
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: `enc-${alg}-${expectedEnc}`, use: 'enc', alg };
    const signingOnly = { ...(await exportJWK((await generateKeyPair('RS256', { extractable: true })).publicKey)), kid: 'sig', use: 'sig' };
    await setAttributes('web', {
      'use.jwks.string': 'true',
      'jwks.string': JSON.stringify({ keys: [signingOnly, jwk] }),
      'id.token.encrypted.response.alg': alg,
      'id.token.encrypted.response.enc': enc ?? null,
      'user.info.encrypted.response.alg': alg,
      'user.info.encrypted.response.enc': enc ?? null,
      'user.info.response.signature.alg': userinfoAlg ?? null,
    });
    try {
      const res = await login();
      expect(res.status).toBe(200);
      expect(res.body.id_token.split('.')).toHaveLength(5);
      const { plaintext, protectedHeader } = await compactDecrypt(res.body.id_token, privateKey);
      // (ECDH-ES adds its ephemeral public key, `epk`.)
      expect(protectedHeader).toMatchObject({ alg, enc: expectedEnc, kid: jwk.kid, cty: 'JWT' });
      const inner = new TextDecoder().decode(plaintext);
      const { payload } = await jwtVerify(inner, createLocalJWKSet(await jwks()), { algorithms: ['RS256'] });
      expect(payload).toMatchObject({ typ: 'ID', azp: 'web', sub: rp.alice });
      // The access token is not encrypted.
      expect(res.body.access_token.split('.')).toHaveLength(3);
      const userinfo = await request(ts.app).get(rp.endpoint('userinfo')).set('Authorization', `Bearer ${res.body.access_token}`);
      expect([userinfo.status, userinfo.headers['content-type']]).toEqual([200, 'application/jwt; charset=utf-8']);
      const decrypted = await compactDecrypt(userinfo.text, privateKey);
      const content = new TextDecoder().decode(decrypted.plaintext);
      if (userinfoAlg) {
        expect(decrypted.protectedHeader.cty).toBe('JWT');
        const claims = await jwtVerify(content, createLocalJWKSet(await jwks()), { algorithms: [userinfoAlg] });
        expect(claims.payload).toMatchObject({ sub: rp.alice, aud: 'web', preferred_username: 'alice' });
      } else {
        // Keycloak's UserInfoEndpoint: encryption without a signature wraps the JSON claims (no iss, aud, cty).
        expect(decrypted.protectedHeader.cty).toBeUndefined();
        expect(JSON.parse(content)).toMatchObject({ sub: rp.alice, preferred_username: 'alice' });
        expect(JSON.parse(content).aud).toBeUndefined();
      }
    } finally {
      await setAttributes('web', {
        'use.jwks.string': null,
        'jwks.string': null,
        'id.token.encrypted.response.alg': null,
        'id.token.encrypted.response.enc': null,
        'user.info.encrypted.response.alg': null,
        'user.info.encrypted.response.enc': null,
        'user.info.response.signature.alg': null,
      });
    }
  });

  test('a client without an encryption key gets a 400, not a token it cannot read', async () => {
    await setAttributes('web', { 'id.token.encrypted.response.alg': 'RSA-OAEP' });
    try {
      const res = await login();
      expect([res.status, res.body]).toEqual([400, { error: 'invalid_request', error_description: 'can not get encryption KEK' }]);
    } finally {
      await setAttributes('web', { 'id.token.encrypted.response.alg': null });
    }
  });
});

test('the JWKS lists every enabled public key with its alg, use and certificate thumbprints', async () => {
  const set = await jwks();
  const meta = await keys();
  const expected = meta.keys.filter((k: { status: string; type: string }) => k.status !== 'DISABLED' && k.type !== 'OCT');
  expect(set.keys.map((k) => k.kid)).toEqual(expected.map((k: { kid: string }) => k.kid));
  const enc = set.keys.find((k) => k.use === 'enc');
  expect(enc).toMatchObject({ kty: 'RSA', alg: 'RSA-OAEP' });
  for (const k of set.keys.filter((j) => j.x5c)) {
    expect(k.x5t).toMatch(/^[A-Za-z0-9_-]{27}$/);
    expect(k['x5t#S256']).toMatch(/^[A-Za-z0-9_-]{43}$/);
  }
  expect(payloadOf((await login()).body.access_token).iss).toBe(`http://localhost:8080/realms/${R}`);
  const discovery = (await request(ts.app).get(`/realms/${R}/.well-known/openid-configuration`).expect(200)).body;
  expect(discovery.id_token_encryption_alg_values_supported).toEqual(
    expect.arrayContaining(['RSA-OAEP', 'RSA-OAEP-256', 'ECDH-ES+A256KW']),
  );
  expect(discovery.userinfo_encryption_enc_values_supported).toEqual(expect.arrayContaining(['A128CBC-HS256', 'A256GCM']));
});

test("a client assertion must use the client's token.endpoint.auth.signing.alg (Keycloak's JWTClientValidator)", async () => {
  const es = await generateKeyPair('ES256');
  const ps = await generateKeyPair('PS256');
  const keysOf = async (pair: { publicKey: KeyLike }, kid: string, alg: string) => ({
    ...(await exportJWK(pair.publicKey)),
    kid,
    alg,
    use: 'sig',
  });
  await createClient(rp.admin, R, {
    clientId: 'assert',
    publicClient: false,
    serviceAccountsEnabled: true,
    clientAuthenticatorType: 'client-jwt',
    attributes: {
      'use.jwks.string': 'true',
      'jwks.string': JSON.stringify({ keys: [await keysOf(es, 'es', 'ES256'), await keysOf(ps, 'ps', 'PS256')] }),
      'token.endpoint.auth.signing.alg': 'PS256',
    },
  });
  const assertion = (alg: string, key: KeyLike, kid: string) =>
    new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg, kid })
      .setIssuer('assert')
      .setSubject('assert')
      .setAudience(`http://localhost:8080/realms/${R}`)
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(key);
  const grant = async (jwt: string) =>
    request(ts.app).post(rp.endpoint('token')).type('form').send({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: jwt,
    });
  const wrong = await grant(await assertion('ES256', es.privateKey, 'es'));
  expect([wrong.status, wrong.body]).toEqual([400, { error: 'invalid_client', error_description: 'invalid signature algorithm' }]);
  expect((await grant(await assertion('PS256', ps.privateKey, 'ps'))).status).toBe(200);
});
