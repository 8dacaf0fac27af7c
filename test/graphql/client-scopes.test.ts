import { realmAdmin } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { USER_ERRORS, gqlClient, type Json, ok, restSpelling, startWithRealm, userErrors } from './gql';

/** GraphQL over the client-scope services: the same data and errors as REST, nested fields loader-batched. */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqlscopes';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
  expect((await api.post(`${base}/roles`, { name: 'gql-role' })).status).toBe(201);
});
afterAll(() => ts.close());

const SCOPE_FIELDS =
  'id name description protocol attributes protocolMappers { id name protocol protocolMapper consentRequired config } representation';

describe('client scopes over GraphQL', () => {
  test('Realm.clientScopes equals GET /client-scopes, with mappers and scope mappings', async () => {
    const data = ok(
      await gql(`query($r: String!) { realm(name: $r) { clientScopes { ${SCOPE_FIELDS} scopeMappings { realmMappings { name } } } } }`, {
        r: R,
      }),
    );
    const rest = (await api.get(`${base}/client-scopes`)).body;
    const scopes = (data.realm as Json).clientScopes as Json[];
    expect(scopes.map((s) => s.representation)).toEqual(rest);
    const profile = scopes.find((s) => s.name === 'profile') as Json;
    expect(profile.protocolMappers).toHaveLength(14);
    const offline = scopes.find((s) => s.name === 'offline_access') as Json;
    expect(offline.scopeMappings.realmMappings.map((r: Json) => r.name)).toEqual(['offline_access']);
  });

  test('nested fields are batched: a bounded number of SQL statements', async () => {
    const q = `query($r: String!) { realm(name: $r) { clientScopes { name protocolMappers { name } scopeMappings { realmMappings { name } } } } }`;
    const { count } = await ts.countSql(() => gql(q, { r: R }));
    expect(count).toBeLessThan(30);
  });

  test('mutations: scope CRUD, mappers, scope mappings, realm default lists', async () => {
    const created = ok(
      await gql(
        `mutation($r: String!, $in: ClientScopeCreateInput!) { createClientScope(realm: $r, input: $in) { clientScope { id name protocol attributes } } }`,
        {
          r: R,
          in: { name: 'gql-scope', protocol: 'OPENID_CONNECT', attributes: { 'include.in.token.scope': 'true' } },
        },
      ),
    ).createClientScope.clientScope as Json;
    expect(created).toMatchObject({ name: 'gql-scope', protocol: 'OPENID_CONNECT' });
    const id = created.id as string;
    const updated = ok(
      await gql(
        `mutation($r: String!, $id: ID!) { updateClientScope(realm: $r, id: $id, input: { name: "gql-scope-2", description: "d" }) { clientScope { name description } } }`,
        { r: R, id },
      ),
    );
    expect(updated.updateClientScope.clientScope).toEqual({ name: 'gql-scope-2', description: 'd' });

    const mapper = ok(
      await gql(
        `mutation($r: String!, $id: ID!, $in: ProtocolMapperCreateInput!) { createProtocolMapper(realm: $r, owner: CLIENT_SCOPE, ownerId: $id, input: $in) { protocolMapper { id name protocolMapper config } } }`,
        {
          r: R,
          id,
          in: {
            name: 'hc',
            protocol: 'OPENID_CONNECT',
            protocolMapper: 'oidc-hardcoded-claim-mapper',
            config: { 'claim.name': 'c', 'claim.value': 'v' },
          },
        },
      ),
    ).createProtocolMapper.protocolMapper as Json;
    expect(mapper).toMatchObject({
      name: 'hc',
      protocolMapper: 'oidc-hardcoded-claim-mapper',
      config: { 'claim.name': 'c', 'claim.value': 'v' },
    });
    expect((await api.get(`${base}/client-scopes/${id}/protocol-mappers/models/${mapper.id}`)).body.name).toBe('hc');
    const dup = await gql(
      `mutation($r: String!, $id: ID!, $in: ProtocolMapperCreateInput!) { createProtocolMapper(realm: $r, owner: CLIENT_SCOPE, ownerId: $id, input: $in) { protocolMapper { id } ${USER_ERRORS} } }`,
      { r: R, id, in: { name: 'hc', protocol: 'OPENID_CONNECT', protocolMapper: 'oidc-hardcoded-claim-mapper', config: {} } },
    );
    expect(userErrors(dup, 'createProtocolMapper')).toMatchObject([{ field: ['input', 'name'], code: 'CONFLICT' }]);
    const upd = ok(
      await gql(
        `mutation($r: String!, $id: ID!, $m: ID!, $in: ProtocolMapperUpdateInput!) { updateProtocolMapper(realm: $r, owner: CLIENT_SCOPE, ownerId: $id, id: $m, input: $in) { protocolMapper { name } } }`,
        {
          r: R,
          id,
          m: mapper.id,
          in: { name: 'hc2', protocol: 'OPENID_CONNECT', protocolMapper: 'oidc-hardcoded-claim-mapper', config: {} },
        },
      ),
    );
    expect(upd.updateProtocolMapper.protocolMapper).toEqual({ name: 'hc2' });
    const added = ok(
      await gql(
        `mutation($r: String!, $id: ID!, $in: [ProtocolMapperCreateInput!]!) { addProtocolMappers(realm: $r, owner: CLIENT_SCOPE, ownerId: $id, input: $in) { protocolMappers { name } } }`,
        {
          r: R,
          id,
          in: [{ name: 'full', protocol: 'OPENID_CONNECT', protocolMapper: 'oidc-full-name-mapper', config: {} }],
        },
      ),
    );
    expect((added.addProtocolMappers.protocolMappers as Json[]).map((m) => m.name).sort()).toEqual(['full', 'hc2']);
    expect(
      ok(
        await gql(
          `mutation($r: String!, $id: ID!, $m: ID!) { deleteProtocolMapper(realm: $r, owner: CLIENT_SCOPE, ownerId: $id, id: $m) { ok } }`,
          { r: R, id, m: mapper.id },
        ),
      ).deleteProtocolMapper.ok,
    ).toBe(true);

    const role = (await api.get(`${base}/roles/gql-role`)).body;
    const mapped = ok(
      await gql(
        `mutation($r: String!, $id: ID!, $roles: [RoleInput!]!) { addRealmScopeMappings(realm: $r, owner: CLIENT_SCOPE, ownerId: $id, roles: $roles) { roles { name } } }`,
        {
          r: R,
          id,
          roles: [{ id: role.id, name: role.name }],
        },
      ),
    );
    expect(mapped.addRealmScopeMappings.roles).toEqual([{ name: 'gql-role' }]);
    expect((await api.get(`${base}/client-scopes/${id}/scope-mappings/realm`)).body.map((r: Json) => r.name)).toEqual(['gql-role']);
    const removed = ok(
      await gql(
        `mutation($r: String!, $id: ID!, $roles: [RoleInput!]!) { removeRealmScopeMappings(realm: $r, owner: CLIENT_SCOPE, ownerId: $id, roles: $roles) { roles { name } } }`,
        {
          r: R,
          id,
          roles: [{ id: role.id }],
        },
      ),
    );
    expect(removed.removeRealmScopeMappings.roles).toEqual([]);

    expect(
      ok(
        await gql(`mutation($r: String!, $id: ID!) { addRealmDefaultClientScope(realm: $r, list: OPTIONAL, id: $id) { ok } }`, {
          r: R,
          id,
        }),
      ).addRealmDefaultClientScope.ok,
    ).toBe(true);
    const lists = ok(
      await gql(`query($r: String!) { realm(name: $r) { defaultClientScopes(list: OPTIONAL) { id name protocol } } }`, { r: R }),
    );
    expect(restSpelling((lists.realm as Json).defaultClientScopes)).toEqual((await api.get(`${base}/default-optional-client-scopes`)).body);
    expect(
      ok(
        await gql(`mutation($r: String!, $id: ID!) { removeRealmDefaultClientScope(realm: $r, list: OPTIONAL, id: $id) { ok } }`, {
          r: R,
          id,
        }),
      ).removeRealmDefaultClientScope.ok,
    ).toBe(true);

    expect(
      ok(await gql(`mutation($r: String!, $id: ID!) { deleteClientScope(realm: $r, id: $id) { ok } }`, { r: R, id })).deleteClientScope.ok,
    ).toBe(true);
    const gone = await gql(`query($r: String!, $id: ID!) { clientScope(realm: $r, id: $id) { id } }`, { r: R, id });
    expect(gone.errors?.[0].message).toBe('Could not find client scope');
    expect(gone.errors?.[0].extensions.http?.status).toBe(404);
  });

  test('errors and permissions as in REST', async () => {
    const bad = await gql(
      `mutation($r: String!) { createClientScope(realm: $r, input: { name: "a b", protocol: OPENID_CONNECT }) { clientScope { id } ${USER_ERRORS} } }`,
      { r: R },
    );
    expect(userErrors(bad, 'createClientScope')).toEqual([
      { field: ['input'], code: 'BAD_REQUEST', message: 'Unexpected name "a b" for ClientScope' },
    ]);
    await realmAdmin(ts, R, 'gql-viewer', ['view-clients']);
    const viewer = gqlClient(ts, { realm: R, username: 'gql-viewer', password: 'pw' });
    const denied = await viewer(
      `mutation($r: String!) { createClientScope(realm: $r, input: { name: "v", protocol: OPENID_CONNECT }) { clientScope { id } } }`,
      { r: R },
    );
    expect(denied.errors?.[0].extensions.http?.status).toBe(403);
    const read = ok(await viewer(`query($r: String!) { realm(name: $r) { clientScopes { name } } }`, { r: R }));
    expect(((read.realm as Json).clientScopes as Json[]).length).toBeGreaterThan(10);
  });
});
