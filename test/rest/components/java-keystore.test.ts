import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createUser, realmServer } from '../../helpers/fixtures';
import type { KeysMetadata } from '../../../src/services/components/keys';
import type { AdminApi, TestServer } from '../../helpers/server';

/**
 * The `java-keystore` key provider (Keycloak's JavaKeystoreKeyProvider and its factory): realm keys
 * read from a JKS or PKCS#12 file on the server, made by the JDK's keytool; a configuration whose
 * file, passwords, alias or algorithm do not give a key is a 400 with Keycloak's reason.
 */
let ts: TestServer;
let api: AdminApi;
let dir: string;
const R = 'jksrealm';
const P = `/admin/realms/${R}`;
const KP = 'org.keycloak.keys.KeyProvider';

/** A key pair with a self-signed certificate in a new keystore file, by keytool. */
function keystore(name: string, opts: { type: 'JKS' | 'PKCS12'; keyalg: 'RSA' | 'EC'; storepass: string; keypass: string; alias: string }) {
  const path = join(dir, name);
  const alg = opts.keyalg === 'RSA' ? ['-keyalg', 'RSA', '-keysize', '2048'] : ['-keyalg', 'EC', '-groupname', 'secp256r1'];
  execFileSync(
    'keytool',
    [
      '-genkeypair',
      '-alias',
      opts.alias,
      ...alg,
      '-dname',
      `CN=${name}`,
      '-validity',
      '30',
      '-keystore',
      path,
      '-storetype',
      opts.type,
      '-storepass',
      opts.storepass,
      '-keypass',
      opts.keypass,
    ],
    { stdio: 'ignore' },
  );
  return path;
}

let jks: string;
let p12: string;
let ecP12: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'idserver-jks-'));
  jks = keystore('rsa.jks', { type: 'JKS', keyalg: 'RSA', storepass: 'store-pw', keypass: 'key-pw', alias: 'signing' });
  // keytool gives a PKCS#12 entry the store's password.
  p12 = keystore('rsa.p12', { type: 'PKCS12', keyalg: 'RSA', storepass: 'p12-store-pw', keypass: 'p12-store-pw', alias: 'enc' });
  ecP12 = keystore('ec.p12', { type: 'PKCS12', keyalg: 'EC', storepass: 'ec-store-pw', keypass: 'ec-store-pw', alias: 'ec' });
  ({ ts, api } = await realmServer(R));
  await createUser(ts, R, 'signer', { password: 'pw' });
});
afterAll(async () => {
  await ts.close();
  rmSync(dir, { recursive: true, force: true });
});

const provider = (name: string, config: Record<string, string>) =>
  api.post(`${P}/components`, {
    name,
    providerId: 'java-keystore',
    providerType: KP,
    config: Object.fromEntries(Object.entries(config).map(([k, v]) => [k, [v]])),
  });
const keys = async () => (await api.get(`${P}/keys`).expect(200)).body as KeysMetadata;
const idOf = (location: string) => location.slice(location.lastIndexOf('/') + 1);

