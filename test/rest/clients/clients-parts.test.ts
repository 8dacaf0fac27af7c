import { decodeJwt, decodeProtectedHeader } from 'jose';
import request from 'supertest';
import { createClient, realmIdOf, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/** Client sub-resources: secret, registration token, scopes, nodes, installation, converter (config reference §1.5–1.12). */
let ts: TestServer;
let api: AdminApi;
const R = 'cp';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
});
afterAll(() => ts.close());

const create = (body: Record<string, unknown>) => createClient(api, R, body);

const token = (clientId: string, secret: string) =>
  request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret });

describe('client secret', () => {
  test('GET returns {type, value}; POST regenerates; public client has no value', async () => {
    const id = await create({ clientId: 'sec' });
    const got = await api.get(`${base}/clients/${id}/client-secret`);
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(['type', 'value']);
    expect(got.body.type).toBe('secret');
    const fresh = await api.post(`${base}/clients/${id}/client-secret`);
    expect(fresh.status).toBe(200);
    expect(fresh.body.value).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(fresh.body.value).not.toBe(got.body.value);
    expect((await api.get(`${base}/clients/${id}/client-secret`)).body.value).toBe(fresh.body.value);
    const pub = await create({ clientId: 'sec-pub', publicClient: true });
    expect((await api.get(`${base}/clients/${pub}/client-secret`)).body).toEqual({ type: 'secret' });
    expect((await api.get(`${base}/clients/nope/client-secret`)).status).toBe(404);
  });

  test('client-secret-jwt secrets are 43 chars (86 with HS512)', async () => {
    const id = await create({ clientId: 'jwt-sec', clientAuthenticatorType: 'client-secret-jwt' });
    expect((await api.get(`${base}/clients/${id}/client-secret`)).body.value).toHaveLength(43);
    await api.put(`${base}/clients/${id}`, { attributes: { 'token.endpoint.auth.signing.alg': 'HS512' } }).expect(204);
    expect((await api.post(`${base}/clients/${id}/client-secret`)).body.value).toHaveLength(86);
  });

  test('no rotation without a policy: rotated → 404; DELETE rotated → 204', async () => {
    const id = await create({ clientId: 'norot' });
    await api.post(`${base}/clients/${id}/client-secret`).expect(200);
    const rotated = await api.get(`${base}/clients/${id}/client-secret/rotated`);
    expect(rotated.status).toBe(404);
    expect(rotated.body).toEqual({ error: 'Client does not have a rotated secret' });
    expect((await api.delete(`${base}/clients/${id}/client-secret/rotated`)).status).toBe(204);
  });

  test('with a secret-rotation policy the old secret stays valid as the rotated one until invalidated', async () => {
    const profiles = [{ name: 'rot', executors: [{ executor: 'secret-rotation', configuration: { 'rotated-expiration-period': 600 } }] }];
    await api.put(`${base}/client-policies/profiles`, { profiles }).expect(204);
    await api
      .put(`${base}/client-policies/policies`, { policies: [{ name: 'rot-policy', enabled: true, conditions: [], profiles: ['rot'] }] })
      .expect(204);
    try {
      const id = await create({ clientId: 'rot', serviceAccountsEnabled: true });
      const old = (await api.get(`${base}/clients/${id}/client-secret`)).body.value;
      const fresh = (await api.post(`${base}/clients/${id}/client-secret`)).body.value;
      expect((await api.get(`${base}/clients/${id}/client-secret/rotated`)).body).toEqual({ type: 'secret', value: old });
      expect((await token('rot', old)).status).toBe(200);
      expect((await token('rot', fresh)).status).toBe(200);
      await api.delete(`${base}/clients/${id}/client-secret/rotated`).expect(204);
      expect((await api.get(`${base}/clients/${id}/client-secret/rotated`)).status).toBe(404);
      expect((await token('rot', old)).status).toBe(401);
    } finally {
      await api.put(`${base}/client-policies/policies`, { policies: [] }).expect(204);
      await api.put(`${base}/client-policies/profiles`, { profiles: [] }).expect(204);
    }
  });
});

describe('registration access token', () => {
  test('returns the client with a signed HS512 token; a new one replaces the stored jti', async () => {
    const id = await create({ clientId: 'reg' });
    const res = await api.post(`${base}/clients/${id}/registration-access-token`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, clientId: 'reg' });
    const t = res.body.registrationAccessToken as string;
    expect(decodeProtectedHeader(t)).toMatchObject({ alg: 'HS512', typ: 'JWT' });
    const claims = decodeJwt(t);
    expect(claims).toMatchObject({
      typ: 'RegistrationAccessToken',
      exp: 0,
      registration_auth: 'authenticated',
      iss: `http://localhost:8080/realms/${R}`,
    });
    const again = await api.post(`${base}/clients/${id}/registration-access-token`);
    const jti2 = decodeJwt(again.body.registrationAccessToken).jti;
    expect(jti2).not.toBe(claims.jti);
    // Read from the table: the stored token id is never shown by the API.
    expect((await ts.db.models.Client.findByPk(id))?.settings.registrationAccessTokenJti).toBe(jti2);
    expect((await api.get(`${base}/clients/${id}`)).body).not.toHaveProperty('registrationAccessToken');
  });
});

