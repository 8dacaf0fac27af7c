import { realmAdmin } from '../../helpers/fixtures';
import { gqlClient } from '../../graphql/gql';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

/**
 * Client scope and protocol mapper writes: a unique name refused by the database is Keycloak's 409
 * (core/db-errors) and leaves the stored scope as it was; a GraphQL mutation that writes and then
 * reads in the same request sees its own write (loader invalidation).
 */
let ts: TestServer;
let api: AdminApi;
const R = 'scopewrites';
const base = `/admin/realms/${R}/client-scopes`;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  expect((await api.post('/admin/realms', { realm: R, enabled: true })).status).toBe(201);
});
afterAll(() => ts.close());

const idOf = (location: string) => location.split('/').pop() as string;

test('renaming a scope to a taken name: 409 and the scope keeps its name', async () => {
  const a = idOf((await api.post(base, { name: 'sw-a', protocol: 'openid-connect' })).headers.location);
  expect((await api.post(base, { name: 'sw-b', protocol: 'openid-connect' })).status).toBe(201);
  const res = await api.put(`${base}/${a}`, { name: 'sw-b' });
  expect(res.status).toBe(409);
  expect(res.body).toEqual({ errorMessage: 'Client Scope sw-b already exists' });
  expect((await api.get(`${base}/${a}`)).body.name).toBe('sw-a');
});

test('mapper name taken: 409 on create and update, conflict body on add-models', async () => {
  const s = idOf((await api.post(base, { name: 'sw-m', protocol: 'openid-connect' })).headers.location);
  const mapper = (name: string) => ({ name, protocol: 'openid-connect', protocolMapper: 'oidc-usermodel-attribute-mapper', config: {} });
  const models = `${base}/${s}/protocol-mappers/models`;
  expect((await api.post(models, mapper('m1'))).status).toBe(201);
  const m2 = idOf((await api.post(models, mapper('m2'))).headers.location);
  expect((await api.post(models, mapper('m1'))).body).toEqual({ errorMessage: 'Protocol mapper exists with same name' });
  expect((await api.put(`${models}/${m2}`, { ...mapper('m1'), id: m2 })).status).toBe(409);
  expect((await api.get(`${models}/${m2}`)).body.name).toBe('m2');
  const add = await api.post(`${base}/${s}/protocol-mappers/add-models`, [mapper('m3'), mapper('m1')]);
  expect(add.status).toBe(409);
  expect(add.body).toEqual({ error: 'conflict', error_description: 'Protocol mapper name must be unique per protocol' });
  expect(((await api.get(models)).body as Array<{ name: string }>).map((m) => m.name)).toEqual(['m1', 'm2']);
});

test('GraphQL: a mapper update is read back in the same request', async () => {
  const s = idOf((await api.post(base, { name: 'sw-g', protocol: 'openid-connect' })).headers.location);
  const models = `${base}/${s}/protocol-mappers/models`;
  const body = { name: 'g1', protocol: 'openid-connect', protocolMapper: 'oidc-usermodel-attribute-mapper', config: {} };
  const id = idOf((await api.post(models, body)).headers.location);
  const res = await gqlClient(ts)(
    `mutation($id: ID!, $owner: ID!) {
      updateProtocolMapper(realm: "${R}", owner: CLIENT_SCOPE, ownerId: $owner, id: $id,
        input: { name: "g1-renamed", protocol: OPENID_CONNECT, protocolMapper: "oidc-usermodel-attribute-mapper", config: {} }) { protocolMapper { name } }
    }`,
    { id, owner: s },
  );
  expect(res.errors).toBeUndefined();
  expect(res.data?.updateProtocolMapper?.protocolMapper).toEqual({ name: 'g1-renamed' });
  const viewer = await realmAdmin(ts, R, 'viewer', ['view-clients']);
  expect(((await viewer.get(models)).body as Array<{ name: string }>).map((m) => m.name)).toEqual(['g1-renamed']);
});
