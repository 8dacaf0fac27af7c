import request from 'supertest';
import { createClient } from '../helpers/fixtures';
import { clientCertificate, payloadOf } from '../helpers/dpop';
import { startTestServer, type TestServer } from '../helpers/server';
import { basic, type RpFixture, rpFixture } from './rp-fixture';

/**
 * Certificate-bound tokens (RFC 8705, ADR 0038) with the client certificate forwarded by a reverse
 * proxy (`--spi-x509cert-lookup-provider=nginx`, header `ssl-client-cert`): a client with
 * `tls.client.certificate.bound.access.tokens` gets tokens with `cnf.x5t#S256`, refreshes and
 * userinfo need the same certificate, and `client-x509` authenticates by the certificate's subject.
 */
let ts: TestServer;
let rp: RpFixture;
const R = 'mtls';
const TOKEN = `/realms/${R}/protocol/openid-connect/token`;
const USERINFO = `/realms/${R}/protocol/openid-connect/userinfo`;
const cert = clientCertificate('hok-client');
const other = clientCertificate('someone-else');
const nginx = (c: { pem: string }) => encodeURIComponent(c.pem);

beforeAll(async () => {
  ts = await startTestServer({ x509: { provider: 'nginx', header: 'ssl-client-cert' } });
  rp = await rpFixture(ts, R);
  await createClient(rp.admin, R, {
    clientId: 'hok',
    secret: 'hok-secret',
    directAccessGrantsEnabled: true,
    attributes: { 'tls.client.certificate.bound.access.tokens': 'true' },
  });
  await createClient(rp.admin, R, {
    clientId: 'x509',
    clientAuthenticatorType: 'client-x509',
    serviceAccountsEnabled: true,
    attributes: { 'x509.subjectdn': 'CN=hok-client, O=idserver-test', 'x509.allow.regex.pattern.comparison': 'false' },
  });
  await createClient(rp.admin, R, {
    clientId: 'x509-regex',
    clientAuthenticatorType: 'client-x509',
    serviceAccountsEnabled: true,
    attributes: { 'x509.subjectdn': '(.*?)CN=hok-client(.*?)' },
  });
});
afterAll(() => ts.close());

function login(certHeader?: string) {
  const req = request(ts.app).post(TOKEN).type('form');
  if (certHeader !== undefined) req.set('ssl-client-cert', certHeader);
  return req.send({
    grant_type: 'password',
    client_id: 'hok',
    client_secret: 'hok-secret',
    username: 'alice',
    password: 'alice-pw',
    scope: 'openid',
  });
}

test('the tokens of a certificate-binding client carry the certificate’s thumbprint', async () => {
  const res = await login(nginx(cert));
  expect(res.status).toBe(200);
  expect(res.body.token_type).toBe('Bearer');
  expect(payloadOf(res.body.access_token).cnf).toEqual({ 'x5t#S256': cert.x5t });
  expect(payloadOf(res.body.refresh_token).cnf).toEqual({ 'x5t#S256': cert.x5t });
  const introspected = await request(ts.app)
    .post(`${TOKEN}/introspect`)
    .type('form')
    .set('Authorization', basic('web', 'web-secret'))
    .send({ token: res.body.access_token });
  expect(introspected.body).toMatchObject({ active: true, cnf: { 'x5t#S256': cert.x5t } });
});

test('without a certificate (or with a header that holds none) the client gets no token', async () => {
  for (const header of [undefined, 'garbage', '(null)']) {
    const res = await login(header);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'Client Certification missing for MTLS HoK Token Binding' });
  }
});

test('a refresh needs the certificate the refresh token is bound to', async () => {
  const { refresh_token } = (await login(nginx(cert))).body;
  const refresh = (header?: string) => {
    const req = request(ts.app).post(TOKEN).type('form');
    if (header) req.set('ssl-client-cert', header);
    return req.send({ grant_type: 'refresh_token', client_id: 'hok', client_secret: 'hok-secret', refresh_token });
  };
  const mismatch = {
    error: 'unauthorized_client',
    error_description: 'Client certificate missing, or its thumbprint and one in the refresh token did NOT match',
  };
  expect([(await refresh()).status, (await refresh()).body]).toEqual([400, mismatch]);
  expect((await refresh(nginx(other))).body).toEqual(mismatch);
  const ok = await refresh(nginx(cert));
  expect(ok.status).toBe(200);
  expect(payloadOf(ok.body.access_token).cnf).toEqual({ 'x5t#S256': cert.x5t });
});

test('userinfo answers a certificate-bound token only with its certificate', async () => {
  const { access_token } = (await login(nginx(cert))).body;
  const ask = (header?: string) => {
    const req = request(ts.app).get(USERINFO).set('Authorization', `Bearer ${access_token}`);
    if (header) req.set('ssl-client-cert', header);
    return req;
  };
  expect((await ask(nginx(cert))).status).toBe(200);
  const without = await ask();
  expect(without.status).toBe(401);
  expect(without.headers['www-authenticate']).toContain('error="invalid_token"');
  expect((await ask(nginx(other))).status).toBe(401);
});

