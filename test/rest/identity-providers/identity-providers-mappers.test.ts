import { type Server, createServer } from 'node:http';
import { adminEvents, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/** Identity provider mappers, mapper types, import-config and export (config reference §8.2–8.4). */
let ts: TestServer;
let api: AdminApi;
let aux: Server;
let auxUrl: string;
const R = 'idpmappers';
const base = `/admin/realms/${R}/identity-provider`;

const SAML_METADATA = `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://saml.example.org/idp">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>
      MIIBcert
    </ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://saml.example.org/slo"/>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://saml.example.org/sso-redirect"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://saml.example.org/sso-post"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;

const OIDC_DISCOVERY = {
  issuer: 'https://op.example.org',
  authorization_endpoint: 'https://op.example.org/authorize',
  token_endpoint: 'https://op.example.org/token',
  userinfo_endpoint: 'https://op.example.org/userinfo',
  end_session_endpoint: 'https://op.example.org/logout',
};

beforeAll(async () => {
  ({ ts, api } = await realmServer(R, { adminEventsEnabled: true }));
  for (const [alias, providerId] of [
    ['kc', 'keycloak-oidc'],
    ['sml', 'saml'],
    ['gh', 'github'],
  ]) {
    expect((await api.post(`${base}/instances`, { alias, providerId })).status).toBe(201);
  }
  // A metadata server: /saml serves IdP metadata, /slow never answers, /broken is not JSON.
  aux = createServer((req, res) => {
    if (req.url === '/saml') res.end(SAML_METADATA);
    else if (req.url === '/broken') res.end('not json');
    else if (req.url === '/oidc') res.end(JSON.stringify(OIDC_DISCOVERY));
    else if (req.url === '/slow') return;
    else res.writeHead(404).end();
  });
  await new Promise<void>((ok) => aux.listen(0, '127.0.0.1', () => ok()));
  const addr = aux.address();
  auxUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});
afterAll(async () => {
  aux.closeAllConnections();
  await new Promise<void>((ok) => aux.close(() => ok()));
  await ts.close();
});

describe('identity provider mappers', () => {
  test('CRUD: 201 + Location with the id, list, get, PUT 204 replaces config, DELETE 204, admin events', async () => {
    const res = await api.post(`${base}/instances/kc/mappers`, {
      name: 'hc-role',
      identityProviderAlias: 'ignored',
      identityProviderMapper: 'oidc-hardcoded-role-idp-mapper',
      config: { role: 'admin', syncMode: 'INHERIT', drop: '' },
    });
    expect(res.status).toBe(201);
    expect(res.text).toBe('');
    const id = res.headers.location.split('/').pop() as string;
    expect(res.headers.location).toBe(`http://localhost:8080${base}/instances/kc/mappers/${id}`);
    const expected = {
      id,
      name: 'hc-role',
      identityProviderAlias: 'kc',
      identityProviderMapper: 'oidc-hardcoded-role-idp-mapper',
      config: { role: 'admin', syncMode: 'INHERIT' },
    };
    expect((await api.get(`${base}/instances/kc/mappers/${id}`)).body).toEqual(expected);
    expect((await api.get(`${base}/instances/kc/mappers`)).body).toEqual([expected]);
    const put = await api.put(`${base}/instances/kc/mappers/${id}`, { ...expected, config: { role: 'other' } });
    expect(put.status).toBe(204);
    expect((await api.get(`${base}/instances/kc/mappers/${id}`)).body.config).toEqual({ role: 'other' });
    expect((await api.delete(`${base}/instances/kc/mappers/${id}`)).status).toBe(204);
    expect((await api.get(`${base}/instances/kc/mappers`)).body).toEqual([]);
    const events = await adminEvents(api, R, { resourceTypes: 'IDENTITY_PROVIDER_MAPPER' });
    expect(events.map((e) => `${e.operationType} ${e.resourcePath}`).sort()).toEqual(
      [
        `CREATE identity-provider/instances/kc/mappers/${id}`,
        `DELETE identity-provider/instances/kc/mappers/${id}`,
        `UPDATE identity-provider/instances/kc/mappers/${id}`,
      ].sort(),
    );
  });

  test('errors: duplicate name 400, missing name 400, unknown mapper 404 Model not found, mapper of another provider 404', async () => {
    const body = { name: 'same', identityProviderMapper: 'oidc-username-idp-mapper', config: {} };
    const first = await api.post(`${base}/instances/gh/mappers`, body);
    expect(first.status).toBe(201);
    const dup = await api.post(`${base}/instances/gh/mappers`, body);
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ errorMessage: "Failed to add mapper 'same' to identity provider [github]." });
    expect((await api.post(`${base}/instances/kc/mappers`, body)).status).toBe(201);
    const noName = await api.post(`${base}/instances/gh/mappers`, { identityProviderMapper: 'x' });
    expect(noName.body).toEqual({ errorMessage: "Failed to add mapper 'null' to identity provider [github]." });
    for (const res of [
      await api.get(`${base}/instances/gh/mappers/nope`),
      await api.put(`${base}/instances/gh/mappers/nope`, { name: 'n' }),
      await api.delete(`${base}/instances/gh/mappers/nope`),
      await api.get(`${base}/instances/sml/mappers/${first.headers.location.split('/').pop()}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Model not found' });
    }
    expect((await api.post(`${base}/instances/gh/mappers`, { name: 'x', bad: 1 })).status).toBe(400);
  });

  test('mapper-types: an object keyed by id, filtered by provider id', async () => {
    const kc = (await api.get(`${base}/instances/kc/mapper-types`)).body;
    expect(Array.isArray(kc)).toBe(false);
    expect(Object.keys(kc)).toEqual(
      expect.arrayContaining([
        'oidc-hardcoded-role-idp-mapper',
        'oidc-role-idp-mapper',
        'keycloak-oidc-role-to-role-idp-mapper',
        'oidc-username-idp-mapper',
      ]),
    );
    expect(kc['saml-role-idp-mapper']).toBeUndefined();
    expect(kc['oidc-username-idp-mapper']).toMatchObject({
      id: 'oidc-username-idp-mapper',
      name: 'Username Template Importer',
      category: 'Preprocessor',
      properties: expect.arrayContaining([
        expect.objectContaining({ name: 'template', type: 'String', defaultValue: '${ALIAS}.${CLAIM.preferred_username}' }),
        expect.objectContaining({
          name: 'target',
          type: 'List',
          defaultValue: 'LOCAL',
          options: ['LOCAL', 'BROKER_ID', 'BROKER_USERNAME'],
        }),
      ]),
    });
    const saml = (await api.get(`${base}/instances/sml/mapper-types`)).body;
    expect(Object.keys(saml).sort()).toEqual(
      [
        'hardcoded-attribute-idp-mapper',
        'hardcoded-user-session-attribute-idp-mapper',
        'oidc-hardcoded-group-idp-mapper',
        'oidc-hardcoded-role-idp-mapper',
        'saml-advanced-group-idp-mapper',
        'saml-advanced-role-idp-mapper',
        'saml-role-idp-mapper',
        'saml-user-attribute-idp-mapper',
        'saml-username-idp-mapper',
        'saml-xpath-attribute-idp-mapper',
      ].sort(),
    );
    const gh = (await api.get(`${base}/instances/gh/mapper-types`)).body;
    expect(gh['github-user-attribute-mapper']).toMatchObject({ category: 'Attribute Importer', name: 'Attribute Importer' });
    expect(gh['oidc-role-idp-mapper']).toBeUndefined();
  });
});

describe('import-config and export', () => {
  test('OIDC: the discovery document becomes the config map plus metadataDescriptorUrl', async () => {
    const url = `${await ts.listen()}/realms/master/.well-known/openid-configuration`;
    const res = await api.post(`${base}/import-config`, { providerId: 'oidc', fromUrl: url });
    expect(res.status).toBe(200);
    const oidc = 'http://localhost:8080/realms/master/protocol/openid-connect';
    // idserver's own discovery document: another idserver (or Keycloak) realm can be its identity provider.
    expect(res.body).toEqual({
      authorizationUrl: `${oidc}/auth`,
      userInfoUrl: `${oidc}/userinfo`,
      logoutUrl: `${oidc}/logout`,
      tokenUrl: `${oidc}/token`,
      issuer: 'http://localhost:8080/realms/master',
      jwksUrl: `${oidc}/certs`,
      useJwksUrl: 'true',
      validateSignature: 'true',
      metadataDescriptorUrl: url,
    });
    // userinfo and end-session endpoints map too; without jwks_uri no signature settings.
    const other = await api.post(`${base}/import-config`, { providerId: 'keycloak-oidc', fromUrl: `${auxUrl}/oidc` });
    expect(other.body).toEqual({
      issuer: 'https://op.example.org',
      authorizationUrl: 'https://op.example.org/authorize',
      tokenUrl: 'https://op.example.org/token',
      userInfoUrl: 'https://op.example.org/userinfo',
      logoutUrl: 'https://op.example.org/logout',
      metadataDescriptorUrl: `${auxUrl}/oidc`,
    });
    // Social providers parse nothing.
    expect((await api.post(`${base}/import-config`, { providerId: 'github', fromUrl: `${auxUrl}/oidc` })).body).toEqual({
      metadataDescriptorUrl: `${auxUrl}/oidc`,
    });
  });

  test('SAML: IdP metadata becomes the SAML config (POST binding preferred)', async () => {
    const res = await api.post(`${base}/import-config`, { providerId: 'saml', fromUrl: `${auxUrl}/saml` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      idpEntityId: 'https://saml.example.org/idp',
      singleSignOnServiceUrl: 'https://saml.example.org/sso-post',
      singleLogoutServiceUrl: 'https://saml.example.org/slo',
      nameIDPolicyFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      postBindingAuthnRequest: 'true',
      postBindingResponse: 'true',
      postBindingLogout: 'false',
      wantAuthnRequestsSigned: 'true',
      validateSignature: 'true',
      signingCertificate: 'MIIBcert',
      enabledFromMetadata: 'true',
      metadataDescriptorUrl: `${auxUrl}/saml`,
    });
  });

  test('multipart upload: providerId + file parsed, syncMode LEGACY added; missing field 400', async () => {
    const res = await api.post(`${base}/import-config`).field('providerId', 'saml').attach('file', Buffer.from(SAML_METADATA), 'idp.xml');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ idpEntityId: 'https://saml.example.org/idp', syncMode: 'LEGACY' });
    expect(res.body.metadataDescriptorUrl).toBeUndefined();
    const missing = await api.post(`${base}/import-config`).field('providerId', 'saml');
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'HTTP 400 Bad Request' });
  });

  test('bad input: missing keys 400, bad alias 400, unreachable / not found / unparsable / hanging URL 400', async () => {
    expect((await api.post(`${base}/import-config`, { providerId: 'oidc' })).body).toEqual({ error: 'HTTP 400 Bad Request' });
    expect((await api.post(`${base}/import-config`)).status).toBe(400);
    expect((await api.post(`${base}/import-config`, { providerId: 'oidc', fromUrl: 'x', alias: 'a b' })).body).toEqual({
      error: 'Empty Space not allowed.',
    });
    expect((await api.post(`${base}/import-config`, { providerId: 'nope', fromUrl: 'http://x' })).status).toBe(400);
    for (const fromUrl of [
      'not a url',
      'file:///etc/passwd',
      'http://127.0.0.1:1/x',
      `${auxUrl}/missing`,
      `${auxUrl}/broken`,
      `${auxUrl}/slow`,
    ]) {
      const res = await api.post(`${base}/import-config`, { providerId: 'oidc', fromUrl });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errorMessage: `Could not import the configuration from ${fromUrl}` });
    }
  }, 30000);

  test('export: SAML gives the SP EntityDescriptor XML; OIDC and social are 404', async () => {
    await api.put(`${base}/instances/sml`, {
      alias: 'sml',
      providerId: 'saml',
      config: { entityId: 'https://sp.example.org', wantAuthnRequestsSigned: 'true', postBindingResponse: 'true' },
    });
    const res = await api.get(`${base}/instances/sml/export`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    const endpoint = `http://localhost:8080/realms/${R}/broker/sml/endpoint`;
    expect(res.text).toContain('entityID="https://sp.example.org"');
    expect(res.text).toContain('AuthnRequestsSigned="true"');
    expect(res.text).toContain(
      `<md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${endpoint}" index="0" isDefault="true"/>`,
    );
    expect(res.text).toMatch(/<md:KeyDescriptor use="signing">[\s\S]*<ds:X509Certificate>MII/);
    for (const [alias, providerId] of [
      ['kc', 'keycloak-oidc'],
      ['gh', 'github'],
    ]) {
      const no = await api.get(`${base}/instances/${alias}/export`);
      expect(no.status).toBe(404);
      expect(no.body).toEqual({ errorMessage: `Could not export public broker configuration for identity provider [${providerId}].` });
    }
  });

  test('reload-keys: false (no cached keys)', async () => {
    const res = await api.get(`${base}/instances/kc/reload-keys`);
    expect(res.status).toBe(200);
    expect(res.body).toBe(false);
  });
});
