import { decodeJwt } from 'jose';
import request from 'supertest';
import { createUser, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/**
 * Admin bearer verification (core reference §2.4): a token works only while its user is enabled,
 * its session lives, its client exists and it is not older than a not-before; anything else is 401.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'bearerrealm';

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  expect(
    (await api.post(`/admin/realms/${R}/clients`, { clientId: 'tool', publicClient: true, directAccessGrantsEnabled: true })).status,
  ).toBe(201);
});
afterAll(() => ts.close());

async function login(username: string, clientId = 'admin-cli'): Promise<string> {
  const res = await request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: clientId, username, password: 'pw' });
  expect(res.status).toBe(200);
  return res.body.access_token;
}
const call = (token: string) => request(ts.app).get(`/admin/realms/${R}/users`).set('Authorization', `Bearer ${token}`);
const userIdOf = async (username: string) =>
  (await api.get(`/admin/realms/${R}/users?username=${username}&exact=true`)).body[0].id as string;

test('a disabled user is 401 until enabled again', async () => {
  await createUser(ts, R, 'dis', { roles: ['view-users'], password: 'pw' });
  const token = await login('dis');
  expect((await call(token)).status).toBe(200);
  const id = await userIdOf('dis');
  expect((await api.put(`/admin/realms/${R}/users/${id}`, { enabled: false })).status).toBe(204);
  expect((await call(token)).status).toBe(401);
  expect((await api.put(`/admin/realms/${R}/users/${id}`, { enabled: true })).status).toBe(204);
  expect((await call(token)).status).toBe(200);
});

test('a removed session, a deleted user and a deleted client end the token', async () => {
  await createUser(ts, R, 'sess', { roles: ['view-users'], password: 'pw' });
  const token = await login('sess');
  expect((await api.delete(`/admin/realms/${R}/sessions/${decodeJwt(token).sid}`)).status).toBe(204);
  expect((await call(token)).status).toBe(401);

  await createUser(ts, R, 'gone', { roles: ['view-users'], password: 'pw' });
  const goneToken = await login('gone');
  expect((await api.delete(`/admin/realms/${R}/users/${await userIdOf('gone')}`)).status).toBe(204);
  expect((await call(goneToken)).status).toBe(401);

  await createUser(ts, R, 'tooluser', { roles: ['view-users'], password: 'pw' });
  const toolToken = await login('tooluser', 'tool');
  expect((await call(toolToken)).status).toBe(200);
  const tool = (await api.get(`/admin/realms/${R}/clients?clientId=tool`)).body[0];
  expect((await api.delete(`/admin/realms/${R}/clients/${tool.id}`)).status).toBe(204);
  expect((await call(toolToken)).status).toBe(401);
});

test('a realm not-before (logout-all) ends older tokens, not newer ones', async () => {
  await createUser(ts, R, 'nbf', { roles: ['view-users'], password: 'pw' });
  const token = await login('nbf');
  expect((await call(token)).status).toBe(200);
  await new Promise((r) => setTimeout(r, 1100)); // not-before has second resolution
  expect((await api.post(`/admin/realms/${R}/logout-all`)).status).toBe(200);
  expect((await call(token)).status).toBe(401);
  const fresh = await login('nbf');
  expect((await call(fresh)).status).toBe(200);
});

test('a client disabled after issuing a token ends the token on REST and GraphQL, and enabling it again restores it', async () => {
  expect(
    (await api.post(`/admin/realms/${R}/clients`, { clientId: 'tool2', publicClient: true, directAccessGrantsEnabled: true })).status,
  ).toBe(201);
  await createUser(ts, R, 'tool2user', { roles: ['view-users'], password: 'pw' });
  const token = await login('tool2user', 'tool2');
  const graphql = () =>
    request(ts.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${token}`)
      .send({ query: `{ realm(name: "${R}") { id } }` });
  expect((await call(token)).status).toBe(200);
  expect((await graphql()).status).toBe(200);
  const tool = (await api.get(`/admin/realms/${R}/clients?clientId=tool2`)).body[0];
  expect((await api.put(`/admin/realms/${R}/clients/${tool.id}`, { ...tool, enabled: false })).status).toBe(204);
  const rest = await call(token);
  expect([rest.status, rest.body]).toEqual([401, { error: 'HTTP 401 Unauthorized' }]);
  const gql = await graphql();
  expect([gql.status, gql.body]).toEqual([401, { error: 'HTTP 401 Unauthorized' }]);
  expect((await api.put(`/admin/realms/${R}/clients/${tool.id}`, { ...tool, enabled: true })).status).toBe(204);
  expect((await call(token)).status).toBe(200);
});
