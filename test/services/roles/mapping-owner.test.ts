import { randomUUID } from 'node:crypto';
import { createGroup, createUser, realmAdmin } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

/**
 * Parents resolved once by the routers, in Keycloak's order. Role mappings: a write's body is read
 * first (400), then the owner (user: 403 without query-users, else 404; group: 404), then the client
 * (404), then the caller's rights. Groups: `/groups/{id}/...` resolves the group before the body and
 * the rights.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'mappingowner';
const base = `/admin/realms/${R}`;
let user: string;
let group: string;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  expect((await api.post('/admin/realms', { realm: R, enabled: true })).status).toBe(201);
  user = await createUser(ts, R, 'holder');
  group = await createGroup(api, R, 'holders');
});
afterAll(() => ts.close());

test('role-mapping writes: body, then owner, then client, then rights', async () => {
  const nobody = await realmAdmin(ts, R, 'no-rights', []);
  const querier = await realmAdmin(ts, R, 'querier', ['query-users']);
  const nope = randomUUID();
  expect((await nobody.post(`${base}/users/${nope}/role-mappings/realm`, [{ unknownField: 1 }])).status).toBe(400);
  expect((await nobody.post(`${base}/users/${nope}/role-mappings/realm`, [])).status).toBe(403);
  const missingUser = await querier.post(`${base}/users/${nope}/role-mappings/realm`, []);
  expect([missingUser.status, missingUser.body]).toEqual([404, { error: 'User not found' }]);
  const missingGroup = await nobody.delete(`${base}/groups/${nope}/role-mappings/realm`);
  expect([missingGroup.status, missingGroup.body]).toEqual([404, { error: 'Could not find group by id' }]);
  const missingClient = await nobody.get(`${base}/users/${user}/role-mappings/clients/${nope}`);
  expect([missingClient.status, missingClient.body]).toEqual([404, { error: 'Client not found' }]);
  expect((await nobody.get(`${base}/users/${user}/role-mappings/realm/composite`)).status).toBe(403);
  expect((await nobody.get(`${base}/groups/${group}/role-mappings`)).status).toBe(403);
  expect((await api.get(`${base}/groups/${group}/role-mappings`)).status).toBe(200);
});

test('group endpoints: the group before the body and the rights', async () => {
  const nobody = await realmAdmin(ts, R, 'no-rights-2', []);
  const nope = randomUUID();
  for (const res of [
    await nobody.get(`${base}/groups/${nope}`),
    await nobody.put(`${base}/groups/${nope}`, { unknownField: 1 }),
    await nobody.delete(`${base}/groups/${nope}`),
    await nobody.post(`${base}/groups/${nope}/children`, { name: 'x' }),
    await nobody.get(`${base}/groups/${nope}/management/permissions`),
  ]) {
    expect([res.status, res.body]).toEqual([404, { error: 'Could not find group by id' }]);
  }
  expect((await nobody.put(`${base}/groups/${group}`, { unknownField: 1 })).status).toBe(400);
  expect((await nobody.put(`${base}/groups/${group}`, { name: 'renamed' })).status).toBe(403);
  expect((await nobody.delete(`${base}/groups/${group}`)).status).toBe(403);
  expect((await api.get(`${base}/groups/${group}/management/permissions`)).status).toBe(200);
});
