import { createPublicKey } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, jwtVerify, importJWK } from 'jose';
import request from 'supertest';
import { ADMIN, startTestServer, type TestServer } from '../../helpers/server';
import { serviceAccountClient, userId } from '../../helpers/fixtures';

let ts: TestServer;

beforeAll(async () => {
  ts = await startTestServer();
});
afterAll(() => ts.close());

const token = (realm: string, form: Record<string, string>, basic?: string) => {
  const r = request(ts.app).post(`/realms/${realm}/protocol/openid-connect/token`).type('form');
  if (basic) r.set('Authorization', `Basic ${basic}`);
  return r.send(form);
};

describe('token endpoint', () => {
  test('password grant with admin-cli gives a lightweight RS256 token signed with the realm key', async () => {
    const res = await token('master', {
      grant_type: 'password',
      client_id: 'admin-cli',
      username: ADMIN.username,
      password: ADMIN.password,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_expires_in: 1800,
      'not-before-policy': 0,
      scope: 'profile email',
    });
    expect(res.body.session_state).toEqual(expect.any(String));
    expect(res.body.id_token).toBeUndefined();
    expect(res.headers['cache-control']).toBe('no-store');
    const header = decodeProtectedHeader(res.body.access_token);
    expect(header.alg).toBe('RS256');
    const claims = decodeJwt(res.body.access_token);
    expect(claims).toMatchObject({
      iss: 'http://localhost:8080/realms/master',
      typ: 'Bearer',
      azp: 'admin-cli',
      sid: res.body.session_state,
    });
    // lightweight token: no sub, no roles
    expect(claims.sub).toBeUndefined();
    expect(claims.realm_access).toBeUndefined();

    const jwks = await request(ts.app).get('/realms/master/protocol/openid-connect/certs');
    expect(jwks.status).toBe(200);
    const jwk = jwks.body.keys.find((k: { kid: string }) => k.kid === header.kid);
    expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwk.x5c).toHaveLength(1);
    const verified = await jwtVerify(res.body.access_token, await importJWK(jwk, 'RS256'));
    expect(verified.payload.azp).toBe('admin-cli');
    // the certificate carries the same public key
    const certKey = createPublicKey({ key: `-----BEGIN CERTIFICATE-----\n${jwk.x5c[0]}\n-----END CERTIFICATE-----` });
    expect(certKey.export({ format: 'jwk' })).toMatchObject({ n: jwk.n, e: jwk.e });
  });

  test('the stored password is an argon2id hash in Keycloak layout, never the password', async () => {
    // the hash at rest: only the table shows it
    const admin = await userId(await ts.api(), 'master', 'admin');
    const cred = await ts.db.models.Credential.findOne({ where: { userId: admin, type: 'password' } });
    expect(JSON.parse(cred?.credentialData ?? '{}')).toEqual({
      hashIterations: 5,
      algorithm: 'argon2',
      additionalParameters: { hashLength: ['32'], memory: ['7168'], type: ['id'], version: ['1.3'], parallelism: ['1'] },
    });
    expect(cred?.secretData).not.toContain('admin');
    expect(Buffer.from(JSON.parse(cred?.secretData ?? '{}').value, 'base64')).toHaveLength(32);
  });

  test('openid scope adds an id_token', async () => {
    const res = await token('master', {
      grant_type: 'password',
      client_id: 'admin-cli',
      username: 'admin',
      password: 'admin',
      scope: 'openid',
    });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('openid profile email');
    expect(decodeJwt(res.body.id_token)).toMatchObject({ typ: 'ID', aud: 'admin-cli', preferred_username: 'admin' });
  });

  test('refresh_token grant issues new tokens; a garbled one is invalid_grant', async () => {
    const first = await token('master', { grant_type: 'password', client_id: 'admin-cli', username: 'admin', password: 'admin' });
    const again = await token('master', { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: first.body.refresh_token });
    expect(again.status).toBe(200);
    expect(again.body.session_state).toBe(first.body.session_state);
    const bad = await token('master', { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid refresh token' });
  });

  test('a token of a deleted session is rejected by the admin API and cannot refresh', async () => {
    const t = await token('master', { grant_type: 'password', client_id: 'admin-cli', username: 'admin', password: 'admin' });
    const ok = await request(ts.app).get('/admin/realms/master').set('Authorization', `Bearer ${t.body.access_token}`);
    expect(ok.status).toBe(200);
    await ts.db.models.UserSession.destroy({ where: { id: t.body.session_state } });
    const denied = await request(ts.app).get('/admin/realms/master').set('Authorization', `Bearer ${t.body.access_token}`);
    expect(denied.status).toBe(401);
    const refresh = await token('master', { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: t.body.refresh_token });
    expect(refresh.body).toEqual({ error: 'invalid_grant', error_description: 'Session not active' });
  });

  test.each([
    [
      { client_id: 'admin-cli', username: 'admin', password: 'admin' },
      400,
      { error: 'invalid_request', error_description: 'Missing form parameter: grant_type' },
    ],
    [
      { grant_type: 'magic', client_id: 'admin-cli' },
      400,
      { error: 'unsupported_grant_type', error_description: 'Unsupported grant_type' },
    ],
    [
      { grant_type: 'password', client_id: 'admin-cli', username: 'admin', password: 'wrong' },
      400,
      { error: 'invalid_grant', error_description: 'Invalid user credentials' },
    ],
    [
      { grant_type: 'password', client_id: 'admin-cli', username: 'nobody', password: 'x' },
      400,
      { error: 'invalid_grant', error_description: 'Invalid user credentials' },
    ],
    [
      { grant_type: 'password', client_id: 'no-such-client', username: 'admin', password: 'admin' },
      401,
      { error: 'invalid_client', error_description: 'Invalid client or Invalid client credentials' },
    ],
    [
      { grant_type: 'password', client_id: 'security-admin-console', username: 'admin', password: 'admin' },
      400,
      { error: 'unauthorized_client', error_description: 'Client not allowed for direct access grants' },
    ],
    [
      { grant_type: 'client_credentials', client_id: 'admin-cli' },
      400,
      { error: 'unauthorized_client', error_description: 'Public client not allowed to retrieve service account' },
    ],
  ])('error %j → %i', async (form, status, body) => {
    const res = await token('master', form as Record<string, string>);
    expect(res.status).toBe(status);
    expect(res.body).toEqual(body);
  });

  test('unknown realm', async () => {
    const res = await token('nope', { grant_type: 'password', client_id: 'admin-cli' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Realm does not exist' });
  });

  test('client_credentials with a confidential service-account client, secret in Basic or form', async () => {
    const { userId } = await serviceAccountClient(await ts.api(), 'master', 'robot', 's3cret');
    const basic = Buffer.from('robot:s3cret').toString('base64');
    const ok = await token('master', { grant_type: 'client_credentials' }, basic);
    expect(ok.status).toBe(200);
    expect(ok.body.refresh_token).toBeUndefined();
    expect(ok.body.refresh_expires_in).toBe(0);
    expect(decodeJwt(ok.body.access_token)).toMatchObject({
      sub: userId,
      preferred_username: 'service-account-robot',
      azp: 'robot',
    });
    const viaForm = await token('master', { grant_type: 'client_credentials', client_id: 'robot', client_secret: 's3cret' });
    expect(viaForm.status).toBe(200);
    const wrong = await token('master', { grant_type: 'client_credentials', client_id: 'robot', client_secret: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'unauthorized_client', error_description: 'Invalid client or Invalid client credentials' });
    // a service account without admin roles is authenticated but forbidden
    const denied = await request(ts.app).get('/admin/realms/master').set('Authorization', `Bearer ${ok.body.access_token}`);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: 'HTTP 403 Forbidden' });
  });

  test('discovery document: only what is served, and the algorithms of the realm keys', async () => {
    const res = await request(ts.app).get('/realms/master/.well-known/openid-configuration');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: 'http://localhost:8080/realms/master',
      token_endpoint: 'http://localhost:8080/realms/master/protocol/openid-connect/token',
      jwks_uri: 'http://localhost:8080/realms/master/protocol/openid-connect/certs',
      grant_types_supported: [
        'authorization_code',
        'implicit',
        'password',
        'client_credentials',
        'refresh_token',
        'urn:ietf:params:oauth:grant-type:uma-ticket',
      ],
      response_types_supported: [
        'code',
        'none',
        'id_token',
        'token',
        'id_token token',
        'code id_token',
        'code token',
        'code id_token token',
      ],
      response_modes_supported: ['query', 'fragment', 'form_post', 'query.jwt', 'fragment.jwt', 'form_post.jwt', 'jwt'],
      code_challenge_methods_supported: ['plain', 'S256'],
      authorization_endpoint: 'http://localhost:8080/realms/master/protocol/openid-connect/auth',
      end_session_endpoint: 'http://localhost:8080/realms/master/protocol/openid-connect/logout',
      frontchannel_logout_supported: true,
      frontchannel_logout_session_supported: true,
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
      subject_types_supported: ['public', 'pairwise'],
      id_token_signing_alg_values_supported: ['RS256'],
      authorization_signing_alg_values_supported: ['HS512', 'RS256'],
      userinfo_endpoint: 'http://localhost:8080/realms/master/protocol/openid-connect/userinfo',
      userinfo_signing_alg_values_supported: ['RS256', 'none'],
      introspection_endpoint: 'http://localhost:8080/realms/master/protocol/openid-connect/token/introspect',
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'client_secret_jwt'],
      revocation_endpoint: 'http://localhost:8080/realms/master/protocol/openid-connect/revoke',
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'client_secret_jwt'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'client_secret_jwt'],
      pushed_authorization_request_endpoint: 'http://localhost:8080/realms/master/protocol/openid-connect/ext/par/request',
      require_pushed_authorization_requests: false,
    });
    expect(
      (await request(ts.app).post(new URL(res.body.pushed_authorization_request_endpoint).pathname).type('form').send({})).status,
    ).toBe(401);
    // Every advertised URL answers (the browser endpoints with a page: here, the missing client_id's).
    expect((await request(ts.app).get(new URL(res.body.authorization_endpoint).pathname)).status).toBe(400);
    expect((await request(ts.app).get(new URL(res.body.end_session_endpoint).pathname)).status).toBe(200);
    for (const url of [res.body.jwks_uri]) expect((await request(ts.app).get(new URL(url).pathname)).status).toBe(200);
    expect((await request(ts.app).post(new URL(res.body.token_endpoint).pathname).type('form').send({})).status).toBe(400);
    expect((await request(ts.app).get(new URL(res.body.userinfo_endpoint).pathname)).status).toBe(401);
    for (const url of [res.body.introspection_endpoint, res.body.revocation_endpoint])
      expect((await request(ts.app).post(new URL(url).pathname).type('form').send({})).status).toBe(401);
  });

  test('an ES256 realm advertises ES256; a disabled key is not advertised', async () => {
    const admin = await ts.api();
    expect((await admin.post('/admin/realms', { realm: 'disco-ec', enabled: true, defaultSignatureAlgorithm: 'ES256' })).status).toBe(201);
    const realmId = (await admin.get('/admin/realms/disco-ec')).body.id;
    const ec = await admin.post('/admin/realms/disco-ec/components', {
      name: 'ec',
      providerId: 'ecdsa-generated',
      providerType: 'org.keycloak.keys.KeyProvider',
      parentId: realmId,
      config: { priority: ['200'] },
    });
    expect(ec.status).toBe(201);
    const algs = async () =>
      (await request(ts.app).get('/realms/disco-ec/.well-known/openid-configuration')).body.id_token_signing_alg_values_supported;
    expect(await algs()).toEqual(['ES256', 'RS256']);
    const rsa = (await admin.get(`/admin/realms/disco-ec/components?type=org.keycloak.keys.KeyProvider`)).body.find(
      (c: { providerId: string }) => c.providerId === 'rsa-generated',
    );
    expect(
      (await admin.put(`/admin/realms/disco-ec/components/${rsa.id}`, { ...rsa, config: { ...rsa.config, enabled: ['false'] } })).status,
    ).toBe(204);
    expect(await algs()).toEqual(['ES256']);
  });
});
