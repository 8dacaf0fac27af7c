import { execFileSync } from 'node:child_process';
import { X509Certificate, createHash, createPrivateKey, createPublicKey, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type request from 'supertest';
import type { AdminApi, TestServer } from '../../helpers/server';
import { adminEvents, clientUuid, expectStatus, realmAdmin, realmServer } from '../../helpers/fixtures';

/**
 * `/clients/{id}/certificates/{attr}`: key info, generate, upload (PEM, public key, JWKS, PKCS12,
 * JKS), keystore download and generate-and-download — keystores read back with openssl and keytool.
 */
let ts: TestServer;
let api: AdminApi;
let dir: string;
const R = 'certrealm';
const base = `/admin/realms/${R}`;
let realmId: string;

beforeAll(async () => {
  ({ ts, api, realmId } = await realmServer(R, { adminEventsEnabled: true, adminEventsDetailsEnabled: true }));
  dir = mkdtempSync(join(tmpdir(), 'idserver-certs-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await ts.close();
});

async function newClient(clientId: string, protocol = 'openid-connect', attributes: Record<string, string> = {}): Promise<string> {
  const id = randomUUID();
  await ts.db.models.Client.create({ id, realmId, clientId, protocol, settings: { attributes } });
  return id;
}

const attrsOf = async (id: string) => ((await ts.db.models.Client.findByPk(id))?.settings.attributes ?? {}) as Record<string, string>;

/** Runs a command, returning stdout (stderr merged for keytool, which prints warnings). */
const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const file = (name: string, data: Buffer | string) => {
  const p = join(dir, name);
  writeFileSync(p, data);
  return p;
};
const sha256Fingerprint = (der: Buffer) => createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g)?.join(':') as string;
const pem = (label: string, der: Buffer) =>
  `-----BEGIN ${label}-----\n${der
    .toString('base64')
    .match(/.{1,64}/g)
    ?.join('\n')}\n-----END ${label}-----\n`;

const binary = (t: request.Test) =>
  t.buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => cb(null, Buffer.concat(chunks)));
  });

/** Certificate DER and PKCS#8 DER read from a PKCS#12 file with openssl. */
function opensslPkcs12(path: string, password: string): { certificate: Buffer; privateKey?: Buffer; text: string } {
  const certs = run('openssl', ['pkcs12', '-in', path, '-passin', `pass:${password}`, '-nokeys']);
  const first = certs.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)?.[0] as string;
  const certificate = new X509Certificate(first).raw;
  const keys = run('openssl', ['pkcs12', '-in', path, '-passin', `pass:${password}`, '-nocerts', '-nodes']);
  const keyPem = keys.match(/-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/)?.[0];
  const privateKey = keyPem ? createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'der' }) : undefined;
  return { certificate, privateKey, text: certs };
}