test('client-x509 authenticates a client by its certificate’s subject DN (exact or regular expression)', async () => {
  const grant = (clientId: string, header?: string) => {
    const req = request(ts.app).post(TOKEN).type('form');
    if (header) req.set('ssl-client-cert', header);
    return req.send({ grant_type: 'client_credentials', client_id: clientId });
  };
  expect((await grant('x509', nginx(cert))).status).toBe(200);
  expect((await grant('x509-regex', nginx(cert))).status).toBe(200);
  for (const [clientId, header] of [
    ['x509', undefined],
    ['x509', nginx(other)],
    ['x509-regex', nginx(other)],
  ] as const) {
    const res = await grant(clientId, header);
    expect([res.status, res.body]).toEqual([
      401,
      { error: 'unauthorized_client', error_description: 'Invalid client or Invalid client credentials' },
    ]);
  }
});

describe('holder-of-key-enforcer', () => {
  const base = `/admin/realms/${R}`;
  const enforce = async (configuration: Record<string, unknown>) => {
    await rp.admin
      .put(`${base}/client-policies/profiles`, {
        profiles: [{ name: 'hok', executors: [{ executor: 'holder-of-key-enforcer', configuration }] }],
      })
      .expect(204);
    await rp.admin
      .put(`${base}/client-policies/policies`, {
        policies: [{ name: 'hok', enabled: true, conditions: [{ condition: 'any-client', configuration: {} }], profiles: ['hok'] }],
      })
      .expect(204);
  };
  afterEach(() => rp.admin.put(`${base}/client-policies/policies`, { policies: [] }).expect(204));

  test('a written client must bind its tokens to its certificate; auto-configure turns it on', async () => {
    await enforce({});
    const refused = await rp.admin.post(`${base}/clients`, { clientId: 'no-hok' });
    expect([refused.status, refused.body]).toEqual([
      400,
      { error: 'invalid_client_metadata', error_description: 'Invalid client metadata: MTLS token in disabled' },
    ]);
    await enforce({ 'auto-configure': true });
    const created = await rp.admin.post(`${base}/clients`, { clientId: 'auto-hok' });
    expect(created.status).toBe(201);
    const rep = (await rp.admin.get(String(created.headers.location).replace(/^.*\/admin/, '/admin'))).body;
    expect(rep.attributes['tls.client.certificate.bound.access.tokens']).toBe('true');
  });

  test('a service-account token request needs a client certificate, even of a client that does not bind to it', async () => {
    await createClient(rp.admin, R, { clientId: 'plain-sa', secret: 'plain-sa-secret', serviceAccountsEnabled: true });
    await enforce({});
    const grant = (header?: string) => {
      const req = request(ts.app).post(TOKEN).type('form');
      if (header) req.set('ssl-client-cert', header);
      return req.send({ grant_type: 'client_credentials', client_id: 'plain-sa', client_secret: 'plain-sa-secret' });
    };
    const refused = await grant();
    expect([refused.status, refused.body]).toEqual([
      400,
      { error: 'invalid_request', error_description: 'Client Certification missing for MTLS HoK Token Binding' },
    ]);
    const ok = await grant(nginx(cert));
    expect(ok.status).toBe(200);
    expect(payloadOf(ok.body.access_token).cnf).toBeUndefined();
  });

  test('a revocation (TOKEN_REVOKE) needs the certificate the revoked token is bound to: 401 not_allowed otherwise', async () => {
    const tokens = (await login(nginx(cert))).body;
    await enforce({});
    const revoke = (token: string, header?: string) => {
      const req = request(ts.app).post(`/realms/${R}/protocol/openid-connect/revoke`).type('form');
      if (header) req.set('ssl-client-cert', header);
      return req.send({ token, client_id: 'hok', client_secret: 'hok-secret' });
    };
    const refusal = {
      error: 'not_allowed',
      error_description: 'Client certificate missing, or its thumbprint and one in the refresh token did NOT match',
    };
    for (const header of [undefined, nginx(other)]) {
      const res = await revoke(tokens.refresh_token, header);
      expect([res.status, res.body]).toEqual([401, refusal]);
    }
    const events = (await rp.admin.get(`${base}/events?type=REVOKE_GRANT_ERROR&client=hok`).expect(200)).body;
    expect(events[0]).toMatchObject({ error: 'not_allowed', details: expect.objectContaining({ reason: 'client_policy_error' }) });
    // A token that does not verify is not this executor's business: the endpoint answers it.
    expect((await revoke('garbage')).body).toEqual({ error: 'invalid_token', error_description: 'Invalid token' });
    expect((await revoke(tokens.refresh_token, nginx(cert))).status).toBe(200);
  });
});
