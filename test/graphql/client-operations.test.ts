import type request from 'supertest';
import { readKeystore } from '../../src/auth/keystores';
import { createClient, realmAdmin } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { type GqlResult, USER_ERRORS, gqlClient, type Json, ok, startWithRealm, userErrors } from './gql';

/**
 * GraphQL twins of the client sub-resources read or written one at a time: keystore download and
 * upload, secrets, installation files, the description converter and the node test. Each answers
 * what its REST endpoint answers, errors included.
 */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqlclientops';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
});
afterAll(() => ts.close());

const newClient = (clientId: string, extra: Json = {}) => createClient(api, R, { clientId, publicClient: false, ...extra });

/** The REST body as raw bytes (keystores). */
const binary = (t: request.Test) =>
  t.buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => cb(null, Buffer.concat(chunks)));
  });

/** A GraphQL error carries the REST status and body. */
function expectSameError(result: GqlResult, rest: request.Response): void {
  expect(result.errors).toHaveLength(1);
  expect(result.errors?.[0].extensions.http?.status).toBe(rest.status);
  expect(result.errors?.[0].extensions.keycloak).toEqual(rest.body);
}

/** A mutation's input error: the user error says what the REST body says, with the REST status's code. */
function expectSameUserError(result: GqlResult, mutation: string, rest: request.Response): void {
  const body = rest.body as Json;
  expect(userErrors(result, mutation)).toEqual([
    {
      field: null,
      code: rest.status === 409 ? 'CONFLICT' : 'BAD_REQUEST',
      message: body.errorMessage ?? body.error_description ?? body.error,
    },
  ]);
}

const pem = (label: string, b64: string) => `-----BEGIN ${label}-----\n${b64.match(/.{1,64}/g)?.join('\n')}\n-----END ${label}-----\n`;

const KEYSTORE = `query($r: String!, $c: ID!, $a: String!, $cfg: KeyStoreConfig!) {
  clientKeystore(realm: $r, clientUuid: $c, attr: $a, config: $cfg) { format mediaType content } }`;
const GENERATE = `mutation($r: String!, $c: ID!, $a: String!, $cfg: KeyStoreConfig!) {
  generateClientKeystore(realm: $r, clientUuid: $c, attr: $a, config: $cfg) { clientKeystore { format mediaType content } ${USER_ERRORS} } }`;
const upload = (op: 'uploadClientKey' | 'uploadClientCertificate') => `mutation($r: String!, $c: ID!, $a: String!, $f: String!,
  $file: String!, $alias: String, $kp: String, $sp: String) {
  ${op}(realm: $r, clientUuid: $c, attr: $a, keystoreFormat: $f, file: $file, keyAlias: $alias, keyPassword: $kp, storePassword: $sp) {
    clientCertificate { privateKey publicKey certificate kid } ${USER_ERRORS} } }`;

