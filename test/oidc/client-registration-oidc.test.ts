import { decodeJwt } from 'jose';
import request from 'supertest';
import { expectStatus } from '../helpers/fixtures';
import { type RegistrationFixture, registrationFixture } from './client-registration-fixture';

/**
 * `/realms/{realm}/clients-registrations/openid-connect` (issue 16): RFC 7591 registration and RFC
 * 7592 management with OIDC client metadata, mapped to and from the client as Keycloak's
 * DescriptionConverter; the registered client works at the token endpoint at once.
 */

let f: RegistrationFixture;
const R = 'client-reg-oidc';

beforeAll(async () => {
  f = await registrationFixture(R);
});
afterAll(() => f.ts.close());

describe('OpenID Connect dynamic client registration', () => {
  test('registers a confidential client: a generated client_id, its secret, the registration token and URI, the metadata', async () => {
    const res = await f.call('POST', '/openid-connect', {
      token: await f.initialToken(),
      body: {
        client_name: 'RP One',
        redirect_uris: ['https://rp.example.org/cb'],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'client_secret_post',
        client_uri: 'https://rp.example.org',
        unknown_metadata: 'ignored',
      },
    });
    expect(res.status).toBe(201);
    const clientId = res.body.client_id as string;
    expect(clientId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('location')).toBe(f.publicUrl('openid-connect', clientId));
    expect(res.body).toMatchObject({
      client_name: 'RP One',
      client_uri: 'https://rp.example.org',
      redirect_uris: ['https://rp.example.org/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
      client_secret: expect.any(String),
      client_secret_expires_at: 0,
      registration_client_uri: f.publicUrl('openid-connect', clientId),
      response_types: ['code', 'none'],
      grant_types: ['authorization_code', 'refresh_token'],
      subject_type: 'public',
      tls_client_certificate_bound_access_tokens: false,
      client_id_issued_at: expect.any(Number),
    });
    expect(decodeJwt(res.body.registration_access_token).typ).toBe('RegistrationAccessToken');
    const [stored] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=${clientId}`), 200, 'client').body;
    expect(stored).toMatchObject({ name: 'RP One', protocol: 'openid-connect', standardFlowEnabled: true, publicClient: false });
    expect(stored.secret).toBe(res.body.client_secret);
  });

  test('read, update (client_id required, token rotated) and delete with the registration access token', async () => {
    const made = await f.call('POST', '/openid-connect', {
      token: await f.initialToken(),
      body: { client_name: 'RP Two', redirect_uris: ['https://two.example.org/cb'] },
    });
    const id = made.body.client_id as string;
    const read = await f.call('GET', `/openid-connect/${id}`, { token: made.body.registration_access_token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      client_id: id,
      client_name: 'RP Two',
      registration_access_token: made.body.registration_access_token,
    });
    expect(read.body.client_id_issued_at).toBeUndefined();

    const updated = await f.call('PUT', `/openid-connect/${id}`, {
      token: made.body.registration_access_token,
      body: { client_id: id, client_name: 'RP Two v2', redirect_uris: ['https://two.example.org/cb2'] },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ client_name: 'RP Two v2', redirect_uris: ['https://two.example.org/cb2'] });
    expect(updated.body.registration_access_token).not.toBe(made.body.registration_access_token);

    const noId = await f.call('PUT', `/openid-connect/${id}`, {
      token: updated.body.registration_access_token,
      body: { client_name: 'no id' },
    });
    expect([noId.status, noId.body]).toEqual([400, { error: 'invalid_client_metadata', error_description: 'Client Identifier modified' }]);

    expect((await f.call('DELETE', `/openid-connect/${id}`, { token: updated.body.registration_access_token })).status).toBe(204);
    expect(expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=${id}`), 200, 'gone').body).toEqual([]);
  });

  test("the realm's discovery document names the registration endpoint, and a client registers there", async () => {
    const discovery = await request(f.ts.app).get(`/realms/${R}/.well-known/openid-configuration`);
    expect(discovery.body.registration_endpoint).toBe(f.publicUrl('openid-connect'));
    const path = new URL(discovery.body.registration_endpoint).pathname;
    const res = await request(f.ts.app)
      .post(path)
      .set('Authorization', `Bearer ${await f.initialToken()}`)
      .send({ redirect_uris: ['https://found.example.org/cb'] });
    expect(res.status).toBe(201);
  });

  test('a client_id in the registration request, or both jwks and jwks_uri, is invalid metadata', async () => {
    const token = await f.initialToken(5);
    const named = await f.call('POST', '/openid-connect', { token, body: { client_id: 'mine', redirect_uris: [] } });
    expect([named.status, named.body]).toEqual([
      400,
      { error: 'invalid_client_metadata', error_description: 'Client Identifier included' },
    ]);
    const both = await f.call('POST', '/openid-connect', {
      token,
      body: { redirect_uris: [], jwks_uri: 'https://rp.example.org/jwks', jwks: { keys: [] } },
    });
    expect([both.status, both.body.error]).toEqual([400, 'invalid_client_metadata']);
    const before = await f.clientCount();
    for (const body of [
      { redirect_uris: [], token_endpoint_auth_method: 'magic' },
      { redirect_uris: [], response_types: ['token'] },
      { redirect_uris: [], response_types: ['code none'] },
      { redirect_uris: [], token_endpoint_auth_method: 'private_key_jwt' },
    ]) {
      const res = await f.call('POST', '/openid-connect', { token, body });
      expect([res.status, res.body]).toEqual([400, { error: 'invalid_client_metadata', error_description: 'Client metadata invalid' }]);
    }
    expect(await f.clientCount()).toBe(before);
  });

  test('a public client (auth method none) gets no secret; a client_credentials client gets tokens at once', async () => {
    const token = await f.initialToken(2);
    const pub = await f.call('POST', '/openid-connect', {
      token,
      body: { redirect_uris: ['https://spa.example.org/cb'], token_endpoint_auth_method: 'none' },
    });
    expect(pub.status).toBe(201);
    expect(pub.body.token_endpoint_auth_method).toBe('none');
    expect(pub.body.client_secret).toBeUndefined();

    const svc = await f.call('POST', '/openid-connect', { token, body: { redirect_uris: [], grant_types: ['client_credentials'] } });
    expect(svc.status).toBe(201);
    expect(svc.body.grant_types).toContain('client_credentials');
    const grant = await request(f.ts.app)
      .post(`/realms/${R}/protocol/openid-connect/token`)
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: svc.body.client_id, client_secret: svc.body.client_secret });
    expect(grant.status).toBe(200);
    expect(decodeJwt(grant.body.access_token).azp).toBe(svc.body.client_id);
  });

  test('a SAML client is not managed through the openid-connect endpoint', async () => {
    const saml = await f.call('POST', '/default', { token: await f.initialToken(), body: { clientId: 'saml-sp', protocol: 'saml' } });
    expect(saml.status).toBe(201);
    const res = await f.call('GET', '/openid-connect/saml-sp', { token: saml.body.registrationAccessToken });
    expect([res.status, res.body]).toEqual([400, { error: 'invalid_client', error_description: 'Wrong client protocol.' }]);
  });
});
