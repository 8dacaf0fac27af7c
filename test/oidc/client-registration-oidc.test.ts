import { compactDecrypt, decodeJwt, exportJWK, generateKeyPair } from 'jose';
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

  test('encryption metadata (userinfo, ID token, authorization response, request object) is stored as Keycloak attributes, answered, updated and acted on', async () => {
    const pair = await generateKeyPair('RSA-OAEP', { extractable: true });
    const enc = { ...(await exportJWK(pair.publicKey)), kid: 'rp-enc', use: 'enc', alg: 'RSA-OAEP' };
    const metadata = {
      userinfo_signed_response_alg: 'RS256',
      userinfo_encrypted_response_alg: 'RSA-OAEP',
      userinfo_encrypted_response_enc: 'A256GCM',
      id_token_encrypted_response_alg: 'RSA-OAEP',
      id_token_encrypted_response_enc: 'A128CBC-HS256',
      authorization_encrypted_response_alg: 'RSA-OAEP',
      authorization_encrypted_response_enc: 'A256GCM',
      request_object_encryption_alg: 'RSA-OAEP',
      request_object_encryption_enc: 'A256GCM',
    };
    const made = await f.call('POST', '/openid-connect', {
      token: await f.initialToken(),
      body: { redirect_uris: [], grant_types: ['password'], jwks: { keys: [enc] }, ...metadata },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ ...metadata, jwks: { keys: [enc] } });
    const [stored] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=${made.body.client_id}`), 200, 'client').body;
    expect(stored.attributes).toMatchObject({
      'user.info.encrypted.response.alg': 'RSA-OAEP',
      'user.info.encrypted.response.enc': 'A256GCM',
      'id.token.encrypted.response.alg': 'RSA-OAEP',
      'id.token.encrypted.response.enc': 'A128CBC-HS256',
      'authorization.encrypted.response.alg': 'RSA-OAEP',
      'authorization.encrypted.response.enc': 'A256GCM',
      'request.object.encryption.alg': 'RSA-OAEP',
      'request.object.encryption.enc': 'A256GCM',
    });
    // Read and update with the registration access token.
    const uri = `/openid-connect/${made.body.client_id}`;
    const read = await f.call('GET', uri, { token: made.body.registration_access_token });
    expect(read.body).toMatchObject(metadata);
    const updated = await f.call('PUT', uri, {
      token: made.body.registration_access_token,
      body: { ...read.body, userinfo_encrypted_response_enc: 'A128CBC-HS256' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.userinfo_encrypted_response_enc).toBe('A128CBC-HS256');
    // It takes effect: userinfo answers a JWE to the client's key, the signed userinfo inside; so is the ID token.
    await f.userToken('sealed-user', []);
    const grant = await request(f.ts.app).post(`/realms/${R}/protocol/openid-connect/token`).type('form').send({
      grant_type: 'password',
      client_id: made.body.client_id,
      client_secret: made.body.client_secret,
      username: 'sealed-user',
      password: 'pw',
      scope: 'openid',
    });
    expect(grant.status).toBe(200);
    const info = await request(f.ts.app)
      .get(`/realms/${R}/protocol/openid-connect/userinfo`)
      .set('Authorization', `Bearer ${grant.body.access_token}`)
      .buffer(true)
      .parse((res, cb) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => cb(null, text));
      });
    expect(info.status).toBe(200);
    expect(info.headers['content-type']).toMatch(/^application\/jwt/);
    const { plaintext, protectedHeader } = await compactDecrypt(info.body as string, pair.privateKey);
    expect(protectedHeader).toMatchObject({ alg: 'RSA-OAEP', enc: 'A128CBC-HS256', kid: 'rp-enc' });
    const idToken = await compactDecrypt(grant.body.id_token, pair.privateKey);
    expect(idToken.protectedHeader).toMatchObject({ alg: 'RSA-OAEP', enc: 'A128CBC-HS256' });
    const sub = decodeJwt(new TextDecoder().decode(idToken.plaintext)).sub;
    expect(decodeJwt(new TextDecoder().decode(plaintext))).toMatchObject({ sub, aud: made.body.client_id });
  });

  test('logout, CIBA, PAR, ACR and mTLS metadata map to the attributes Keycloak uses, and come back', async () => {
    const metadata = {
      post_logout_redirect_uris: ['https://rp.example.org/bye'],
      frontchannel_logout_uri: 'https://rp.example.org/front',
      frontchannel_logout_session_required: true,
      backchannel_client_notification_endpoint: 'https://rp.example.org/ciba',
      backchannel_authentication_request_signing_alg: 'PS256',
      require_pushed_authorization_requests: true,
      default_acr_values: ['silver', 'gold'],
      tls_client_auth_subject_dn: 'CN=rp, O=example',
    };
    const made = await f.call('POST', '/openid-connect', {
      token: await f.initialToken(),
      body: { redirect_uris: ['https://rp.example.org/cb'], token_endpoint_auth_method: 'tls_client_auth', ...metadata },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ ...metadata, token_endpoint_auth_method: 'tls_client_auth' });
    const [stored] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=${made.body.client_id}`), 200, 'client').body;
    expect(stored.clientAuthenticatorType).toBe('client-x509');
    expect(stored.attributes).toMatchObject({
      'post.logout.redirect.uris': 'https://rp.example.org/bye',
      'frontchannel.logout.url': 'https://rp.example.org/front',
      'frontchannel.logout.session.required': 'true',
      'ciba.backchannel.client.notification.endpoint': 'https://rp.example.org/ciba',
      'ciba.backchannel.auth.request.signing.alg': 'PS256',
      'require.pushed.authorization.requests': 'true',
      'default.acr.values': 'silver##gold',
      'x509.subjectdn': 'CN=rp, O=example',
      'x509.allow.regex.pattern.comparison': 'false',
    });
  });

  test('scope on create: the optional scopes, and `basic` the only default one (AbstractClientRegistrationProvider#create, OIDCClientRegistrationTest#testClientWithScope)', async () => {
    const made = await f.call('POST', '/openid-connect', {
      token: await f.initialToken(),
      body: { redirect_uris: ['https://scope.example.org/cb'], scope: 'phone address' },
    });
    expect(made.status).toBe(201);
    expect(String(made.body.scope).split(' ').sort()).toEqual(['address', 'phone']);
    const [stored] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=${made.body.client_id}`), 200, 'client').body;
    expect([stored.defaultClientScopes, [...stored.optionalClientScopes].sort()]).toEqual([['basic'], ['address', 'phone']]);
    // Without scope: the realm's default and optional scopes, as any new client.
    const plain = await f.call('POST', '/openid-connect', {
      token: await f.initialToken(),
      body: { redirect_uris: ['https://plain.example.org/cb'] },
    });
    const [plainStored] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=${plain.body.client_id}`), 200, 'client').body;
    expect(plainStored.defaultClientScopes).toEqual(expect.arrayContaining(['basic', 'profile', 'email', 'roles', 'web-origins']));
  });

  test('grant_types as Keycloak 26 DescriptionConverter#toInternal: the answer carries the stored grants; without grant_types the others keep their defaults', async () => {
    const stored = async (clientId: string) =>
      expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=${clientId}`), 200, 'client').body[0];
    // The password grant is answered (AbstractClientRegistrationProvider#create answers the stored directAccessGrantsEnabled).
    const pw = await f.call('POST', '/openid-connect', {
      token: await f.initialToken(),
      body: { redirect_uris: ['https://pw.example.org/cb'], grant_types: ['authorization_code', 'password'] },
    });
    expect(pw.status).toBe(201);
    expect(pw.body.grant_types).toEqual(['authorization_code', 'password']);
    expect((await stored(pw.body.client_id)).directAccessGrantsEnabled).toBe(true);
    // No grant_types: code, and refresh tokens stay on (use.refresh.tokens is not written).
    const plain = await f.call('POST', '/openid-connect', {
      token: await f.initialToken(),
      body: { redirect_uris: ['https://plain-grants.example.org/cb'] },
    });
    expect([plain.body.response_types, plain.body.grant_types]).toEqual([
      ['code', 'none'],
      ['authorization_code', 'refresh_token'],
    ]);
    expect((await stored(plain.body.client_id)).attributes['use.refresh.tokens']).not.toBe('false');
    // Only client_credentials: no response type is implied, so no standard flow.
    const svc = await f.call('POST', '/openid-connect', { token: await f.initialToken(), body: { grant_types: ['client_credentials'] } });
    expect([svc.status, svc.body.response_types, svc.body.grant_types]).toEqual([201, [], ['client_credentials']]);
    expect(await stored(svc.body.client_id)).toMatchObject({ standardFlowEnabled: false, serviceAccountsEnabled: true });
    // An update without grant_types keeps the service account; the password grant is off unless named.
    const upd = await f.call('PUT', `/openid-connect/${svc.body.client_id}`, {
      token: svc.body.registration_access_token,
      body: { client_id: svc.body.client_id, client_name: 'Service' },
    });
    expect([upd.status, upd.body.grant_types]).toEqual([200, ['authorization_code', 'client_credentials']]);
    expect(await stored(svc.body.client_id)).toMatchObject({ serviceAccountsEnabled: true, directAccessGrantsEnabled: false });
    // The default provider answers the stored flag too.
    const rep = await f.call('POST', '/default', {
      token: await f.initialToken(),
      body: { clientId: 'dag-on', directAccessGrantsEnabled: true },
    });
    expect([rep.status, rep.body.directAccessGrantsEnabled]).toEqual([201, true]);
    // Token exchange for a public client is refused ("Token Exchange cannot be enabled in a public client").
    const te = await f.call('POST', '/openid-connect', {
      token: await f.initialToken(),
      body: { token_endpoint_auth_method: 'none', grant_types: ['urn:ietf:params:oauth:grant-type:token-exchange'] },
    });
    expect([te.status, te.body]).toEqual([400, { error: 'invalid_client_metadata', error_description: 'Client metadata invalid' }]);
  });

  test('an update leaves authorization services as they are, whatever its grant_types (AbstractClientRegistrationProvider#update ignores authorizationServicesEnabled)', async () => {
    const UMA = 'urn:ietf:params:oauth:grant-type:uma-ticket';
    const uuidOf = async (clientId: string) =>
      expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=${clientId}`), 200, 'client').body[0].id as string;
    const rsStatus = async (clientId: string) =>
      (await f.api.get(`/admin/realms/${R}/clients/${await uuidOf(clientId)}/authz/resource-server`)).status;
    const made = await f.call('POST', '/openid-connect', {
      token: await f.initialToken(),
      body: { redirect_uris: ['https://uma.example.org/cb'], grant_types: ['authorization_code', UMA] },
    });
    expect([made.status, made.body.grant_types]).toEqual([201, expect.arrayContaining([UMA])]);
    const id = made.body.client_id as string;
    expect(await rsStatus(id)).toBe(200);
    // grant_types without the UMA grant: still a resource server, and the answer still names the grant.
    const without = await f.call('PUT', `/openid-connect/${id}`, {
      token: made.body.registration_access_token,
      body: { client_id: id, redirect_uris: ['https://uma.example.org/cb'], grant_types: ['authorization_code'] },
    });
    expect([without.status, without.body.grant_types]).toEqual([200, expect.arrayContaining([UMA])]);
    expect(await rsStatus(id)).toBe(200);
    // No grant_types at all: the same.
    const none = await f.call('PUT', `/openid-connect/${id}`, {
      token: without.body.registration_access_token,
      body: { client_id: id, redirect_uris: ['https://uma.example.org/cb'] },
    });
    expect([none.status, none.body.grant_types]).toEqual([200, expect.arrayContaining([UMA])]);
    expect(await rsStatus(id)).toBe(200);
    // And the UMA grant in an update turns nothing on.
    const plain = await f.call('POST', '/openid-connect', {
      token: await f.initialToken(),
      body: { redirect_uris: ['https://no-uma.example.org/cb'] },
    });
    const asked = await f.call('PUT', `/openid-connect/${plain.body.client_id}`, {
      token: plain.body.registration_access_token,
      body: { client_id: plain.body.client_id, redirect_uris: ['https://no-uma.example.org/cb'], grant_types: ['authorization_code', UMA] },
    });
    expect(asked.status).toBe(200);
    expect(asked.body.grant_types).not.toContain(UMA);
    expect(await rsStatus(plain.body.client_id)).toBe(404);
    // The default provider: a body without authorizationServicesEnabled keeps them on too.
    const rep = await f.call('POST', '/default', {
      token: await f.initialToken(),
      body: { clientId: 'authz-default', authorizationServicesEnabled: true },
    });
    expect([rep.status, await rsStatus('authz-default')]).toEqual([201, 200]);
    const upd = await f.call('PUT', '/default/authz-default', {
      token: rep.body.registrationAccessToken,
      body: { clientId: 'authz-default', name: 'Renamed' },
    });
    expect([upd.status, upd.body.authorizationServicesEnabled, await rsStatus('authz-default')]).toEqual([200, true, 200]);
  });

  test('an update clears the metadata Keycloak 26 toInternal writes as null, once its attribute map exists; the logout settings get their defaults', async () => {
    const attrs = async (clientId: string) =>
      expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=${clientId}`), 200, 'client').body[0];
    const full = {
      redirect_uris: ['https://clear.example.org/cb'],
      id_token_signed_response_alg: 'PS256',
      id_token_encrypted_response_alg: 'RSA-OAEP',
      id_token_encrypted_response_enc: 'A256GCM',
      userinfo_encrypted_response_alg: 'RSA-OAEP',
      authorization_signed_response_alg: 'PS256',
      token_endpoint_auth_signing_alg: 'HS512',
      backchannel_logout_uri: 'https://clear.example.org/back',
      backchannel_logout_session_required: false,
      frontchannel_logout_uri: 'https://clear.example.org/front',
      frontchannel_logout_session_required: true,
      request_object_signing_alg: 'PS256',
      request_uris: ['https://clear.example.org/req'],
      tls_client_certificate_bound_access_tokens: true,
    };
    const made = await f.call('POST', '/openid-connect', { token: await f.initialToken(), body: full });
    expect(made.status).toBe(201);
    const id = made.body.client_id as string;
    const created = await attrs(id);
    expect(created.frontchannelLogout).toBe(true);
    expect(created.attributes).toMatchObject({
      'id.token.signed.response.alg': 'PS256',
      'authorization.signed.response.alg': 'PS256',
      'token.endpoint.auth.signing.alg': 'HS512',
      'backchannel.logout.url': 'https://clear.example.org/back',
      'backchannel.logout.session.required': 'false',
      'frontchannel.logout.url': 'https://clear.example.org/front',
      'request.uris': 'https://clear.example.org/req',
    });
    // Nothing that starts the attribute map before the logout defaults: only the front-channel URL goes.
    const bare = await f.call('PUT', `/openid-connect/${id}`, {
      token: made.body.registration_access_token,
      body: { client_id: id, redirect_uris: full.redirect_uris },
    });
    expect(bare.status).toBe(200);
    const afterBare = await attrs(id);
    expect(afterBare.frontchannelLogout).toBe(false);
    expect(afterBare.attributes['frontchannel.logout.url']).toBeUndefined();
    expect(afterBare.attributes).toMatchObject({
      'id.token.signed.response.alg': 'PS256',
      'backchannel.logout.url': 'https://clear.example.org/back',
      'backchannel.logout.session.required': 'true',
      'backchannel.logout.revoke.offline.tokens': 'false',
      'frontchannel.logout.session.required': 'false',
    });
    // With grant_types the map exists from the start: the unconditional ones go, the conditional ones stay.
    const granted = await f.call('PUT', `/openid-connect/${id}`, {
      token: bare.body.registration_access_token,
      body: { client_id: id, redirect_uris: full.redirect_uris, grant_types: ['authorization_code'] },
    });
    expect(granted.status).toBe(200);
    const a = (await attrs(id)).attributes;
    for (const gone of [
      'id.token.signed.response.alg',
      'authorization.signed.response.alg',
      'token.endpoint.auth.signing.alg',
      'backchannel.logout.url',
    ])
      expect([gone, a[gone]]).toEqual([gone, undefined]);
    expect(a).toMatchObject({
      'id.token.encrypted.response.alg': 'RSA-OAEP',
      'id.token.encrypted.response.enc': 'A256GCM',
      'user.info.encrypted.response.alg': 'RSA-OAEP',
      'request.object.signature.alg': 'PS256',
      'request.uris': 'https://clear.example.org/req',
      'tls.client.certificate.bound.access.tokens': 'true',
    });
    expect(granted.body.id_token_signed_response_alg).toBeUndefined();
    expect(granted.body.backchannel_logout_uri).toBeUndefined();
    // An empty list removes its attribute, request_uris only once the map exists (as the scalar ones).
    const kept = await f.call('PUT', `/openid-connect/${id}`, {
      token: granted.body.registration_access_token,
      body: { client_id: id, redirect_uris: full.redirect_uris, request_uris: [] },
    });
    expect(kept.status).toBe(200);
    expect((await attrs(id)).attributes['request.uris']).toBe('https://clear.example.org/req');
    const emptied = await f.call('PUT', `/openid-connect/${id}`, {
      token: kept.body.registration_access_token,
      body: { client_id: id, redirect_uris: full.redirect_uris, grant_types: ['authorization_code'], request_uris: [] },
    });
    expect(emptied.status).toBe(200);
    expect((await attrs(id)).attributes['request.uris']).toBeUndefined();
  });

  test('an empty scope names no optional scope, and `basic` is the only default one', async () => {
    const made = await f.call('POST', '/openid-connect', {
      token: await f.initialToken(),
      body: { redirect_uris: ['https://empty-scope.example.org/cb'], scope: '' },
    });
    expect([made.status, made.body.scope]).toEqual([201, '']);
    const [stored] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=${made.body.client_id}`), 200, 'client').body;
    expect([stored.defaultClientScopes, stored.optionalClientScopes]).toEqual([['basic'], []]);
  });

  test('scope on update: the optional scopes are replaced, the default ones kept (OIDCClientRegistrationProvider#updateOIDC)', async () => {
    const made = await f.call('POST', '/openid-connect', {
      token: await f.initialToken(),
      body: { redirect_uris: ['https://upd.example.org/cb'] },
    });
    const id = made.body.client_id as string;
    const [before] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=${id}`), 200, 'client').body;
    expect(before.defaultClientScopes).toEqual(expect.arrayContaining(['profile', 'email']));
    const updated = await f.call('PUT', `/openid-connect/${id}`, {
      token: made.body.registration_access_token,
      body: { client_id: id, redirect_uris: ['https://upd.example.org/cb'], scope: 'address' },
    });
    expect([updated.status, updated.body.scope]).toEqual([200, 'address']);
    const [after] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=${id}`), 200, 'client').body;
    expect([[...after.defaultClientScopes].sort(), after.optionalClientScopes]).toEqual([
      [...before.defaultClientScopes].sort(),
      ['address'],
    ]);
    // Without scope, an update leaves both lists alone.
    const again = await f.call('PUT', `/openid-connect/${id}`, {
      token: updated.body.registration_access_token,
      body: { client_id: id, redirect_uris: ['https://upd.example.org/cb'], client_name: 'Renamed' },
    });
    expect(again.status).toBe(200);
    const [last] = expectStatus(await f.api.get(`/admin/realms/${R}/clients?clientId=${id}`), 200, 'client').body;
    expect([[...last.defaultClientScopes].sort(), last.optionalClientScopes]).toEqual([
      [...before.defaultClientScopes].sort(),
      ['address'],
    ]);
  });

  test('a refused registration answers 403 insufficient_scope naming the policy, and creates nothing (ClientRegistrationAuth.requireCreate)', async () => {
    const before = await f.clientCount();
    // Anonymous: the default Trusted Hosts policy trusts no host.
    const res = await f.call('POST', '/openid-connect', { body: { redirect_uris: ['https://anon.example.org/cb'] } });
    expect([res.status, res.body]).toEqual([
      403,
      {
        error: 'insufficient_scope',
        error_description: "Policy 'Trusted Hosts' rejected request to client-registration service. Details: Host not trusted.",
      },
    ]);
    expect(await f.clientCount()).toBe(before);
    expect((await f.events('CLIENT_REGISTER_ERROR'))[0]).toMatchObject({ error: 'not_allowed' });
  });
});