describe('GET and POST generate', () => {
  test('an unconfigured attribute is {}; generate stores a 4096-bit key and a self-signed v1 certificate for 3 years', async () => {
    const id = await newClient('gen-client');
    const empty = await api.get(`${base}/clients/${id}/certificates/jwt.credential`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({});

    await ts.db.models.Client.update(
      { settings: { attributes: { 'jwt.credential.public.key': 'old', 'jwt.credential.kid': 'old-kid', other: 'kept' } } },
      { where: { id } },
    );
    const res = await api.post(`${base}/clients/${id}/certificates/jwt.credential/generate`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['certificate', 'privateKey']);
    const cert = new X509Certificate(Buffer.from(res.body.certificate, 'base64'));
    expect(cert.subject).toBe('CN=gen-client');
    expect(cert.issuer).toBe('CN=gen-client');
    expect(cert.publicKey.asymmetricKeyDetails?.modulusLength).toBe(4096);
    const years = (new Date(cert.validTo).getTime() - new Date(cert.validFrom).getTime()) / (365.25 * 24 * 3600 * 1000);
    expect(Math.round(years)).toBe(3);
    expect(run('openssl', ['x509', '-inform', 'der', '-in', file('gen.der', cert.raw), '-noout', '-text'])).toMatch(/Version: 1 \(0x0\)/);
    const key = createPrivateKey({ key: Buffer.from(res.body.privateKey, 'base64'), format: 'der', type: 'pkcs8' });
    expect(cert.checkPrivateKey(key)).toBe(true);

    const again = await api.get(`${base}/clients/${id}/certificates/jwt.credential`);
    expect(again.body).toEqual(res.body);
    expect(await attrsOf(id)).toEqual({
      'jwt.credential.certificate': res.body.certificate,
      'jwt.credential.private.key': res.body.privateKey,
      other: 'kept',
    });
    // another prefix is independent
    expect((await api.get(`${base}/clients/${id}/certificates/saml.signing`)).body).toEqual({});
  });

  test('the admin event names the path and never carries the private key', async () => {
    const id = await newClient('event-client', 'saml');
    await api.post(`${base}/clients/${id}/certificates/saml.signing/generate`).expect(200);
    const events = await adminEvents(api, R, { resourcePath: `clients/${id}/certificates/saml.signing/generate` });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ operationType: 'ACTION', resourceType: 'CLIENT' });
    const rep = JSON.parse(events[0].representation as string);
    expect(rep.certificate).toEqual(expect.any(String));
    expect(rep).not.toHaveProperty('privateKey');
  });

  test('unknown client → 404; the <realm>-realm admin client in master cannot be configured', async () => {
    const res = await api.get(`${base}/clients/${randomUUID()}/certificates/jwt.credential`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Could not find client' });
    const gen = await api.post(`${base}/clients/${randomUUID()}/certificates/jwt.credential/generate`);
    expect(gen.status).toBe(404);
    expect(gen.body).toEqual({ error: 'Could not find client' });
    const adminClient = await clientUuid(api, 'master', `${R}-realm`);
    const forbidden = await api.post(`/admin/realms/master/clients/${adminClient}/certificates/jwt.credential/generate`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ error: 'HTTP 403 Forbidden' });
  });

  test('an OIDC client using a JWKS string shows its signing key', async () => {
    const { publicKey } = await import('node:crypto').then((c) => c.generateKeyPairSync('rsa', { modulusLength: 2048 }));
    const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig' };
    const id = await newClient('jwks-client', 'openid-connect', {
      'use.jwks.string': 'true',
      'jwks.string': JSON.stringify({ keys: [{ ...jwk, kid: 'enc', use: 'enc' }, jwk] }),
    });
    const res = await api.get(`${base}/clients/${id}/certificates/jwt.credential`);
    expect(res.body).toEqual({ kid: 'k1', publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64') });
  });
});

describe('POST download', () => {
  let id: string;
  let stored: { certificate: string; privateKey: string };
  let realmCert: Buffer;

  beforeAll(async () => {
    id = await newClient('dl-client');
    stored = expectStatus(await api.post(`${base}/clients/${id}/certificates/jwt.credential/generate`), 200, 'generate').body;
    const keys = expectStatus(await api.get(`${base}/keys`), 200, 'realm keys').body;
    realmCert = Buffer.from(keys.keys.find((k: { algorithm: string }) => k.algorithm === 'RS256').certificate, 'base64');
  });

  const download = (body: unknown, path = 'download', attr = 'jwt.credential', client = id) =>
    binary(
      api
        .post(`${base}/clients/${client}/certificates/${attr}/${path}`)
        .set('Accept', 'application/octet-stream')
        .send(body as object),
    );

  test('PKCS12: the stored key and certificate, and the realm certificate as a trusted entry', async () => {
    const res = await download({ format: 'PKCS12', keyAlias: 'mykey', keyPassword: 'secret1', storePassword: 'secret1' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/octet-stream/);
    const p12 = file('dl.p12', res.body);
    const read = opensslPkcs12(p12, 'secret1');
    expect(read.certificate.toString('base64')).toBe(stored.certificate);
    expect(read.privateKey?.toString('base64')).toBe(stored.privateKey);
    expect(read.text).toContain('friendlyName: mykey');
    expect(read.text).toContain(`friendlyName: ${R}`);
    const list = run('keytool', ['-list', '-v', '-keystore', p12, '-storepass', 'secret1', '-storetype', 'PKCS12']);
    expect(list).toContain('Your keystore contains 2 entries');
    expect(list).toMatch(/Alias name: mykey\s+Creation date: .*\s+Entry type: PrivateKeyEntry/);
    expect(list).toMatch(new RegExp(`Alias name: ${R}\\s+Creation date: .*\\s+Entry type: trustedCertEntry`));
    expect(list).toContain(sha256Fingerprint(Buffer.from(stored.certificate, 'base64')));
    expect(list).toContain(sha256Fingerprint(realmCert));
  });

  test('JKS: keytool lists both entries, and the key is recoverable with the key password', async () => {
    const res = await download({
      format: 'jks',
      keyAlias: 'MyKey',
      keyPassword: 'keypass',
      storePassword: 'storepass',
      realmAlias: 'the-realm',
    });
    expect(res.status).toBe(200);
    const jks = file('dl.jks', res.body);
    const list = run('keytool', ['-list', '-v', '-keystore', jks, '-storepass', 'storepass', '-storetype', 'JKS']);
    expect(list).toContain('Keystore type: JKS');
    expect(list).toContain('Your keystore contains 2 entries');
    expect(list).toMatch(/Alias name: mykey\s+Creation date: .*\s+Entry type: PrivateKeyEntry/);
    expect(list).toMatch(/Alias name: the-realm\s+Creation date: .*\s+Entry type: trustedCertEntry/);
    expect(list).toContain('Owner: CN=dl-client');
    expect(list).toContain(sha256Fingerprint(Buffer.from(stored.certificate, 'base64')));
    // a wrong store password fails the integrity check
    expect(() => run('keytool', ['-list', '-keystore', jks, '-storepass', 'wrongpass', '-storetype', 'JKS'])).toThrow();
    // keytool recovers the private key with the key password; openssl reads it back
    const out = join(dir, 'from-jks.p12');
    run('keytool', [
      '-importkeystore',
      '-srckeystore',
      jks,
      '-srcstoretype',
      'JKS',
      '-srcstorepass',
      'storepass',
      '-srcalias',
      'mykey',
      '-srckeypass',
      'keypass',
      '-destkeystore',
      out,
      '-deststoretype',
      'PKCS12',
      '-deststorepass',
      'destpass',
      '-destkeypass',
      'destpass',
    ]);
    const read = opensslPkcs12(out, 'destpass');
    expect(read.privateKey?.toString('base64')).toBe(stored.privateKey);
    expect(read.certificate.toString('base64')).toBe(stored.certificate);
  });

  test('realmCertificate false → only the client entry; default alias is the clientId', async () => {
    const res = await download({ format: 'JKS', keyPassword: 'keypass', storePassword: 'storepass', realmCertificate: false });
    const list = run('keytool', ['-list', '-keystore', file('one.jks', res.body), '-storepass', 'storepass', '-storetype', 'JKS']);
    expect(list).toContain('Your keystore contains 1 entry');
    expect(list).toMatch(/dl-client, .*PrivateKeyEntry/);
  });

  test('only a certificate stored → a trusted certificate entry, no key password needed', async () => {
    const certOnly = await newClient('cert-only', 'saml', { 'saml.signing.certificate': stored.certificate });
    const res = await download(
      { format: 'PKCS12', storePassword: 'storepass', realmCertificate: false },
      'download',
      'saml.signing',
      certOnly,
    );
    expect(res.status).toBe(200);
    const list = run('keytool', ['-list', '-keystore', file('cert-only.p12', res.body), '-storepass', 'storepass', '-storetype', 'PKCS12']);
    expect(list).toMatch(/cert-only, .*trustedCertEntry/);
  });

  test('errors: nothing stored 404, missing passwords 400, unknown format 406, unknown client 404', async () => {
    const fresh = await newClient('dl-empty');
    const none = await download({ format: 'JKS', keyPassword: 'a', storePassword: 'b' }, 'download', 'jwt.credential', fresh);
    expect(none.status).toBe(404);
    expect(JSON.parse(none.body.toString())).toEqual({ error: 'keypair not generated for client' });
    const noKeyPw = await download({ format: 'JKS', storePassword: 'b' });
    expect(noKeyPw.status).toBe(400);
    expect(JSON.parse(noKeyPw.body.toString())).toEqual({
      error: 'password-missing',
      error_description: 'Need to specify a key password for jks download',
    });
    const noStorePw = await download({ format: 'JKS', keyPassword: 'a' });
    expect(noStorePw.status).toBe(400);
    expect(JSON.parse(noStorePw.body.toString())).toEqual({
      error: 'password-missing',
      error_description: 'Need to specify a store password for jks download',
    });
    const badFormat = await download({ format: 'PEM', keyPassword: 'a', storePassword: 'b' });
    expect(badFormat.status).toBe(406);
    expect(JSON.parse(badFormat.body.toString())).toEqual({
      error: 'Not supported keystore format. Supported keystore formats: [JKS, PKCS12]',
    });
    const unknown = await download({ format: 'JKS', keyPassword: 'a', storePassword: 'b' }, 'download', 'jwt.credential', randomUUID());
    expect(unknown.status).toBe(404);
    const badJson = await api
      .post(`${base}/clients/${id}/certificates/jwt.credential/download`)
      .set('Content-Type', 'application/json')
      .send('{"format":');
    expect(badJson.status).toBe(400);
  });
});

describe('POST generate-and-download', () => {
  const gad = (id: string, body: unknown) =>
    binary(
      api
        .post(`${base}/clients/${id}/certificates/saml.signing/generate-and-download`)
        .set('Accept', 'application/octet-stream')
        .send(body as object),
    );

  test('returns the key in a keystore and stores only the certificate', async () => {
    const id = await newClient('gad-client', 'saml', { 'saml.signing.private.key': 'old-key', 'saml.signing.certificate': 'old-cert' });
    const res = await gad(id, {
      format: 'PKCS12',
      keyAlias: 'k',
      keyPassword: 'pw1234',
      storePassword: 'pw1234',
      keySize: 2048,
      validity: 1,
    });
    expect(res.status).toBe(200);
    const read = opensslPkcs12(file('gad.p12', res.body), 'pw1234');
    expect(read.privateKey).toBeDefined();
    const cert = new X509Certificate(read.certificate);
    expect(cert.subject).toBe('CN=gad-client');
    expect(cert.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(cert.checkPrivateKey(createPrivateKey({ key: read.privateKey as Buffer, format: 'der', type: 'pkcs8' }))).toBe(true);
    const attrs = await attrsOf(id);
    expect(attrs).toEqual({ 'saml.signing.certificate': read.certificate.toString('base64') });
    expect((await api.get(`${base}/clients/${id}/certificates/saml.signing`)).body).toEqual({
      certificate: read.certificate.toString('base64'),
    });
    // the stored certificate downloads as a trusted entry: the private key is gone
    const again = await binary(
      api
        .post(`${base}/clients/${id}/certificates/saml.signing/download`)
        .send({ format: 'PKCS12', storePassword: 'x', realmCertificate: false }),
    );
    expect(again.status).toBe(200);
    expect(opensslPkcs12(file('gad-again.p12', again.body), 'x').privateKey).toBeUndefined();
  });

  test('missing passwords and bad formats → 400/406, nothing stored', async () => {
    const id = await newClient('gad-bad', 'saml');
    const noKey = await gad(id, { format: 'JKS', storePassword: 's' });
    expect(noKey.status).toBe(400);
    expect(JSON.parse(noKey.body.toString())).toEqual({
      error: 'password-missing',
      error_description: 'Need to specify a key password for jks generation and download',
    });
    const noStore = await gad(id, { format: 'JKS', keyPassword: 'k' });
    expect(JSON.parse(noStore.body.toString())).toEqual({
      error: 'password-missing',
      error_description: 'Need to specify a store password for jks generation and download',
    });
    const badFormat = await gad(id, { format: 'BKS', keyPassword: 'k', storePassword: 's' });
    expect(badFormat.status).toBe(406);
    const huge = await gad(id, { format: 'JKS', keyPassword: 'k', storePassword: 's', keySize: 100000, validity: 1 });
    expect(huge.status).toBe(400);
    const unknownField = await gad(id, { format: 'JKS', keyPassword: 'k', storePassword: 's', nope: 1 });
    expect(unknownField.status).toBe(400);
    expect(await attrsOf(id)).toEqual({});
  });
});

describe('POST upload and upload-certificate', () => {
  let keyPem: string;
  let certPem: string;
  let certDer: Buffer;
  let keyDer: Buffer;

  beforeAll(() => {
    const k = join(dir, 'up-key.pem');
    const c = join(dir, 'up-cert.pem');
    run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', k, '-out', c, '-subj', '/CN=uploaded', '-days', '30']);
    keyPem = readFileSync(k, 'utf8');
    certPem = readFileSync(c, 'utf8');
    certDer = new X509Certificate(certPem).raw;
    keyDer = createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'der' });
    // a PKCS12 of that key and certificate (alias `upload`, password `storepw`), uploaded or refused below
    run('openssl', [
      'pkcs12',
      '-export',
      '-in',
      file('c.pem', certPem),
      '-inkey',
      file('k.pem', keyPem),
      '-name',
      'upload',
      '-passout',
      'pass:storepw',
      '-out',
      join(dir, 'up.p12'),
    ]);
  });

  const upload = (id: string, fields: Record<string, string>, data?: Buffer | string, action = 'upload', attr = 'jwt.credential') => {
    const t = api.post(`${base}/clients/${id}/certificates/${attr}/${action}`);
    for (const [k, v] of Object.entries(fields)) t.field(k, v);
    if (data !== undefined) t.attach('file', Buffer.from(data), 'upload.bin');
    return t;
  };

  test('Certificate PEM replaces the stored key material', async () => {
    const id = await newClient('up-pem', 'openid-connect', {
      'jwt.credential.private.key': 'old',
      'jwt.credential.kid': 'k',
      'use.jwks.string': 'true',
      'jwks.string': '{}',
    });
    const res = await upload(id, { keystoreFormat: 'Certificate PEM' }, certPem);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ certificate: certDer.toString('base64') });
    expect(await attrsOf(id)).toEqual({ 'jwt.credential.certificate': certDer.toString('base64') });
    const again = await upload(id, { keystoreFormat: 'Certificate PEM' }, certPem, 'upload-certificate');
    expect(again.body).toEqual({ certificate: certDer.toString('base64') });
  });

  test('PKCS12 with a private key (openssl, AES) stores key and certificate', async () => {
    const p12 = join(dir, 'up.p12');
    const id = await newClient('up-p12');
    const res = await upload(
      id,
      { keystoreFormat: 'PKCS12', keyAlias: 'upload', keyPassword: 'storepw', storePassword: 'storepw' },
      readFileSync(p12),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ privateKey: keyDer.toString('base64'), certificate: certDer.toString('base64') });
    expect(await attrsOf(id)).toEqual({
      'jwt.credential.certificate': certDer.toString('base64'),
      'jwt.credential.private.key': keyDer.toString('base64'),
    });
    expect((await api.get(`${base}/clients/${id}/certificates/jwt.credential`)).body).toEqual(res.body);
  });

  test('JKS made by keytool, with separate key and store passwords', async () => {
    const jks = join(dir, 'kt.jks');
    run('keytool', [
      '-genkeypair',
      '-alias',
      'ktkey',
      '-keyalg',
      'RSA',
      '-keysize',
      '2048',
      '-dname',
      'CN=kt',
      '-validity',
      '10',
      '-keystore',
      jks,
      '-storetype',
      'JKS',
      '-storepass',
      'storepw',
      '-keypass',
      'keypw12',
    ]);
    const id = await newClient('up-jks', 'saml');
    const res = await upload(
      id,
      { keystoreFormat: 'JKS', keyAlias: 'KTKEY', keyPassword: 'keypw12', storePassword: 'storepw' },
      readFileSync(jks),
      'upload',
      'saml.signing',
    );
    expect(res.status).toBe(200);
    const cert = new X509Certificate(Buffer.from(res.body.certificate, 'base64'));
    expect(cert.subject).toBe('CN=kt');
    expect(cert.checkPrivateKey(createPrivateKey({ key: Buffer.from(res.body.privateKey, 'base64'), format: 'der', type: 'pkcs8' }))).toBe(
      true,
    );
    // a wrong key password: the certificate is still taken, the key left out
    const certOnly = await upload(
      id,
      { keystoreFormat: 'JKS', keyAlias: 'ktkey', keyPassword: 'wrong', storePassword: 'storepw' },
      readFileSync(jks),
      'upload',
      'saml.signing',
    );
    expect(certOnly.status).toBe(200);
    expect(certOnly.body).toEqual({ certificate: res.body.certificate });
  });

  test('Public Key PEM and JSON Web Key Set', async () => {
    const spki = createPublicKey(keyPem).export({ type: 'spki', format: 'der' });
    const samlId = await newClient('up-pub', 'saml');
    const pub = await upload(samlId, { keystoreFormat: 'Public Key PEM' }, pem('PUBLIC KEY', spki), 'upload', 'saml.encryption');
    expect(pub.status).toBe(200);
    expect(pub.body).toEqual({ publicKey: spki.toString('base64') });
    expect(await attrsOf(samlId)).toEqual({ 'saml.encryption.public.key': spki.toString('base64') });

    const jwks = JSON.stringify({
      keys: [{ ...createPublicKey(keyPem).export({ format: 'jwk' }), kid: 'my-kid', use: 'sig', alg: 'RS256' }],
    });
    const samlJwks = await upload(samlId, { keystoreFormat: 'JSON Web Key Set' }, jwks, 'upload', 'saml.signing');
    expect(samlJwks.body).toEqual({ publicKey: spki.toString('base64'), kid: 'my-kid' });
    expect(await attrsOf(samlId)).toMatchObject({ 'saml.signing.public.key': spki.toString('base64'), 'saml.signing.kid': 'my-kid' });

    const oidcId = await newClient('up-jwks', 'openid-connect', { 'jwt.credential.certificate': certDer.toString('base64') });
    const res = await upload(oidcId, { keystoreFormat: 'JSON Web Key Set' }, jwks);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ publicKey: spki.toString('base64'), kid: 'my-kid' });
    expect(await attrsOf(oidcId)).toEqual({ 'use.jwks.string': 'true', 'jwks.string': jwks });
    expect((await api.get(`${base}/clients/${oidcId}/certificates/jwt.credential`)).body).toEqual({
      publicKey: spki.toString('base64'),
      kid: 'my-kid',
    });
  });

  test('bad input → Keycloak 4xx bodies, stored data unchanged', async () => {
    const attrs = { 'jwt.credential.certificate': certDer.toString('base64'), 'jwt.credential.private.key': keyDer.toString('base64') };
    const id = await newClient('up-bad', 'openid-connect', attrs);
    const p12 = readFileSync(join(dir, 'up.p12'));
    const cases: Array<[Record<string, string>, Buffer | string | undefined, number, object]> = [
      [{}, certPem, 400, { error: 'keystoreFormat cannot be null' }],
      [{ keystoreFormat: 'Certificate PEM' }, undefined, 400, { error: 'file cannot be empty' }],
      [{ keystoreFormat: 'Certificate PEM' }, '', 400, { error: 'file cannot be empty' }],
      [
        { keystoreFormat: 'PKCS12', keyAlias: 'upload', keyPassword: 'x', storePassword: 'wrong' },
        p12,
        400,
        { error: 'error loading keystore' },
      ],
      [{ keystoreFormat: 'JKS', keyAlias: 'upload', storePassword: 'storepw' }, p12, 400, { error: 'error loading keystore' }],
      [{ keystoreFormat: 'Weird', storePassword: 'storepw' }, p12, 400, { error: 'error loading keystore' }],
      [
        { keystoreFormat: 'PKCS12', keyAlias: 'other', keyPassword: 'storepw', storePassword: 'storepw' },
        p12,
        400,
        { error: 'certificate-not-found', error_description: 'Certificate or key with given alias not found in the keystore' },
      ],
      [{ keystoreFormat: 'Certificate PEM' }, 'not a certificate', 400, { error: 'Could not parse the certificate' }],
      [{ keystoreFormat: 'Public Key PEM' }, 'garbage', 400, { error: 'Could not parse the public key' }],
      [{ keystoreFormat: 'JSON Web Key Set' }, '{"keys": [', 400, { error: 'Could not parse the JSON Web Key Set' }],
      [
        { keystoreFormat: 'JSON Web Key Set' },
        '{"keys": []}',
        400,
        { error: 'certificate-not-found', error_description: 'Certificate or key with given alias not found in the keystore' },
      ],
    ];
    for (const [fields, data, status, body] of cases) {
      const res = await upload(id, fields, data);
      expect({ fields, status: res.status, body: res.body }).toEqual({ fields, status, body });
    }
    const notMultipart = await api
      .post(`${base}/clients/${id}/certificates/jwt.credential/upload`)
      .send({ keystoreFormat: 'Certificate PEM' });
    expect(notMultipart.status).toBe(415);
    expect(await attrsOf(id)).toEqual(attrs);
  });
});

