import request from 'supertest';
import { createUser, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/**
 * A bearer token's signature is checked once per node and remembered (src/auth/verified-tokens.ts):
 * what is remembered must never outlive what made it valid. A token is refused as soon as its signing
 * key is disabled or removed, and once it expires, though its signature was accepted before.
 */
const R = 'verified';
let ts: TestServer;
let api: AdminApi;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  await createUser(ts, R, 'boss', { password: 'pw', roles: ['view-users'] });
});
afterAll(() => ts.close());

async function token(): Promise<string> {
  const res = await request(ts.app)
    .post(`/realms/${R}/protocol/openid-connect/token`)
    .type('form')
    .send({ grant_type: 'password', client_id: 'admin-cli', username: 'boss', password: 'pw' });
  expect(res.status).toBe(200);
  return res.body.access_token;
}
const users = (t: string) => request(ts.app).get(`/admin/realms/${R}/users`).set('Authorization', `Bearer ${t}`);

test('a token signed by a key is refused once the key is disabled, and once it is deleted', async () => {
  const created = await api.post(`/admin/realms/${R}/components`, {
    name: 'newer',
    providerId: 'rsa-generated',
    providerType: 'org.keycloak.keys.KeyProvider',
    config: { priority: ['500'] },
  });
  expect(created.status).toBe(201);
  const id = created.headers.location.split('/').pop();
  const t = await token();
  expect((await users(t)).status).toBe(200);
  expect((await users(t)).status).toBe(200);
  expect((await api.put(`/admin/realms/${R}/components/${id}`, { config: { enabled: ['false'] } })).status).toBe(204);
  expect((await users(t)).status).toBe(401);

  expect((await api.put(`/admin/realms/${R}/components/${id}`, { config: { enabled: ['true'] } })).status).toBe(204);
  const t2 = await token();
  expect((await users(t2)).status).toBe(200);
  expect((await api.delete(`/admin/realms/${R}/components/${id}`)).status).toBe(204);
  expect((await users(t2)).status).toBe(401);
  expect((await users(await token())).status).toBe(200);
});

test('a token accepted before is refused once it has expired', async () => {
  // 3 s: `exp` is the whole second of `iat` plus the lifespan, so 1 s left a token as little as a few
  // milliseconds of life, which a loaded CI machine spent before the first use.
  expect((await api.put(`/admin/realms/${R}`, { accessTokenLifespan: 3 })).status).toBe(204);
  const t = await token();
  expect((await users(t)).status).toBe(200);
  const exp = JSON.parse(Buffer.from(t.split('.')[1], 'base64url').toString()).exp as number;
  await new Promise((r) => setTimeout(r, exp * 1000 - Date.now() + 50));
  expect((await users(t)).status).toBe(401);
});
