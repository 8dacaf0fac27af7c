import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compactDecrypt, exportJWK, generateKeyPair, type JWK, type KeyLike, SignJWT } from 'jose';
import request from 'supertest';
import { clock } from '../../src/core/clock';
import { createClient } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { type RpFixture, rpFixture } from './rp-fixture';

/**
 * A client's `jwks.url` is fetched once and its keys kept, as Keycloak's PublicKeyStorageManager
 * (InfinispanPublicKeyStorageProvider) keeps them: encrypted ID tokens and client assertions use the
 * kept document while it has the key they need; a missing key (an unknown `kid`, no encryption key)
 * fetches it again, at most once per 10 s (minTimeBetweenRequests). A local HTTP server counts the
 * fetches.
 */
let ts: TestServer;
let rp: RpFixture;
let jwksServer: Server;
let served: { keys: JWK[] } = { keys: [] };
let fetches = 0;
let url = '';
const R = 'jwks-url';
const realNow = clock.now;
let offset = 0;
const later = (seconds: number) => {
  offset += seconds * 1000;
};

beforeAll(async () => {
  jwksServer = createServer((_req, res) => {
    fetches++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(served));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;
  ts = await startTestServer();
  rp = await rpFixture(ts, R);
  clock.now = () => realNow() + offset;
});
afterAll(async () => {
  clock.now = realNow;
  await ts.close();
  await new Promise((resolve) => jwksServer.close(resolve));
});

const publicJwk = async (pair: { publicKey: KeyLike }, kid: string, alg: string, use: string) => ({
  ...(await exportJWK(pair.publicKey)),
  kid,
  alg,
  use,
});

test('encrypted ID tokens: one fetch for many tokens; a document without an encryption key is fetched again only after 10 s', async () => {
  const enc = await generateKeyPair('RSA-OAEP', { extractable: true });
  const sig = await generateKeyPair('RS256', { extractable: true });
  served = { keys: [await publicJwk(sig, 'sig-1', 'RS256', 'sig')] };
  await createClient(rp.admin, R, {
    clientId: 'enc',
    publicClient: false,
    secret: 'enc-secret',
    directAccessGrantsEnabled: true,
    attributes: { 'use.jwks.url': 'true', 'jwks.url': `${url}/enc`, 'id.token.encrypted.response.alg': 'RSA-OAEP' },
  });
  const login = () =>
    request(ts.app).post(rp.endpoint('token')).type('form').send({
      grant_type: 'password',
      client_id: 'enc',
      client_secret: 'enc-secret',
      username: 'alice',
      password: 'alice-pw',
      scope: 'openid',
    });
  const before = fetches;
  // No encryption key in the document: refused, and asking again at once does not fetch again.
  for (let i = 0; i < 3; i++) {
    const res = await login();
    expect([res.status, res.body]).toEqual([400, { error: 'invalid_request', error_description: 'can not get encryption KEK' }]);
  }
  expect(fetches - before).toBe(1);
  served = { keys: [...served.keys, await publicJwk(enc, 'enc-1', 'RSA-OAEP', 'enc')] };
  expect((await login()).status).toBe(400);
  expect(fetches - before).toBe(1);
  later(11);
  for (let i = 0; i < 4; i++) {
    const res = await login();
    expect(res.status).toBe(200);
    const { protectedHeader } = await compactDecrypt(res.body.id_token, enc.privateKey);
    expect(protectedHeader).toMatchObject({ alg: 'RSA-OAEP', kid: 'enc-1' });
  }
  // One fetch more, for the four tokens.
  expect(fetches - before).toBe(2);
});

test('client assertions: the kept keys verify; a new kid fetches the document again (at most once per 10 s)', async () => {
  const k1 = await generateKeyPair('PS256');
  const k2 = await generateKeyPair('PS256');
  served = { keys: [await publicJwk(k1, 'k1', 'PS256', 'sig')] };
  await createClient(rp.admin, R, {
    clientId: 'assert',
    publicClient: false,
    serviceAccountsEnabled: true,
    clientAuthenticatorType: 'client-jwt',
    attributes: { 'use.jwks.url': 'true', 'jwks.url': `${url}/assert` },
  });
  const assertion = (key: KeyLike, kid: string) =>
    new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: 'PS256', kid })
      .setIssuer('assert')
      .setSubject('assert')
      .setAudience(`http://localhost:8080/realms/${R}`)
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(key);
  const grant = async (key: KeyLike, kid: string) =>
    request(ts.app)
      .post(rp.endpoint('token'))
      .type('form')
      .send({
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await assertion(key, kid),
      });
  const before = fetches;
  for (let i = 0; i < 3; i++) expect((await grant(k1.privateKey, 'k1')).status).toBe(200);
  expect(fetches - before).toBe(1);
  // The client rotates to k2: the first assertion with it misses the kept keys and fetches again.
  served = { keys: [await publicJwk(k2, 'k2', 'PS256', 'sig')] };
  later(11);
  expect((await grant(k2.privateKey, 'k2')).status).toBe(200);
  expect(fetches - before).toBe(2);
  // An unknown kid right after: refused without a fetch (the last one is less than 10 s old).
  const k3 = await generateKeyPair('PS256');
  const refused = await grant(k3.privateKey, 'k3');
  expect([refused.status, refused.body]).toEqual([
    401,
    {
      error: 'unauthorized_client',
      error_description: 'Client authentication with signed JWT failed: Signature on JWT token failed validation',
    },
  ]);
  expect(fetches - before).toBe(2);
  expect((await grant(k2.privateKey, 'k2')).status).toBe(200);
  expect(fetches - before).toBe(2);
});

test('concurrent requests that miss share one fetch', async () => {
  const k = await generateKeyPair('PS256');
  served = { keys: [await publicJwk(k, 'kc', 'PS256', 'sig')] };
  await createClient(rp.admin, R, {
    clientId: 'many',
    publicClient: false,
    serviceAccountsEnabled: true,
    clientAuthenticatorType: 'client-jwt',
    attributes: { 'use.jwks.url': 'true', 'jwks.url': `${url}/many` },
  });
  const sign = () =>
    new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: 'PS256', kid: 'kc' })
      .setIssuer('many')
      .setSubject('many')
      .setAudience(`http://localhost:8080/realms/${R}`)
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(k.privateKey);
  const assertions = await Promise.all(Array.from({ length: 5 }, sign));
  const before = fetches;
  const results = await Promise.all(
    assertions.map((a) =>
      request(ts.app).post(rp.endpoint('token')).type('form').send({
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: a,
      }),
    ),
  );
  expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  expect(fetches - before).toBe(1);
});
