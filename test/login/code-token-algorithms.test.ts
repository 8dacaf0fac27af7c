import { createHash } from 'node:crypto';
import { compactDecrypt, createRemoteJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { exchange, Jar, type LoginWorld, loginWorld, redirectParams, signIn } from './browser-client';

/**
 * The code grant's ID token with the client's signature and encryption settings (Keycloak's
 * DefaultTokenManager.encodeAndEncrypt): the login's nonce and auth_time are in the signed token
 * inside the JWE, and `at_hash` uses the hash of the signature algorithm (SHA-384 for ES384).
 */
let w: LoginWorld;
beforeAll(async () => {
  w = await loginWorld('login-alg');
});
afterAll(() => w?.ts.close());

test('ES384-signed, RSA-OAEP-256 encrypted ID token of a code exchange carries nonce, auth_time and a SHA-384 at_hash', async () => {
  const { publicKey, privateKey } = await generateKeyPair('RSA-OAEP-256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'rp-enc', use: 'enc', alg: 'RSA-OAEP-256' };
  const [app] = (await w.api.get('/admin/realms/login-alg/clients?clientId=app').expect(200)).body;
  const attributes = {
    ...app.attributes,
    'id.token.signed.response.alg': 'ES384',
    'id.token.encrypted.response.alg': 'RSA-OAEP-256',
    'id.token.encrypted.response.enc': 'A256GCM',
    'use.jwks.string': 'true',
    'jwks.string': JSON.stringify({ keys: [jwk] }),
  };
  await w.api.put(`/admin/realms/login-alg/clients/${app.id}`, { ...app, attributes }).expect(204);
  const code = redirectParams(await signIn(new Jar(), w.authUrl({ nonce: 'n-enc' }))).get('code') as string;
  const res = await exchange(w, code);
  expect(res.status).toBe(200);
  const { plaintext, protectedHeader } = await compactDecrypt(res.body.id_token as string, privateKey);
  expect(protectedHeader).toEqual({ alg: 'RSA-OAEP-256', enc: 'A256GCM', kid: 'rp-enc', cty: 'JWT' });
  const inner = new TextDecoder().decode(plaintext);
  // No ES384 key in the realm: Keycloak's fallback provider made one, and the JWKS publishes it.
  expect(decodeProtectedHeader(inner).alg).toBe('ES384');
  const jwks = createRemoteJWKSet(new URL(`${w.base}/realms/login-alg/protocol/openid-connect/certs`));
  const { payload } = await jwtVerify(inner, jwks, { audience: 'app', issuer: `${w.base}/realms/login-alg` });
  expect(payload.nonce).toBe('n-enc');
  expect(typeof payload.auth_time).toBe('number');
  const hash = createHash('sha384')
    .update(res.body.access_token as string)
    .digest();
  expect(payload.at_hash).toBe(hash.subarray(0, 24).toString('base64url'));
});
