import { realmAdmin } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { type GqlError, USER_ERRORS, gqlClient, type Json, ok, startWithRealm, userErrors } from './gql';

/** GraphQL over the identity provider services: the same data and errors as REST, mappers batched. */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqlidp';
const base = `/admin/realms/${R}/identity-provider`;

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
  for (const alias of ['g1', 'g2', 'g3']) {
    expect((await api.post(`${base}/instances`, { alias, providerId: 'github', config: { clientSecret: 'hidden' } })).status).toBe(201);
    for (const name of ['m1', 'm2']) {
      const body = { name, identityProviderMapper: 'oidc-hardcoded-role-idp-mapper', config: { role: name } };
      expect((await api.post(`${base}/instances/${alias}/mappers`, body)).status).toBe(201);
    }
  }
});
afterAll(() => ts.close());

describe('identity providers over GraphQL', () => {
  test('Realm.identityProviders equals GET /instances; mappers are batched (bounded SQL)', async () => {
    const q = `query($r: String!) { realm(name: $r) { identityProviders { alias providerId config representation
      mappers { id name identityProviderAlias identityProviderMapper config } } } }`;
    const { result, count, statements } = await ts.countSql(() => gql(q, { r: R }));
    const idps = (ok(result).realm as Json).identityProviders as Json[];
    expect(idps.map((p) => p.representation)).toEqual((await api.get(`${base}/instances`)).body);
    expect(idps[0].config.clientSecret).toBe('**********');
    for (const p of idps) {
      expect(p.mappers).toEqual((await api.get(`${base}/instances/${p.alias}/mappers`)).body);
      expect(p.mappers).toHaveLength(2);
    }
    expect(count).toBeLessThan(12);
    expect(statements.filter((s) => s.includes('idp_mapper'))).toHaveLength(1);
  });

  test('identityProvider query with mapper types; unknown alias gives the REST error', async () => {
    const data = ok(await gql(`query($r: String!) { identityProvider(realm: $r, alias: "g1") { alias mapperTypes } }`, { r: R }))
      .identityProvider as Json;
    expect(data.mapperTypes).toEqual((await api.get(`${base}/instances/g1/mapper-types`)).body);
    const missing = await gql(`query($r: String!) { identityProvider(realm: $r, alias: "nope") { alias } }`, { r: R });
    expect(missing.errors?.[0].extensions.http?.status).toBe(404);
  });

  test('mutations: create, update, mapper create/update/delete, delete; errors as REST', async () => {
    const created = ok(
      await gql(
        `mutation($r: String!, $in: IdentityProviderCreateInput!) { createIdentityProvider(realm: $r, input: $in) { identityProvider { alias providerId displayName config } } }`,
        { r: R, in: { alias: 'gql-oidc', providerId: 'oidc', displayName: 'G', config: { clientId: 'c' } } },
      ),
    ).createIdentityProvider.identityProvider as Json;
    expect(created).toMatchObject({
      alias: 'gql-oidc',
      providerId: 'oidc',
      displayName: 'G',
      config: { clientId: 'c', syncMode: 'LEGACY' },
    });
    const dup = await gql(
      `mutation($r: String!) { createIdentityProvider(realm: $r, input: { alias: "gql-oidc", providerId: "oidc" }) { identityProvider { alias } ${USER_ERRORS} } }`,
      {
        r: R,
      },
    );
    expect(userErrors(dup, 'createIdentityProvider')).toEqual([
      { field: ['input', 'alias'], code: 'CONFLICT', message: 'Identity Provider gql-oidc already exists' },
    ]);
    const updated = ok(
      await gql(
        `mutation($r: String!) { updateIdentityProvider(realm: $r, alias: "gql-oidc", input: { alias: "gql-oidc", providerId: "oidc", trustEmail: true }) { identityProvider { trustEmail displayName } } }`,
        { r: R },
      ),
    ).updateIdentityProvider.identityProvider as Json;
    expect(updated).toEqual({ trustEmail: true, displayName: null });
    const mapper = ok(
      await gql(
        `mutation($r: String!) { createIdentityProviderMapper(realm: $r, alias: "gql-oidc", input: { name: "gm", identityProviderMapper: "oidc-user-attribute-idp-mapper", config: { claim: "c" } }) { identityProviderMapper { id name identityProviderAlias config } } }`,
        { r: R },
      ),
    ).createIdentityProviderMapper.identityProviderMapper as Json;
    expect(mapper).toMatchObject({ name: 'gm', identityProviderAlias: 'gql-oidc', config: { claim: 'c' } });
    const changed = ok(
      await gql(
        `mutation($r: String!, $id: ID!) { updateIdentityProviderMapper(realm: $r, alias: "gql-oidc", id: $id, input: { config: { claim: "d" } }) { identityProviderMapper { name config } } }`,
        { r: R, id: mapper.id },
      ),
    ).updateIdentityProviderMapper.identityProviderMapper as Json;
    expect(changed).toEqual({ name: 'gm', config: { claim: 'd' } });
    expect(
      ok(
        await gql(`mutation($r: String!, $id: ID!) { deleteIdentityProviderMapper(realm: $r, alias: "gql-oidc", id: $id) { ok } }`, {
          r: R,
          id: mapper.id,
        }),
      ),
    ).toEqual({ deleteIdentityProviderMapper: { ok: true } });
    expect(ok(await gql(`mutation($r: String!) { deleteIdentityProvider(realm: $r, alias: "gql-oidc") { ok } }`, { r: R }))).toEqual({
      deleteIdentityProvider: { ok: true },
    });
    expect((await api.get(`${base}/instances/gql-oidc`)).status).toBe(404);
  });

  test('importIdentityProviderConfig mutation returns the config map', async () => {
    const url = `${await ts.listen()}/realms/master/.well-known/openid-configuration`;
    const data = ok(
      await gql(
        `mutation($r: String!, $u: String!) { importIdentityProviderConfig(realm: $r, providerId: "oidc", fromUrl: $u) { result } }`,
        {
          r: R,
          u: url,
        },
      ),
    );
    expect(data.importIdentityProviderConfig.result).toMatchObject({
      issuer: 'http://localhost:8080/realms/master',
      metadataDescriptorUrl: url,
    });
  });

  test('a caller without identity-provider roles gets 403', async () => {
    await realmAdmin(ts, R, 'gql-noidp', ['view-realm']);
    const other = gqlClient(ts, { realm: R, username: 'gql-noidp', password: 'pw' });
    const res = await other(`query($r: String!) { realm(name: $r) { identityProviders { alias } } }`, { r: R });
    expect(res.errors?.[0].extensions.http?.status).toBe(403);
  });
});