describe('default and optional client scopes', () => {
  test('list {id, name}; PUT/DELETE link and unlink; unknown scope → 404; already linked ignored', async () => {
    const id = await create({ clientId: 'scopes' });
    const defaults = await api.get(`${base}/clients/${id}/default-client-scopes`);
    expect(defaults.status).toBe(200);
    expect(defaults.body.map((s: { name: string }) => s.name).sort()).toEqual(['acr', 'basic', 'email', 'profile', 'roles', 'web-origins']);
    expect(Object.keys(defaults.body[0]).sort()).toEqual(['id', 'name']);
    const optional = (await api.get(`${base}/clients/${id}/optional-client-scopes`)).body;
    const phone = optional.find((s: { name: string }) => s.name === 'phone');
    expect((await api.delete(`${base}/clients/${id}/default-client-scopes/${phone.id}`)).status).toBe(204);
    expect((await api.get(`${base}/clients/${id}/optional-client-scopes`)).body.map((s: { name: string }) => s.name)).not.toContain(
      'phone',
    );
    expect((await api.put(`${base}/clients/${id}/default-client-scopes/${phone.id}`)).status).toBe(204);
    expect((await api.get(`${base}/clients/${id}/default-client-scopes`)).body.map((s: { name: string }) => s.name)).toContain('phone');
    // already linked as default: PUT optional is ignored (not moved)
    await api.put(`${base}/clients/${id}/optional-client-scopes/${phone.id}`).expect(204);
    expect((await api.get(`${base}/clients/${id}/optional-client-scopes`)).body.map((s: { name: string }) => s.name)).not.toContain(
      'phone',
    );
    const missing = await api.put(`${base}/clients/${id}/default-client-scopes/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Client scope not found' });
    expect((await api.delete(`${base}/clients/${id}/optional-client-scopes/nope`)).status).toBe(404);
  });

  test('a scope of another protocol is silently not linked; dynamic scope as default → 400', async () => {
    const id = await create({ clientId: 'scopes2' });
    const roleList = (await api.get(`${base}/client-scopes`)).body.find((s: { name: string }) => s.name === 'role_list');
    await api.put(`${base}/clients/${id}/default-client-scopes/${roleList?.id}`).expect(204);
    expect((await api.get(`${base}/clients/${id}/default-client-scopes`)).body.map((s: { name: string }) => s.name)).not.toContain(
      'role_list',
    );
    // Written to the table: the API refuses to create a dynamic scope (the feature is off), the check guards old data.
    const dyn = await ts.db.models.ClientScope.create({
      id: 'dyn-scope-id',
      realmId: await realmIdOf(api, R),
      name: 'dyn',
      protocol: 'openid-connect',
      attributes: { 'is.dynamic.scope': 'true' },
    });
    const res = await api.put(`${base}/clients/${id}/default-client-scopes/${dyn.id}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_request',
      error_description: "Can't assign a Dynamic Scope to a Client as a Default Scope",
    });
    expect((await api.put(`${base}/clients/${id}/optional-client-scopes/${dyn.id}`)).status).toBe(204);
  });
});

describe('nodes, management permissions', () => {
  test('register, list in registeredNodes, delete; errors', async () => {
    const id = await create({ clientId: 'nodes' });
    expect((await api.post(`${base}/clients/${id}/nodes`, { node: '127.0.0.1' })).status).toBe(204);
    const c = (await api.get(`${base}/clients/${id}`)).body;
    expect(c.registeredNodes).toEqual({ '127.0.0.1': expect.any(Number) });
    expect((await api.get(`${base}/clients/${id}/test-nodes-available`)).body).toEqual({});
    const none = await api.post(`${base}/clients/${id}/nodes`, {});
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ error: 'Node not found in params' });
    expect((await api.post(`${base}/clients/${id}/nodes`, { node: 'a/b' })).body).toEqual({ error: "Character '/' not allowed." });
    expect((await api.delete(`${base}/clients/${id}/nodes/127.0.0.1`)).status).toBe(204);
    expect((await api.get(`${base}/clients/${id}`)).body).not.toHaveProperty('registeredNodes');
    const gone = await api.delete(`${base}/clients/${id}/nodes/127.0.0.1`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: 'Client does not have node ' });
  });

  test('management/permissions: off until enabled, then a reference with the client scopes (ADR 26)', async () => {
    const id = await create({ clientId: 'fgap' });
    const res = await api.get(`${base}/clients/${id}/management/permissions`);
    expect([res.status, res.body]).toEqual([200, { enabled: false }]);
    const put = await api.put(`${base}/clients/${id}/management/permissions`, { enabled: true });
    expect(put.status).toBe(200);
    expect(Object.keys(put.body.scopePermissions).sort()).toEqual(
      ['configure', 'manage', 'map-roles', 'map-roles-client-scope', 'map-roles-composite', 'token-exchange', 'view'].sort(),
    );
  });
});