test('a JKS key signs the realm tokens; its certificate is the file’s, and the passwords are masked', async () => {
  const res = await provider('jks', {
    keystore: jks,
    keystorePassword: 'store-pw',
    keyAlias: 'signing',
    keyPassword: 'key-pw',
    priority: '500',
  });
  expect(res.status).toBe(201);
  const id = idOf(res.headers.location);
  const key = (await keys()).keys.find((k) => k.providerId === id);
  expect(key).toMatchObject({ type: 'RSA', algorithm: 'RS256', use: 'SIG', status: 'ACTIVE', providerPriority: 500 });
  const x = new X509Certificate(Buffer.from(key?.certificate as string, 'base64'));
  expect(x.subject).toBe('CN=rsa.jks');
  expect(x.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')).toBe(key?.publicKey);
  // The next token is signed with it, and the realm's JWKS verifies it.
  const token = (
    await request(ts.app)
      .post(`/realms/${R}/protocol/openid-connect/token`)
      .type('form')
      .send({ grant_type: 'password', client_id: 'admin-cli', username: 'signer', password: 'pw' })
      .expect(200)
  ).body.access_token as string;
  expect(decodeProtectedHeader(token).kid).toBe(key?.kid);
  const jwks = (await request(ts.app).get(`/realms/${R}/protocol/openid-connect/certs`).expect(200)).body;
  await jwtVerify(token, createLocalJWKSet(jwks));
  expect(jwks.keys.find((k: { kid: string }) => k.kid === key?.kid).x5c).toEqual([key?.certificate]);
  const stored = (await api.get(`${P}/components/${id}`).expect(200)).body;
  expect(stored.config.keystorePassword).toEqual(['**********']);
  expect(stored.config.keyPassword).toEqual(['**********']);
  expect(JSON.stringify(stored)).not.toContain('store-pw');
  await api.delete(`${P}/components/${id}`).expect(204);
});

test('PKCS#12 by its extension: an RSA key for encryption, an EC key for ES256', async () => {
  const enc = await provider('p12', {
    keystore: p12,
    keystorePassword: 'p12-store-pw',
    keyAlias: 'enc',
    keyPassword: 'p12-store-pw',
    keyUse: 'enc',
  });
  expect(enc.status).toBe(201);
  const es = await provider('ec', {
    keystore: ecP12,
    keystorePassword: 'ec-store-pw',
    keyAlias: 'ec',
    keyPassword: 'ec-store-pw',
    algorithm: 'ES256',
  });
  expect(es.status).toBe(201);
  const all = (await keys()).keys;
  expect(all.find((k) => k.providerId === idOf(enc.headers.location))).toMatchObject({ type: 'RSA', algorithm: 'RSA-OAEP', use: 'ENC' });
  expect(all.find((k) => k.providerId === idOf(es.headers.location))).toMatchObject({ type: 'EC', algorithm: 'ES256', use: 'SIG' });
});

test.each([
  [
    'a file that is not there',
    { keystore: '/nonexistent/keys.jks' },
    'File not found on server. /nonexistent/keys.jks (No such file or directory)',
  ],
  ['a wrong keystore password', { keystorePassword: 'wrong' }, 'IO error on server. keystore password was incorrect'],
  [
    'an alias the file does not have',
    { keyAlias: 'nope' },
    'Key in the keystore cannot be recovered. Alias nope does not exists in the keystore.',
  ],
  [
    'a use the algorithm does not have',
    { keyUse: 'enc', algorithm: 'RS256' },
    'Key in the keystore cannot be recovered. Invalid use enc for algorithm RS256.',
  ],
  [
    'an RSA key for ES256',
    { algorithm: 'ES256' },
    'Algorithm not available on server. Invalid ES256 key for alias signing. Algorithm is RSA.',
  ],
  ['a BCFKS keystore', { keystoreType: 'BCFKS' }, 'KeyStore error on server. BCFKS not found'],
])('%s: 400 "Failed to load keys. …", nothing created', async (_, change, reason) => {
  const before = (await api.get(`${P}/components?type=${KP}`).expect(200)).body.length;
  const res = await provider('bad', { keystore: jks, keystorePassword: 'store-pw', keyAlias: 'signing', keyPassword: 'key-pw', ...change });
  expect([res.status, res.body]).toEqual([400, { errorMessage: `Failed to load keys. ${reason}` }]);
  expect((await api.get(`${P}/components?type=${KP}`).expect(200)).body.length).toBe(before);
});

test('keystore, keystorePassword, keyAlias and keyPassword are required', async () => {
  const res = await provider('missing', { keystore: jks, keystorePassword: 'store-pw', keyAlias: 'signing' });
  expect(res.status).toBe(400);
  expect(res.body.errorMessage).toMatch(/Key Password/);
});
