import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { type KcAdminClient, realmAdminClient } from '../helpers/admin-client';

/**
 * Compatibility: the real `@keycloak/keycloak-admin-client` drives the client certificate, client
 * initial access and registration policy endpoints.
 */

let ts: TestServer;
let kc: KcAdminClient;
let dir: string;
const R = 'compatcerts';
let id: string;

beforeAll(async () => {
  ts = await startTestServer();
  ({ kc } = await realmAdminClient(ts, R));
  id = await createClient(await ts.api(), R, { clientId: 'compat-client', protocol: 'openid-connect' });
  dir = mkdtempSync(join(tmpdir(), 'idserver-compat-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await ts.close();
});

const attr = 'jwt.credential';

describe('@keycloak/keycloak-admin-client: client certificates', () => {
  test('getKeyInfo, generateKey, downloadKey', async () => {
    expect(await kc.clients.getKeyInfo({ id, attr })).toEqual({});
    const generated = await kc.clients.generateKey({ id, attr });
    expect(generated).toEqual({ privateKey: expect.any(String), certificate: expect.any(String) });
    expect(await kc.clients.getKeyInfo({ id, attr })).toEqual(generated);
    const bytes = await kc.clients.downloadKey(
      { id, attr },
      { format: 'PKCS12', keyAlias: 'compat', keyPassword: 'pass1', storePassword: 'pass1' },
    );
    const p12 = join(dir, 'compat.p12');
    writeFileSync(p12, Buffer.from(bytes as ArrayBuffer));
    const pem = execFileSync('openssl', ['pkcs12', '-in', p12, '-passin', 'pass:pass1', '-nokeys'], { encoding: 'utf8' });
    const first = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)?.[0] as string;
    expect(new X509Certificate(first).raw.toString('base64')).toBe(generated.certificate);
    await expect(kc.clients.downloadKey({ id, attr }, { format: 'JKS', storePassword: 's' })).rejects.toThrow('password-missing');
  });

  test('generateAndDownloadKey stores only the certificate', async () => {
    const bytes = await kc.clients.generateAndDownloadKey(
      { id, attr: 'saml.signing' },
      { format: 'JKS', keyAlias: 'gad', keyPassword: 'keypass', storePassword: 'storepass', realmCertificate: false },
    );
    const jks = join(dir, 'compat.jks');
    writeFileSync(jks, Buffer.from(bytes as ArrayBuffer));
    const list = execFileSync('keytool', ['-list', '-keystore', jks, '-storepass', 'storepass', '-storetype', 'JKS'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(list).toMatch(/gad, .*PrivateKeyEntry/);
    const info = await kc.clients.getKeyInfo({ id, attr: 'saml.signing' });
    expect(Object.keys(info)).toEqual(['certificate']);
  });

  test('uploadKey and uploadCertificate with FormData', async () => {
    const key = join(dir, 'k.pem');
    const cert = join(dir, 'c.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-subj', '/CN=compat-upload', '-days', '5'],
      { stdio: 'ignore' },
    );
    const der = new X509Certificate(readFileSync(cert)).raw.toString('base64');
    const form = new FormData();
    form.append('keystoreFormat', 'Certificate PEM');
    form.append('file', new Blob([readFileSync(cert)]), 'c.pem');
    expect(await kc.clients.uploadCertificate({ id, attr: 'saml.encryption' }, form)).toEqual({ certificate: der });

    const p12 = join(dir, 'up.p12');
    execFileSync('openssl', ['pkcs12', '-export', '-in', cert, '-inkey', key, '-name', 'up', '-passout', 'pass:pw', '-out', p12]);
    const keystoreForm = new FormData();
    keystoreForm.append('keystoreFormat', 'PKCS12');
    keystoreForm.append('keyAlias', 'up');
    keystoreForm.append('keyPassword', 'pw');
    keystoreForm.append('storePassword', 'pw');
    keystoreForm.append('file', new Blob([readFileSync(p12)]), 'up.p12');
    const uploaded = await kc.clients.uploadKey({ id, attr: 'saml.encryption' }, keystoreForm);
    expect(uploaded).toEqual({ privateKey: expect.any(String), certificate: der });
    const empty = new FormData();
    empty.append('keystoreFormat', 'PKCS12');
    await expect(kc.clients.uploadKey({ id, attr: 'saml.encryption' }, empty)).rejects.toThrow('file cannot be empty');
  });
});

describe('@keycloak/keycloak-admin-client: client registration', () => {
  test('clients initial access: create, list, delete', async () => {
    const created = await kc.realms.createClientsInitialAccess({ realm: R }, { count: 3, expiration: 120 });
    expect(created).toMatchObject({ id: expect.any(String), token: expect.any(String), count: 3, remainingCount: 3, expiration: 120 });
    const list = await kc.realms.getClientsInitialAccess({ realm: R });
    expect(list).toEqual([{ id: created.id, timestamp: created.timestamp, expiration: 120, count: 3, remainingCount: 3 }]);
    await kc.realms.delClientsInitialAccess({ realm: R, id: created.id as string });
    expect(await kc.realms.getClientsInitialAccess({ realm: R })).toEqual([]);
  });

  test('client registration policy providers', async () => {
    const providers = await kc.realms.getClientRegistrationPolicyProviders({ realm: R });
    expect(providers.map((p) => p.id)).toEqual(
      expect.arrayContaining(['trusted-hosts', 'max-clients', 'allowed-protocol-mappers', 'allowed-client-templates']),
    );
    expect(providers.find((p) => p.id === 'max-clients')?.properties[0]).toMatchObject({ name: 'max-clients', defaultValue: '200' });
  });
});