describe('permissions', () => {
  test('view-clients may read and download; writes need manage-clients; no client role → 403', async () => {
    const id = await newClient('perm-client');
    await api.post(`${base}/clients/${id}/certificates/jwt.credential/generate`).expect(200);
    const viewer = await realmAdmin(ts, R, 'cert-viewer', ['view-clients']);
    expect((await viewer.get(`${base}/clients/${id}/certificates/jwt.credential`)).status).toBe(200);
    const dl = await viewer.post(`${base}/clients/${id}/certificates/jwt.credential/download`, {
      format: 'JKS',
      keyPassword: 'k',
      storePassword: 's',
    });
    expect(dl.status).toBe(200);
    for (const path of ['generate', 'generate-and-download']) {
      const res = await viewer.post(`${base}/clients/${id}/certificates/jwt.credential/${path}`, {
        format: 'JKS',
        keyPassword: 'k',
        storePassword: 's',
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'HTTP 403 Forbidden' });
    }
    const up = await viewer
      .post(`${base}/clients/${id}/certificates/jwt.credential/upload`)
      .field('keystoreFormat', 'Certificate PEM')
      .attach('file', Buffer.from('x'), 'x.pem');
    expect(up.status).toBe(403);

    const nobody = await realmAdmin(ts, R, 'cert-nobody', ['view-events']);
    expect((await nobody.get(`${base}/clients/${id}/certificates/jwt.credential`)).status).toBe(403);
    expect((await nobody.get(`${base}/clients/${randomUUID()}/certificates/jwt.credential`)).status).toBe(403);
    expect((await viewer.get(`${base}/clients/${randomUUID()}/certificates/jwt.credential`)).status).toBe(404);
  });
});
