import { createClient, realmAdmin } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { USER_ERRORS, gqlClient, ok, startWithRealm, userErrors } from './gql';

/** Clients through GraphQL: the same service functions as REST, nested relations loader-batched. */
let ts: TestServer;
let api: AdminApi;
let gql: ReturnType<typeof gqlClient>;
const R = 'gqlc';
const base = `/admin/realms/${R}`;

beforeAll(async () => {
  ({ ts, api, gql } = await startWithRealm(R));
});
afterAll(() => ts.close());

const CLIENT = `id clientId name publicClient serviceAccountsEnabled secret redirectUris webOrigins attributes access representation
  defaultClientScopes { id name } optionalClientScopes { id name } protocolMappers { id name protocol protocolMapper config } serviceAccountUser { id username }`;

describe('graphql clients', () => {
  test('createClient returns what GET /clients/{id} returns, with nested relations', async () => {
    const {
      createClient: { client: c },
    } = ok(
      await gql(`mutation($c: ClientCreateInput!) { createClient(realm: "${R}", input: $c) { client { ${CLIENT} } } }`, {
        c: {
          clientId: 'gql-app',
          name: 'GQL',
          serviceAccountsEnabled: true,
          redirectUris: ['https://g.example.com/*'],
          protocolMappers: [
            {
              name: 'hc',
              protocol: 'OPENID_CONNECT',
              protocolMapper: 'oidc-hardcoded-claim-mapper',
              config: { 'claim.name': 'x', 'claim.value': 'y' },
            },
          ],
        },
      }),
    );
    const rest = (await api.get(`${base}/clients/${c.id}`)).body;
    expect(c.representation).toEqual(rest);
    expect(c).toMatchObject({
      clientId: 'gql-app',
      name: 'GQL',
      publicClient: false,
      serviceAccountsEnabled: true,
      secret: rest.secret,
      webOrigins: ['https://g.example.com'],
    });
    expect(c.serviceAccountUser.username).toBe('service-account-gql-app');
    expect(c.defaultClientScopes.map((s: { name: string }) => s.name)).toEqual([
      'acr',
      'basic',
      'email',
      'profile',
      'roles',
      'service_account',
      'web-origins',
    ]);
    expect(c.optionalClientScopes.map((s: { name: string }) => s.name)).toContain('phone');
    expect(c.protocolMappers).toEqual([expect.objectContaining({ name: 'hc', protocolMapper: 'oidc-hardcoded-claim-mapper' })]);
  });

  test('duplicate clientId → a CONFLICT user error on input.clientId; data unchanged', async () => {
    await createClient(api, R, { clientId: 'gql-dup' });
    const res = await gql(`mutation { createClient(realm: "${R}", input: {clientId: "gql-dup"}) { client { id } ${USER_ERRORS} } }`);
    expect(res.data?.createClient.client).toBeNull();
    expect(userErrors(res, 'createClient')).toEqual([
      { field: ['input', 'clientId'], code: 'CONFLICT', message: 'Client gql-dup already exists' },
    ]);
    expect((await api.get(`${base}/clients?clientId=gql-dup`)).body).toHaveLength(1);
  });

  test('updateClient, regenerateClientSecret, scope links, deleteClient', async () => {
    const id = await createClient(api, R, { clientId: 'gql-upd', serviceAccountsEnabled: true });
    const {
      updateClient: { client: u },
    } = ok(
      await gql(
        `mutation { updateClient(realm: "${R}", id: "${id}", input: {name: "Renamed", attributes: {a: "1"}}) { client { name attributes } } }`,
      ),
    );
    expect(u).toMatchObject({ name: 'Renamed', attributes: { a: '1', realm_client: 'false' } });
    const {
      regenerateClientSecret: { clientSecret: s },
    } = ok(await gql(`mutation { regenerateClientSecret(realm: "${R}", id: "${id}") { clientSecret { type value } } }`));
    expect(s.type).toBe('secret');
    expect((await api.get(`${base}/clients/${id}/client-secret`)).body.value).toBe(s.value);
    const phone = (await api.get(`${base}/clients/${id}/optional-client-scopes`)).body.find((x: { name: string }) => x.name === 'phone');
    ok(await gql(`mutation { removeClientOptionalScope(realm: "${R}", id: "${id}", scopeId: "${phone.id}") { ok } }`));
    ok(await gql(`mutation { addClientDefaultScope(realm: "${R}", id: "${id}", scopeId: "${phone.id}") { ok } }`));
    const q = ok(await gql(`{ client(realm: "${R}", id: "${id}") { defaultClientScopes { name } optionalClientScopes { name } } }`));
    expect(q.client.defaultClientScopes.map((x: { name: string }) => x.name)).toContain('phone');
    expect(q.client.optionalClientScopes.map((x: { name: string }) => x.name)).not.toContain('phone');
    ok(await gql(`mutation { removeClientDefaultScope(realm: "${R}", id: "${id}", scopeId: "${phone.id}") { ok } }`));
    ok(await gql(`mutation { addClientOptionalScope(realm: "${R}", id: "${id}", scopeId: "${phone.id}") { ok } }`));
    expect(ok(await gql(`mutation { deleteClient(realm: "${R}", id: "${id}") { ok } }`)).deleteClient.ok).toBe(true);
    expect((await api.get(`${base}/clients/${id}`)).status).toBe(404);
  });

  test('updateClient merges: an input without authorizationServicesEnabled keeps the resource server; false removes it', async () => {
    const created = await api.post(`${base}/clients`, { clientId: 'gql-authz', authorizationServicesEnabled: true });
    expect(created.status).toBe(201);
    const id = String(created.headers.location).split('/').pop() as string;
    const resources = async () => (await api.get(`${base}/clients/${id}/authz/resource-server/resource`)).body;
    expect((await resources()).map((r: { name: string }) => r.name)).toEqual(['Default Resource']);
    const update = (input: string) =>
      gql(`mutation { updateClient(realm: "${R}", id: "${id}", input: ${input}) { client { description representation } } }`);
    ok(await update('{description: "kept"}'));
    expect((await api.get(`${base}/clients/${id}`)).body).toMatchObject({ description: 'kept', authorizationServicesEnabled: true });
    expect(await resources()).toHaveLength(1);
    ok(await update('{authorizationServicesEnabled: false}'));
    expect((await api.get(`${base}/clients/${id}`)).body.authorizationServicesEnabled).toBeUndefined();
    expect((await api.get(`${base}/clients/${id}/authz/resource-server/resource`)).status).toBe(404);
  });

  test('nested relations of all clients of a realm take a bounded number of queries', async () => {
    for (let i = 0; i < 5; i++) await api.post(`${base}/clients`, { clientId: `many-${i}`, serviceAccountsEnabled: true }).expect(201);
    const query = `{ realm(name: "${R}") { clients { clientId defaultClientScopes { name } optionalClientScopes { name } protocolMappers { name } serviceAccountUser { username } } } }`;
    await gql(query); // warm the token and schema
    const { result, count } = await ts.countSql(() => gql(query));
    const clients = ok(result).realm.clients;
    expect(clients.length).toBeGreaterThanOrEqual(11);
    expect(clients.find((c: { clientId: string }) => c.clientId === 'many-3').serviceAccountUser.username).toBe('service-account-many-3');
    expect(count).toBeLessThan(25);
  });

  test('permissions: a view-clients caller cannot create, update or delete', async () => {
    await realmAdmin(ts, R, 'gviewer', ['view-clients']);
    const viewer = gqlClient(ts, { realm: R, username: 'gviewer', password: 'pw' });
    const res = await viewer(`mutation { createClient(realm: "${R}", input: {clientId: "nope"}) { client { id } } }`);
    expect(res.errors?.[0].extensions.http?.status).toBe(403);
    const list = ok(await viewer(`{ realm(name: "${R}") { clients(clientId: "many-0") { clientId } } }`));
    expect(list.realm.clients).toEqual([{ clientId: 'many-0' }]);
  });
});