describe('installation providers', () => {
  test('keycloak-oidc-keycloak-json: Keycloak output as text/plain', async () => {
    const id = await create({ clientId: 'inst' });
    const secret = (await api.get(`${base}/clients/${id}/client-secret`)).body.value;
    const res = await api.get(`${base}/clients/${id}/installation/providers/keycloak-oidc-keycloak-json`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toBe(
      `{\n  "realm" : "${R}",\n  "auth-server-url" : "http://localhost:8080/",\n  "ssl-required" : "external",\n  "resource" : "inst",\n  "credentials" : {\n    "secret" : "${secret}"\n  },\n  "confidential-port" : 0\n}`,
    );
    await api.post(`${base}/clients/${id}/roles`, { name: 'r' }).expect(201);
    const withRoles = JSON.parse((await api.get(`${base}/clients/${id}/installation/providers/keycloak-oidc-keycloak-json`)).text);
    expect(withRoles).toMatchObject({ 'verify-token-audience': true, 'use-resource-role-mappings': true });
    const pub = await create({ clientId: 'inst-pub', publicClient: true });
    const pubJson = JSON.parse((await api.get(`${base}/clients/${pub}/installation/providers/keycloak-oidc-keycloak-json`)).text);
    expect(pubJson).toEqual({
      realm: R,
      'auth-server-url': 'http://localhost:8080/',
      'ssl-required': 'external',
      resource: 'inst-pub',
      'public-client': true,
      'confidential-port': 0,
    });
  });

  test('other providers produce text; unknown → 404 Unknown Provider', async () => {
    const id = await create({ clientId: 'inst2' });
    for (const p of [
      'keycloak-oidc-jboss-subsystem',
      'keycloak-oidc-jboss-subsystem-cli',
      'keycloak-saml',
      'saml-sp-descriptor',
      'keycloak-saml-subsystem',
      'keycloak-saml-subsystem-cli',
    ]) {
      const res = await api.get(`${base}/clients/${id}/installation/providers/${p}`);
      expect(res.status).toBe(200);
      expect(res.text.length).toBeGreaterThan(10);
    }
    expect((await api.get(`${base}/clients/${id}/installation/providers/keycloak-oidc-jboss-subsystem`)).text).toContain(
      '<resource>inst2</resource>',
    );
    const unknown = await api.get(`${base}/clients/${id}/installation/providers/nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Unknown Provider' });
  });
});

describe('client-description-converter', () => {
  const post = (body: string, type = 'application/json') =>
    api.post(`${base}/client-description-converter`).set('Content-Type', type).send(body);

  test('OIDC registration JSON → ClientRepresentation (not stored)', async () => {
    const res = await post(
      JSON.stringify({
        client_id: 'dcr',
        client_name: 'DCR',
        redirect_uris: ['https://d.example.com/cb'],
        grant_types: ['authorization_code', 'client_credentials'],
        token_endpoint_auth_method: 'client_secret_post',
        scope: 'phone address',
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      clientId: 'dcr',
      name: 'DCR',
      redirectUris: ['https://d.example.com/cb'],
      protocol: 'openid-connect',
      standardFlowEnabled: true,
      serviceAccountsEnabled: true,
      directAccessGrantsEnabled: false,
      publicClient: false,
      clientAuthenticatorType: 'client-secret',
      optionalClientScopes: ['phone', 'address'],
    });
    expect((await api.get(`${base}/clients?clientId=dcr`)).body).toEqual([]);
    expect((await post(JSON.stringify({ clientId: 'kc', name: 'n' }))).body).toEqual({ clientId: 'kc', name: 'n' });
  });

  test('SAML EntityDescriptor XML → SAML client', async () => {
    const xml = `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.example.com/saml">
  <md:SPSSODescriptor WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://sp.example.com/slo"/>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://sp.example.com/acs" index="1"/>
    <md:AttributeConsumingService index="0">
      <md:RequestedAttribute Name="mail" FriendlyName="email" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic"/>
    </md:AttributeConsumingService>
  </md:SPSSODescriptor>
</md:EntityDescriptor>`;
    const res = await post(xml, 'application/xml');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      clientId: 'https://sp.example.com/saml',
      protocol: 'saml',
      fullScopeAllowed: true,
      redirectUris: ['https://sp.example.com/acs'],
      attributes: {
        'saml.assertion.signature': 'true',
        saml_single_logout_service_url_redirect: 'https://sp.example.com/slo',
        saml_assertion_consumer_url_post: 'https://sp.example.com/acs',
        saml_name_id_format: 'email',
        'saml.server.signature': 'true',
      },
      protocolMappers: [
        {
          name: 'mail',
          protocol: 'saml',
          protocolMapper: 'saml-user-attribute-mapper',
          config: { 'attribute.name': 'mail', 'friendly.name': 'email', 'attribute.nameformat': 'Basic' },
        },
      ],
    });
  });

  test('anything else → 400 Unsupported format', async () => {
    const res = await post('hello', 'text/plain');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Unsupported format' });
  });
});