describe('client certificates: keystore download, generate-and-download, upload', () => {
  let id: string;
  let stored: { certificate: string; privateKey: string };

  beforeAll(async () => {
    id = await newClient('ks-client');
    stored = (await api.post(`${base}/clients/${id}/certificates/jwt.credential/generate`)).body;
  });

  test.each(['PKCS12', 'JKS'])('clientKeystore (%s) holds what POST .../download holds', async (format) => {
    const cfg = { format, keyAlias: 'k', keyPassword: 'keypw', storePassword: 'storepw' };
    const rest = await binary(api.post(`${base}/clients/${id}/certificates/jwt.credential/download`, cfg));
    expect(rest.status).toBe(200);
    const ks = ok(await gql(KEYSTORE, { r: R, c: id, a: 'jwt.credential', cfg })).clientKeystore as Json;
    expect(ks).toMatchObject({ format, mediaType: rest.headers['content-type'].split(';')[0] });
    const fromGql = readKeystore(format as 'JKS' | 'PKCS12', Buffer.from(ks.content, 'base64'), 'k', 'storepw', 'keypw');
    const fromRest = readKeystore(format as 'JKS' | 'PKCS12', rest.body as Buffer, 'k', 'storepw', 'keypw');
    expect(fromGql).toEqual(fromRest);
    expect(fromGql.privateKey?.toString('base64')).toBe(stored.privateKey);
    expect(fromGql.certificate?.toString('base64')).toBe(stored.certificate);
  });

  test('clientKeystore errors are the REST errors (missing key password, bad format, no keypair)', async () => {
    const fresh = await newClient('ks-none');
    for (const [client, cfg] of [
      [id, { format: 'JKS', storePassword: 'a' }],
      [id, { format: 'PEM', keyPassword: 'a', storePassword: 'b' }],
      [fresh, { format: 'JKS', keyPassword: 'a', storePassword: 'b' }],
    ] as const) {
      const rest = await api.post(`${base}/clients/${client}/certificates/jwt.credential/download`, cfg);
      expect(rest.status).toBeGreaterThanOrEqual(400);
      expectSameError(await gql(KEYSTORE, { r: R, c: client, a: 'jwt.credential', cfg }), rest);
    }
  });

  test('generateClientKeystore returns a new key pair and stores only its certificate, as generate-and-download', async () => {
    const [viaGql, viaRest] = [await newClient('gen-gql'), await newClient('gen-rest')];
    const cfg = { format: 'PKCS12', keyAlias: 'g', keyPassword: 'pw', storePassword: 'pw', keySize: 2048, validity: 1 };
    const ks = ok(await gql(GENERATE, { r: R, c: viaGql, a: 'saml.signing', cfg })).generateClientKeystore.clientKeystore as Json;
    expect(ks).toMatchObject({ format: 'PKCS12', mediaType: 'application/octet-stream' });
    const entry = readKeystore('PKCS12', Buffer.from(ks.content, 'base64'), 'g', 'pw', 'pw');
    expect(entry.privateKey).toBeDefined();
    const rest = await binary(api.post(`${base}/clients/${viaRest}/certificates/saml.signing/generate-and-download`, cfg));
    expect(rest.status).toBe(200);
    expect(readKeystore('PKCS12', rest.body as Buffer, 'g', 'pw', 'pw').privateKey).toBeDefined();
    const info = async (c: string) => (await api.get(`${base}/clients/${c}/certificates/saml.signing`)).body;
    expect(await info(viaGql)).toEqual({ certificate: entry.certificate?.toString('base64') });
    expect(Object.keys(await info(viaRest))).toEqual(['certificate']);
    const denied = await api.post(`${base}/clients/${viaRest}/certificates/saml.signing/generate-and-download`, { format: 'JKS' });
    expectSameUserError(
      await gql(GENERATE, { r: R, c: viaGql, a: 'saml.signing', cfg: { format: 'JKS' } }),
      'generateClientKeystore',
      denied,
    );
  });

  test('uploadClientCertificate and uploadClientKey answer and store what the REST uploads do', async () => {
    const restUpload = (client: string, action: string, fields: Record<string, string>, file: Buffer) => {
      let t = api.post(`${base}/clients/${client}/certificates/jwt.credential/${action}`);
      for (const [k, v] of Object.entries(fields)) t = t.field(k, v);
      return t.attach('file', file, 'upload.bin');
    };
    const info = async (c: string) => (await api.get(`${base}/clients/${c}/certificates/jwt.credential`)).body;
    // a PEM certificate, through upload-certificate
    const certPem = pem('CERTIFICATE', stored.certificate);
    const [a, b] = [await newClient('up-gql'), await newClient('up-rest')];
    const vars = { r: R, a: 'jwt.credential', f: 'Certificate PEM', file: Buffer.from(certPem).toString('base64') };
    const gqlCert = ok(await gql(upload('uploadClientCertificate'), { ...vars, c: a })).uploadClientCertificate.clientCertificate;
    const restCert = await restUpload(b, 'upload-certificate', { keystoreFormat: 'Certificate PEM' }, Buffer.from(certPem));
    expect(restCert.status).toBe(200);
    expect(gqlCert).toEqual({ privateKey: null, publicKey: null, kid: null, ...restCert.body });
    expect(await info(a)).toEqual(await info(b));
    // a PKCS12 keystore with the key, through upload
    const cfg = { format: 'PKCS12', keyAlias: 'k', keyPassword: 'pw', storePassword: 'pw' };
    const p12 = ok(await gql(KEYSTORE, { r: R, c: id, a: 'jwt.credential', cfg })).clientKeystore.content as string;
    const fields = { keystoreFormat: 'PKCS12', keyAlias: 'k', keyPassword: 'pw', storePassword: 'pw' };
    const keyVars = { ...vars, f: 'PKCS12', file: p12, alias: 'k', kp: 'pw', sp: 'pw' };
    const gqlKey = ok(await gql(upload('uploadClientKey'), { ...keyVars, c: a })).uploadClientKey.clientCertificate;
    const restKey = await restUpload(b, 'upload', fields, Buffer.from(p12, 'base64'));
    expect(gqlKey).toEqual({ publicKey: null, kid: null, ...restKey.body });
    expect(gqlKey).toMatchObject(stored);
    expect(await info(a)).toEqual(await info(b));
    // a wrong store password: the same 400
    const bad = await restUpload(b, 'upload', { ...fields, storePassword: 'nope' }, Buffer.from(p12, 'base64'));
    expect(bad.status).toBe(400);
    expectSameUserError(await gql(upload('uploadClientKey'), { ...keyVars, sp: 'nope', c: a }), 'uploadClientKey', bad);
  });

  test('FORBIDDEN: view-clients downloads but cannot upload or generate', async () => {
    await realmAdmin(ts, R, 'cert-viewer', ['view-clients']);
    const viewer = gqlClient(ts, { realm: R, username: 'cert-viewer', password: 'pw' });
    const cfg = { format: 'JKS', keyPassword: 'a', storePassword: 'b' };
    expect(ok(await viewer(KEYSTORE, { r: R, c: id, a: 'jwt.credential', cfg })).clientKeystore.format).toBe('JKS');
    for (const res of [
      await viewer(GENERATE, { r: R, c: id, a: 'jwt.credential', cfg }),
      await viewer(upload('uploadClientCertificate'), { r: R, c: id, a: 'x', f: 'Certificate PEM', file: 'eA==' }),
    ]) {
      expect(res.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', http: { status: 403 } });
    }
    expect((await api.get(`${base}/clients/${id}/certificates/jwt.credential`)).body).toEqual(stored);
  });
});

const SECRET = 'query($r: String!, $c: ID!) { clientSecret(realm: $r, clientUuid: $c) { type value } }';
const ROTATED = 'query($r: String!, $c: ID!) { clientRotatedSecret(realm: $r, clientUuid: $c) { type value } }';

describe('client secrets', () => {
  test('clientSecret equals GET /client-secret; public clients have value null', async () => {
    const id = await newClient('sec');
    expect(ok(await gql(SECRET, { r: R, c: id })).clientSecret).toEqual((await api.get(`${base}/clients/${id}/client-secret`)).body);
    const pub = await newClient('sec-pub', { publicClient: true });
    expect(ok(await gql(SECRET, { r: R, c: pub })).clientSecret).toEqual({ type: 'secret', value: null });
    expectSameError(await gql(SECRET, { r: R, c: 'nope' }), await api.get(`${base}/clients/nope/client-secret`));
  });

  test('clientRotatedSecret: NOT_FOUND without rotation, the old secret under a rotation policy', async () => {
    const plainClient = await newClient('rot-none');
    const none = await gql(ROTATED, { r: R, c: plainClient });
    expect(none.data?.clientRotatedSecret).toBeNull();
    expectSameError(none, await api.get(`${base}/clients/${plainClient}/client-secret/rotated`));
    const profiles = [{ name: 'rot', executors: [{ executor: 'secret-rotation', configuration: { 'rotated-expiration-period': 600 } }] }];
    await api.put(`${base}/client-policies/profiles`, { profiles }).expect(204);
    const policies = [{ name: 'rot-policy', enabled: true, conditions: [], profiles: ['rot'] }];
    await api.put(`${base}/client-policies/policies`, { policies }).expect(204);
    try {
      const id = await newClient('rot', { serviceAccountsEnabled: true });
      const old = (await api.get(`${base}/clients/${id}/client-secret`)).body.value;
      await api.post(`${base}/clients/${id}/client-secret`).expect(200);
      const rotated = ok(await gql(ROTATED, { r: R, c: id })).clientRotatedSecret;
      expect(rotated).toEqual({ type: 'secret', value: old });
      expect(rotated).toEqual((await api.get(`${base}/clients/${id}/client-secret/rotated`)).body);
    } finally {
      await api.put(`${base}/client-policies/policies`, { policies: [] }).expect(204);
      await api.put(`${base}/client-policies/profiles`, { profiles: [] }).expect(204);
    }
  });

  test('FORBIDDEN: a caller without view-clients reads no secret', async () => {
    const id = await newClient('sec-guarded');
    await realmAdmin(ts, R, 'sec-nobody', ['view-users']);
    const nobody = gqlClient(ts, { realm: R, username: 'sec-nobody', password: 'pw' });
    for (const q of [SECRET, ROTATED]) {
      expect((await nobody(q, { r: R, c: id })).errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', http: { status: 403 } });
    }
  });
});

const INSTALLATION = `query($r: String!, $c: ID!, $p: String!) {
  clientInstallation(realm: $r, clientUuid: $c, providerId: $p) { mediaType content json } }`;

describe('installation providers', () => {
  test('every provider: the REST body and media type; keycloak.json also parsed; unknown provider NOT_FOUND', async () => {
    const id = await newClient('inst');
    for (const p of [
      'keycloak-oidc-keycloak-json',
      'keycloak-oidc-jboss-subsystem',
      'keycloak-oidc-jboss-subsystem-cli',
      'keycloak-saml',
      'saml-sp-descriptor',
      'keycloak-saml-subsystem',
      'keycloak-saml-subsystem-cli',
    ]) {
      const rest = await api.get(`${base}/clients/${id}/installation/providers/${p}`);
      const file = ok(await gql(INSTALLATION, { r: R, c: id, p })).clientInstallation as Json;
      expect(file.content).toBe(rest.text);
      expect(file.mediaType).toBe(rest.headers['content-type'].split(';')[0]);
      expect(file.json).toEqual(p === 'keycloak-oidc-keycloak-json' ? JSON.parse(rest.text) : null);
    }
    const unknown = await gql(INSTALLATION, { r: R, c: id, p: 'nope' });
    expectSameError(unknown, await api.get(`${base}/clients/${id}/installation/providers/nope`));
  });
});

const CONVERT = 'query($r: String!, $d: String!) { convertClientDescription(realm: $r, description: $d) }';

describe('client description converter', () => {
  const rest = (body: string, type: string) => api.post(`${base}/client-description-converter`).set('Content-Type', type).send(body);

  test('OIDC JSON and SAML XML convert as POST /client-description-converter does; errors the same', async () => {
    const oidc = JSON.stringify({ client_id: 'dcr', client_name: 'DCR', redirect_uris: ['https://d.example.com/cb'] });
    const xml = `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.example.com/saml">
  <md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://sp.example.com/acs" index="1"/>
  </md:SPSSODescriptor>
</md:EntityDescriptor>`;
    for (const [text, type] of [
      [oidc, 'application/json'],
      [xml, 'application/xml'],
    ]) {
      const viaRest = await rest(text, type);
      expect(viaRest.status).toBe(200);
      expect(ok(await gql(CONVERT, { r: R, d: text })).convertClientDescription).toEqual(viaRest.body);
    }
    expect((await api.get(`${base}/clients?clientId=dcr`)).body).toEqual([]);
    expectSameError(await gql(CONVERT, { r: R, d: 'hello' }), await rest('hello', 'text/plain'));
  });

  test('FORBIDDEN without manage-clients', async () => {
    await realmAdmin(ts, R, 'conv-viewer', ['view-clients']);
    const viewer = gqlClient(ts, { realm: R, username: 'conv-viewer', password: 'pw' });
    const res = await viewer(CONVERT, { r: R, d: JSON.stringify({ clientId: 'x' }) });
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', http: { status: 403 } });
  });
});

describe('cluster node test', () => {
  test('testClientNodesAvailable: the REST result (no admin URL: nothing pinged); FORBIDDEN for view-clients', async () => {
    const id = await newClient('nodes-test');
    await api.post(`${base}/clients/${id}/nodes`, { node: '127.0.0.1' }).expect(204);
    const m =
      'mutation($r: String!, $c: ID!) { testClientNodesAvailable(realm: $r, clientUuid: $c) { globalRequestResult { successRequests failedRequests } } }';
    expect(ok(await gql(m, { r: R, c: id })).testClientNodesAvailable.globalRequestResult).toEqual({
      successRequests: [],
      failedRequests: [],
    });
    expect((await api.get(`${base}/clients/${id}/test-nodes-available`)).body).toEqual({});
    await realmAdmin(ts, R, 'nodes-viewer', ['view-clients']);
    const viewer = gqlClient(ts, { realm: R, username: 'nodes-viewer', password: 'pw' });
    expect((await viewer(m, { r: R, c: id })).errors?.[0].extensions.code).toBe('FORBIDDEN');
  });
});