describe('identity provider types, export, reload-keys, one mapper, file import (GraphQL twins of REST)', () => {
  const SAML_METADATA = `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://saml.example.org/idp">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://saml.example.org/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
  const FACTORY = `query($r: String!, $p: String!) { identityProviderFactory(realm: $r, providerId: $p) {
    id name helpText configMetadata configProperties { name label helpText type defaultValue options secret required readOnly } } }`;
  const EXPORT = 'query($r: String!, $a: String!) { identityProviderExport(realm: $r, alias: $a) { mediaType content json } }';
  const RELOAD = 'mutation($r: String!, $a: String!) { reloadIdentityProviderKeys(realm: $r, alias: $a) { ok } }';
  const IMPORT_FILE =
    'mutation($r: String!, $p: String!, $f: String!) { importIdentityProviderConfigFile(realm: $r, providerId: $p, file: $f) { result } }';

  /** A GraphQL error carries the REST status and body. */
  const expectSameError = (errors: GqlError[] | undefined, rest: { status: number; body: unknown }) => {
    expect(errors?.[0].extensions.http?.status).toBe(rest.status);
    expect(errors?.[0].extensions.keycloak).toEqual(rest.body);
  };
  /** Drops the nulls GraphQL adds for fields REST leaves out. */
  const noNulls = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(noNulls)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (x === null ? [] : [[k, noNulls(x)]])))
        : v;

  beforeAll(async () => {
    const idp = { alias: 'gsml', providerId: 'saml', config: { entityId: 'https://sp.example.org', wantAuthnRequestsSigned: 'true' } };
    expect((await api.post(`${base}/instances`, idp)).status).toBe(201);
  });
  // the suite above expects every provider to have two mappers
  afterAll(async () => {
    expect((await api.delete(`${base}/instances/gsml`)).status).toBe(204);
  });

  test('identityProviderFactory equals GET /providers/{id}; unknown provider the same 400', async () => {
    for (const p of ['saml', 'github', 'oidc']) {
      const data = ok(await gql(FACTORY, { r: R, p })).identityProviderFactory;
      expect(noNulls(data)).toEqual(noNulls((await api.get(`${base}/providers/${p}`)).body));
    }
    const bad = await gql(FACTORY, { r: R, p: 'nope' });
    expect(bad.data?.identityProviderFactory).toBeNull();
    expectSameError(bad.errors, await api.get(`${base}/providers/nope`));
  });

  test('identityProviderExport: the SAML SP metadata of GET .../export; non-SAML the same 404', async () => {
    const rest = await api.get(`${base}/instances/gsml/export`);
    expect(rest.status).toBe(200);
    const file = ok(await gql(EXPORT, { r: R, a: 'gsml' })).identityProviderExport;
    expect(file).toEqual({ mediaType: rest.headers['content-type'].split(';')[0], content: rest.text, json: null });
    expect(file.content).toContain('entityID="https://sp.example.org"');
    expectSameError((await gql(EXPORT, { r: R, a: 'g1' })).errors, await api.get(`${base}/instances/g1/export`));
    expectSameError((await gql(EXPORT, { r: R, a: 'missing' })).errors, await api.get(`${base}/instances/missing/export`));
  });

  test('reloadIdentityProviderKeys answers what GET .../reload-keys answers', async () => {
    const rest = await api.get(`${base}/instances/g1/reload-keys`);
    expect(rest.status).toBe(200);
    expect(ok(await gql(RELOAD, { r: R, a: 'g1' })).reloadIdentityProviderKeys.ok).toBe(rest.body);
    expectSameError((await gql(RELOAD, { r: R, a: 'missing' })).errors, await api.get(`${base}/instances/missing/reload-keys`));
  });

  test('IdentityProvider.mapper(id) equals GET .../mappers/{id}; unknown id the same 404', async () => {
    const [first] = (await api.get(`${base}/instances/g2/mappers`)).body as Json[];
    const q =
      'query($r: String!, $id: ID!) { identityProvider(realm: $r, alias: "g2") { mapper(id: $id) { id name identityProviderAlias identityProviderMapper config } } }';
    expect(ok(await gql(q, { r: R, id: first.id })).identityProvider.mapper).toEqual(
      (await api.get(`${base}/instances/g2/mappers/${first.id}`)).body,
    );
    expectSameError((await gql(q, { r: R, id: 'nope' })).errors, await api.get(`${base}/instances/g2/mappers/nope`));
  });

  test('importIdentityProviderConfigFile equals the multipart POST /import-config', async () => {
    const rest = await api.post(`${base}/import-config`).field('providerId', 'saml').attach('file', Buffer.from(SAML_METADATA), 'idp.xml');
    expect(rest.status).toBe(200);
    const data = ok(await gql(IMPORT_FILE, { r: R, p: 'saml', f: SAML_METADATA })).importIdentityProviderConfigFile.result;
    expect(data).toEqual(rest.body);
    expect(data).toMatchObject({ idpEntityId: 'https://saml.example.org/idp', syncMode: 'LEGACY' });
  });

  test('realmOnly: the realm providers, as GET /instances?realmOnly=true', async () => {
    const q = 'query($r: String!) { realm(name: $r) { identityProviders(realmOnly: true) { representation } } }';
    const data = ok(await gql(q, { r: R })).realm as Json;
    expect(data.identityProviders.map((p: Json) => p.representation)).toEqual((await api.get(`${base}/instances?realmOnly=true`)).body);
  });

  test('FORBIDDEN: view-identity-providers reads types, exports and mappers, but cannot reload keys or import', async () => {
    await realmAdmin(ts, R, 'gql-idp-viewer', ['view-identity-providers']);
    const viewer = gqlClient(ts, { realm: R, username: 'gql-idp-viewer', password: 'pw' });
    expect(ok(await viewer(FACTORY, { r: R, p: 'github' })).identityProviderFactory.id).toBe('github');
    expect(ok(await viewer(EXPORT, { r: R, a: 'gsml' })).identityProviderExport.mediaType).toBe('application/xml');
    for (const res of [await viewer(RELOAD, { r: R, a: 'g1' }), await viewer(IMPORT_FILE, { r: R, p: 'saml', f: SAML_METADATA })]) {
      expect(res.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', http: { status: 403 } });
    }
    await realmAdmin(ts, R, 'gql-idp-nobody', ['view-realm']);
    const nobody = gqlClient(ts, { realm: R, username: 'gql-idp-nobody', password: 'pw' });
    expect((await nobody(FACTORY, { r: R, p: 'github' })).errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect((await nobody(EXPORT, { r: R, a: 'gsml' })).errors?.[0].extensions.code).toBe('FORBIDDEN');
  });
});
