import { realmAdmin } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { gqlClient, type Json, ok, startWithRealm } from './gql';

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
        `mutation($r: String!, $in: IdentityProviderInput!) { createIdentityProvider(realm: $r, input: $in) { alias providerId displayName config } }`,
        { r: R, in: { alias: 'gql-oidc', providerId: 'oidc', displayName: 'G', config: { clientId: 'c' } } },
      ),
    ).createIdentityProvider as Json;
    expect(created).toMatchObject({
      alias: 'gql-oidc',
      providerId: 'oidc',
      displayName: 'G',
      config: { clientId: 'c', syncMode: 'LEGACY' },
    });
    const dup = await gql(
      `mutation($r: String!) { createIdentityProvider(realm: $r, input: { alias: "gql-oidc", providerId: "oidc" }) { alias } }`,
      {
        r: R,
      },
    );
    expect(dup.errors?.[0].message).toBe('Identity Provider gql-oidc already exists');
    expect(dup.errors?.[0].extensions.http?.status).toBe(409);
    const updated = ok(
      await gql(
        `mutation($r: String!) { updateIdentityProvider(realm: $r, alias: "gql-oidc", input: { alias: "gql-oidc", providerId: "oidc", trustEmail: true }) { trustEmail displayName } }`,
        { r: R },
      ),
    ).updateIdentityProvider as Json;
    expect(updated).toEqual({ trustEmail: true, displayName: null });
    const mapper = ok(
      await gql(
        `mutation($r: String!) { createIdentityProviderMapper(realm: $r, alias: "gql-oidc", input: { name: "gm", identityProviderMapper: "oidc-user-attribute-idp-mapper", config: { claim: "c" } }) { id name identityProviderAlias config } }`,
        { r: R },
      ),
    ).createIdentityProviderMapper as Json;
    expect(mapper).toMatchObject({ name: 'gm', identityProviderAlias: 'gql-oidc', config: { claim: 'c' } });
    const changed = ok(
      await gql(
        `mutation($r: String!, $id: ID!) { updateIdentityProviderMapper(realm: $r, alias: "gql-oidc", id: $id, input: { config: { claim: "d" } }) { name config } }`,
        { r: R, id: mapper.id },
      ),
    ).updateIdentityProviderMapper as Json;
    expect(changed).toEqual({ name: 'gm', config: { claim: 'd' } });
    expect(
      ok(
        await gql(`mutation($r: String!, $id: ID!) { deleteIdentityProviderMapper(realm: $r, alias: "gql-oidc", id: $id) }`, {
          r: R,
          id: mapper.id,
        }),
      ),
    ).toEqual({ deleteIdentityProviderMapper: true });
    expect(ok(await gql(`mutation($r: String!) { deleteIdentityProvider(realm: $r, alias: "gql-oidc") }`, { r: R }))).toEqual({
      deleteIdentityProvider: true,
    });
    expect((await api.get(`${base}/instances/gql-oidc`)).status).toBe(404);
  });

  test('importIdentityProviderConfig mutation returns the config map', async () => {
    const url = `${await ts.listen()}/realms/master/.well-known/openid-configuration`;
    const data = ok(
      await gql(`mutation($r: String!, $u: String!) { importIdentityProviderConfig(realm: $r, providerId: "oidc", fromUrl: $u) }`, {
        r: R,
        u: url,
      }),
    );
    expect(data.importIdentityProviderConfig).toMatchObject({ issuer: 'http://localhost:8080/realms/master', metadataDescriptorUrl: url });
  });

  test('a caller without identity-provider roles gets 403', async () => {
    await realmAdmin(ts, R, 'gql-noidp', ['view-realm']);
    const other = gqlClient(ts, { realm: R, username: 'gql-noidp', password: 'pw' });
    const res = await other(`query($r: String!) { realm(name: $r) { identityProviders { alias } } }`, { r: R });
    expect(res.errors?.[0].extensions.http?.status).toBe(403);
  });
});
