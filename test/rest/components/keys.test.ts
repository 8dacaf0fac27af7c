import { X509Certificate, createPublicKey, generateKeyPairSync } from 'node:crypto';
import request from 'supertest';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createUser, realmAdmin, realmServer } from '../../helpers/fixtures';
import type { KeysMetadata } from '../../../src/services/components/keys';
import type { AdminApi, TestServer } from '../../helpers/server';

/** `GET /admin/realms/{realm}/keys` (config reference §7, §14.3) and key providers written through /components. */
let ts: TestServer;
let api: AdminApi;
const R = 'keysrealm';
const P = `/admin/realms/${R}`;
const KP = 'org.keycloak.keys.KeyProvider';

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  await createUser(ts, R, 'signer', { password: 'pw' });
});
afterAll(() => ts.close());

const idOf = (location: string) => location.slice(location.lastIndexOf('/') + 1);
const keys = async (): Promise<KeysMetadata> => {
  const res = await api.get(`${P}/keys`);
  expect(res.status).toBe(200);
  return res.body as KeysMetadata;
};
/** The kid in the header of a fresh access token of a realm user (tokens are not cached here). */
async function signedToken(): Promise<string> {
  const res = await request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username: 'signer', password: 'pw' });
  expect(res.status).toBe(200);
  return res.body.access_token;
}
async function tokenKid(): Promise<string> {
  return String(decodeProtectedHeader(await signedToken()).kid);
}
async function createKeyProvider(providerId: string, config: Record<string, string[]>, name = providerId): Promise<string> {
  const res = await api.post(`${P}/components`, { name, providerId, providerType: KP, config });
  expect(res.status).toBe(201);
  return idOf(res.headers.location);
}

describe('GET /keys of a new realm (§14.3)', () => {
  test('four keys in priority / component-id order, active map per algorithm, RSA material as base64 DER', async () => {
    const body = await keys();
    expect(Object.keys(body.active).sort()).toEqual(['AES', 'HS512', 'RS256', 'RSA-OAEP']);
    expect(body.keys).toHaveLength(4);
    const components = (await api.get(`${P}/components?type=${KP}`)).body as Array<{ id: string; name: string }>;
    expect(body.keys.map((k) => k.providerId)).toEqual(components.map((c) => c.id).sort());
    const byAlg = Object.fromEntries(body.keys.map((k) => [k.algorithm, k]));
    expect(byAlg.RS256).toMatchObject({ providerPriority: 100, status: 'ACTIVE', type: 'RSA', use: 'SIG', kid: body.active.RS256 });
    expect(byAlg['RSA-OAEP']).toMatchObject({ type: 'RSA', use: 'ENC', status: 'ACTIVE' });
    expect(byAlg.HS512).toMatchObject({ type: 'OCT', use: 'SIG' });
    expect(byAlg.AES).toMatchObject({ type: 'OCT', use: 'ENC' });
    expect(byAlg.HS512).not.toHaveProperty('publicKey');
    expect(byAlg.AES).not.toHaveProperty('certificate');
    const cert = new X509Certificate(Buffer.from(byAlg.RS256.certificate as string, 'base64'));
    expect(cert.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')).toBe(byAlg.RS256.publicKey);
    expect(byAlg.RS256.validTo).toBe(Date.parse(cert.validTo));
    expect(cert.subject).toContain(`CN=${R}`);
    // Self-signed: its signature checks with its own key.
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkIssued(cert)).toBe(true);
    expect(byAlg.RS256.publicKey).not.toContain('BEGIN');
  });

  test('needs view-realm', async () => {
    const viewer = await realmAdmin(ts, R, 'keys-viewer', ['view-realm']);
    expect((await viewer.get(`${P}/keys`)).status).toBe(200);
    const other = await realmAdmin(ts, R, 'keys-other', ['view-clients']);
    expect((await other.get(`${P}/keys`)).status).toBe(403);
    expect((await request(ts.app).get(`${P}/keys`)).status).toBe(401);
    expect((await api.get('/admin/realms/nope/keys')).status).toBe(404);
  });
});

describe('key providers change the realm signing keys', () => {
  test('a higher-priority rsa-generated key signs the next token; made passive, the old key signs again; deleted, it is gone', async () => {
    const oldKid = (await keys()).active.RS256;
    expect(await tokenKid()).toBe(oldKid);
    const id = await createKeyProvider('rsa-generated', { priority: ['200'] }, 'rotated');
    const after = await keys();
    const mine = after.keys.find((k) => k.providerId === id);
    expect(mine).toMatchObject({ providerPriority: 200, status: 'ACTIVE', algorithm: 'RS256', type: 'RSA' });
    expect(after.keys[0].providerId).toBe(id);
    expect(after.active.RS256).toBe(mine?.kid);
    expect(await tokenKid()).toBe(mine?.kid);
    const certs = (await request(ts.app).get(`/realms/${R}/protocol/openid-connect/certs`)).body.keys as Array<{ kid: string }>;
    expect(certs.map((k) => k.kid)).toContain(mine?.kid);
    // The component read shows only declared config: no key material.
    expect((await api.get(`${P}/components/${id}`)).body.config).toEqual({ priority: ['200'] });

    expect((await api.put(`${P}/components/${id}`, { config: { active: ['false'] } })).status).toBe(204);
    const passive = await keys();
    expect(passive.keys.find((k) => k.providerId === id)).toMatchObject({ status: 'PASSIVE', kid: mine?.kid });
    expect(passive.active.RS256).toBe(oldKid);
    expect(await tokenKid()).toBe(oldKid);

    expect((await api.put(`${P}/components/${id}`, { config: { enabled: ['false'] } })).status).toBe(204);
    expect((await keys()).keys.find((k) => k.providerId === id)?.status).toBe('DISABLED');

    expect((await api.delete(`${P}/components/${id}`)).status).toBe(204);
    expect((await keys()).keys.find((k) => k.providerId === id)).toBeUndefined();
    expect(await tokenKid()).toBe(oldKid);
  });

  test('changing keySize regenerates the pair; a priority change keeps it', async () => {
    const id = await createKeyProvider('rsa-generated', { priority: ['-5'], keySize: ['1024'] });
    const kidOf = async () => (await keys()).keys.find((k) => k.providerId === id)?.kid;
    const first = await kidOf();
    expect((await api.put(`${P}/components/${id}`, { config: { priority: ['-6'] } })).status).toBe(204);
    expect(await kidOf()).toBe(first);
    expect((await api.put(`${P}/components/${id}`, { config: { keySize: ['2048'] } })).status).toBe(204);
    const second = await kidOf();
    expect(second).not.toBe(first);
    const der = (await keys()).keys.find((k) => k.providerId === id)?.publicKey as string;
    expect(createPublicKey({ key: Buffer.from(der, 'base64'), format: 'der', type: 'spki' }).asymmetricKeyDetails?.modulusLength).toBe(
      2048,
    );
  });

  test('hmac-generated: algorithm and secret size; a new size regenerates secret and kid', async () => {
    const id = await createKeyProvider('hmac-generated', { priority: ['300'], algorithm: ['HS256'], secretSize: ['32'] });
    const key = (await keys()).keys.find((k) => k.providerId === id);
    expect(key).toMatchObject({ type: 'OCT', algorithm: 'HS256', use: 'SIG', status: 'ACTIVE' });
    const stored = await ts.db.models.Component.findByPk(id);
    expect(Buffer.from(stored?.config.secret[0] as string, 'base64url')).toHaveLength(32);
    expect((await api.get(`${P}/components/${id}`)).body.config).toEqual({ priority: ['300'], algorithm: ['HS256'], secretSize: ['32'] });
    expect((await api.put(`${P}/components/${id}`, { config: { secretSize: ['64'] } })).status).toBe(204);
    const again = (await keys()).keys.find((k) => k.providerId === id);
    expect(again?.kid).not.toBe(key?.kid);
    expect(Buffer.from((await ts.db.models.Component.findByPk(id))?.config.secret[0] as string, 'base64url')).toHaveLength(64);
  });

  test('imported rsa: PEM key accepted, certificate generated, privateKey masked on read; mismatched certificate rejected', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const id = await createKeyProvider('rsa', { priority: ['1'], privateKey: [pem] }, 'imported');
    const key = (await keys()).keys.find((k) => k.providerId === id);
    expect(key?.publicKey).toBe(publicKey.export({ type: 'spki', format: 'der' }).toString('base64'));
    expect(key?.certificate).toBeDefined();
    const read = (await api.get(`${P}/components/${id}`)).body.config;
    expect(read.privateKey).toEqual(['**********']);
    expect(read.certificate).toEqual([key?.certificate]);

    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const bad = await api.post(`${P}/components`, {
      name: 'mismatch',
      providerId: 'rsa',
      providerType: KP,
      config: { privateKey: [other], certificate: [key?.certificate] },
    });
    expect([bad.status, bad.body]).toEqual([400, { errorMessage: 'Certificate does not match private key' }]);
    const badCert = await api.post(`${P}/components`, {
      name: 'badcert',
      providerId: 'rsa',
      providerType: KP,
      config: { privateKey: [other], certificate: ['garbage'] },
    });
    expect([badCert.status, badCert.body]).toEqual([400, { errorMessage: 'Failed to decode certificate' }]);
  });

  test('ecdsa-generated and eddsa-generated keys; an ES256 realm default signs with the EC key', async () => {
    const ec = await createKeyProvider('ecdsa-generated', { priority: ['10'], ecdsaEllipticCurveKey: ['P-384'] });
    const ed = await createKeyProvider('eddsa-generated', { priority: ['10'] });
    const es256 = await createKeyProvider('ecdsa-generated', { priority: ['10'] }, 'es256');
    const body = await keys();
    expect(body.keys.find((k) => k.providerId === ec)).toMatchObject({ type: 'EC', algorithm: 'ES384', use: 'SIG' });
    expect(body.keys.find((k) => k.providerId === ed)).toMatchObject({ type: 'OKP', algorithm: 'EdDSA', use: 'SIG' });
    const es = body.keys.find((k) => k.providerId === es256);
    expect(body.active).toMatchObject({ ES384: expect.any(String), EdDSA: expect.any(String), ES256: es?.kid });
    expect((await api.get(`${P}/components/${ec}`)).body.config).toEqual({ priority: ['10'], ecdsaEllipticCurveKey: ['P-384'] });
    expect((await api.put(P, { defaultSignatureAlgorithm: 'ES256' })).status).toBe(204);
    expect(await tokenKid()).toBe(es?.kid);
    // The realm's JWKS publishes the EC and OKP public keys, so outsiders can verify such tokens.
    const jwks = (await request(ts.app).get(`/realms/${R}/protocol/openid-connect/certs`)).body;
    const ecJwk = jwks.keys.find((k: { kid: string }) => k.kid === es?.kid);
    expect(ecJwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', x: expect.any(String), y: expect.any(String) });
    expect(jwks.keys.find((k: { alg: string }) => k.alg === 'EdDSA')).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    expect(jwks.keys.some((k: { kty: string }) => k.kty === 'oct')).toBe(false);
    const verified = await jwtVerify(await signedToken(), createLocalJWKSet(jwks));
    expect(verified.protectedHeader).toMatchObject({ alg: 'ES256', kid: es?.kid });
    expect((await api.put(P, { defaultSignatureAlgorithm: 'RS256' })).status).toBe(204);
  });

  test('ecGenerateCertificate: ECDSA and ECDH keys get a self-signed certificate for the key, in the keys list and the JWKS', async () => {
    const ec = await createKeyProvider('ecdsa-generated', { priority: ['5'], ecGenerateCertificate: ['true'] }, 'ec-cert');
    const ecdh = await createKeyProvider('ecdh-generated', { priority: ['5'], ecGenerateCertificate: ['true'] }, 'ecdh-cert');
    const plain = await createKeyProvider('ecdsa-generated', { priority: ['5'] }, 'ec-no-cert');
    const body = await keys();
    for (const id of [ec, ecdh]) {
      const k = body.keys.find((x) => x.providerId === id);
      expect(k?.certificate).toEqual(expect.any(String));
      const x = new X509Certificate(Buffer.from(k?.certificate as string, 'base64'));
      // Keycloak's generateV1SelfSignedCertificate: CN = the realm's name, signed by the key itself.
      expect(x.subject).toBe(`CN=${R}`);
      expect(x.issuer).toBe(`CN=${R}`);
      expect(x.verify(x.publicKey)).toBe(true);
      expect(x.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')).toBe(k?.publicKey);
      expect(k?.validTo).toBe(new Date(x.validTo).getTime());
    }
    expect(body.keys.find((x) => x.providerId === plain)?.certificate).toBeUndefined();
    const jwks = (await request(ts.app).get(`/realms/${R}/protocol/openid-connect/certs`)).body;
    const kid = body.keys.find((x) => x.providerId === ec)?.kid;
    const jwk = jwks.keys.find((k: { kid: string }) => k.kid === kid);
    expect(jwk.x5c).toEqual([body.keys.find((x) => x.providerId === ec)?.certificate]);
    expect(jwk['x5t#S256']).toEqual(expect.any(String));
    // A new curve makes new keys, and a certificate for them.
    const before = body.keys.find((x) => x.providerId === ec)?.certificate;
    const rep = (await api.get(`${P}/components/${ec}`)).body;
    await api.put(`${P}/components/${ec}`, { ...rep, config: { ...rep.config, ecdsaEllipticCurveKey: ['P-384'] } });
    const after = (await keys()).keys.find((x) => x.providerId === ec);
    expect(after).toMatchObject({ algorithm: 'ES384', certificate: expect.any(String) });
    expect(after?.certificate).not.toBe(before);
    const x = new X509Certificate(Buffer.from(after?.certificate as string, 'base64'));
    expect(x.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')).toBe(after?.publicKey);
  });
});
