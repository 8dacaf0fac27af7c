import { createdId, createGroup, createRole, createUser, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/**
 * SQL statements per warm admin request (issue 12, item 2): the caller's realm, roles and the target
 * realm come from this node's caches, checked by the cache versions read in the bearer statement
 * (ADR 23); a user's attributes, required actions and credential types are one statement.
 *   GET /users/{id}: bearer, user, attributes + required actions + credential types = 3.
 *   GET /users?max=100: bearer, page, their attributes + required actions + credential types = 3 (≤ 4).
 *   A realm with identity providers adds one statement for the users' links.
 */
const R = 'counts';
let ts: TestServer;
let api: AdminApi;
let userId: string;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  const profile = (await api.get(`/admin/realms/${R}/users/profile`).expect(200)).body;
  await api.put(`/admin/realms/${R}/users/profile`, { ...profile, unmanagedAttributePolicy: 'ENABLED' }).expect(200);
  const group = await createGroup(api, R, 'team');
  const role = await createRole(api, R, 'member');
  for (let i = 0; i < 100; i++) {
    await api
      .post(`/admin/realms/${R}/users`, { username: `user${String(i).padStart(3, '0')}`, attributes: { n: [String(i)] } })
      .expect(201);
  }
  userId = await createUser(ts, R, 'full');
  await api.put(`/admin/realms/${R}/users/${userId}`, { attributes: { a: ['1', '2'] }, requiredActions: ['UPDATE_PASSWORD'] }).expect(204);
  await api.put(`/admin/realms/${R}/users/${userId}/groups/${group}`).expect(204);
  await api.post(`/admin/realms/${R}/users/${userId}/role-mappings/realm`, [role]).expect(204);
}, 120_000);
afterAll(() => ts.close());

/** Statements of a request made twice: the first warms the caches, the second is counted. */
async function warm(path: string): Promise<{ count: number; body: unknown }> {
  await api.get(path).expect(200);
  const { count, result } = await ts.countSql(() => api.get(path).expect(200));
  return { count, body: result.body };
}

test('GET /users/{id}: three statements, with attributes, required actions and credentials in the answer', async () => {
  const { count, body } = await warm(`/admin/realms/${R}/users/${userId}`);
  expect(body).toMatchObject({ username: 'full', attributes: { a: ['1', '2'] }, requiredActions: ['UPDATE_PASSWORD'] });
  expect(count).toBe(3);
});

test('GET /users?max=100: three statements for a full page', async () => {
  const { count, body } = await warm(`/admin/realms/${R}/users?max=100`);
  expect((body as unknown[]).length).toBe(100);
  expect(count).toBeLessThanOrEqual(4);
  expect(count).toBe(3);
});

test('the first request after a write to the realm reads the realm again, the next is warm again', async () => {
  const path = `/admin/realms/${R}/users/${userId}`;
  await warm(path);
  await api.put(`/admin/realms/${R}`, { displayName: 'Counts' }).expect(204);
  const cold = await ts.countSql(() => api.get(path).expect(200));
  expect(cold.count).toBeGreaterThan(3);
  expect((await ts.countSql(() => api.get(path).expect(200))).count).toBe(3);
});

test('GET /users/{id} in a realm with identity providers: one more statement, for the links', async () => {
  const realm = 'counts-idp';
  await api.post('/admin/realms', { realm, enabled: true }).expect(201);
  await api
    .post(`/admin/realms/${realm}/identity-provider/instances`, {
      alias: 'corp',
      providerId: 'oidc',
      config: { clientId: 'x', clientSecret: 'y', authorizationUrl: 'https://c/a', tokenUrl: 'https://c/t' },
    })
    .expect(201);
  const id = await createUser(ts, realm, 'linked');
  await api.post(`/admin/realms/${realm}/users/${id}/federated-identity/corp`, { userId: 'ext-1', userName: 'linked@corp' }).expect(204);
  const { count, body } = await warm(`/admin/realms/${realm}/users/${id}`);
  expect(body).toMatchObject({ federatedIdentities: [{ identityProvider: 'corp', userId: 'ext-1', userName: 'linked@corp' }] });
  expect(count).toBe(4);
});

test('GraphQL user by id: four statements (the realm named in an argument is read with its cache version)', async () => {
  const query = {
    query:
      'query($realm: String!, $id: ID!) { user(realm: $realm, id: $id) { username attributes requiredActions disableableCredentialTypes } }',
    variables: { realm: R, id: userId },
  };
  await api.post('/graphql', query).expect(200);
  const { count, result } = await ts.countSql(() => api.post('/graphql', query).expect(200));
  expect(result.body.data.user).toMatchObject({ username: 'full', attributes: { a: ['1', '2'] }, requiredActions: ['UPDATE_PASSWORD'] });
  // bearer, realm (with its version), user, attributes + required actions + credential types
  expect(count).toBe(4);
});

test('GET /groups: three statements for a page of top-level groups with their children counts', async () => {
  for (let i = 0; i < 5; i++) {
    const top = await createGroup(api, R, `top${i}`);
    await api.post(`/admin/realms/${R}/groups/${top}/children`, { name: `child${i}` }).expect(201);
  }
  const { count, body } = await warm(`/admin/realms/${R}/groups`);
  expect(body).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'top3', path: '/top3', subGroupCount: 1, subGroups: [] })]));
  expect((body as Array<{ name: string }>).map((g) => g.name)).toEqual(['team', 'top0', 'top1', 'top2', 'top3', 'top4']);
  // bearer, the page, the children counts
  expect(count).toBe(3);
  const paged = await warm(`/admin/realms/${R}/groups?first=2&max=2`);
  expect((paged.body as Array<{ name: string }>).map((g) => g.name)).toEqual(['top1', 'top2']);
  expect(paged.count).toBe(3);
  const rest = (await api.get(`/admin/realms/${R}/groups?first=4`).expect(200)).body;
  expect(rest.map((g: { name: string }) => g.name)).toEqual(['top3', 'top4']);
});

test('GET /groups/{id}/children: six statements for a page of children, with their counts and role mappings', async () => {
  const parent = await createGroup(api, R, 'parent');
  const role = await createRole(api, R, 'child-role');
  for (const name of ['c2', 'c0', 'c3', 'c1']) {
    const child = createdId(await api.post(`/admin/realms/${R}/groups/${parent}/children`, { name }), name);
    if (name === 'c1') await api.post(`/admin/realms/${R}/groups/${child}/role-mappings/realm`, [role]).expect(204);
  }
  const { count, body } = await warm(`/admin/realms/${R}/groups/${parent}/children`);
  expect((body as Array<{ name: string }>).map((g) => g.name)).toEqual(['c0', 'c1', 'c2', 'c3']);
  expect(body).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ name: 'c1', path: '/parent/c1', parentId: parent, subGroupCount: 0, realmRoles: ['child-role'] }),
    ]),
  );
  // bearer, the parent, the page of children (rows and all), their children counts, their role mappings, the roles
  expect(count).toBe(6);
  const paged = await warm(`/admin/realms/${R}/groups/${parent}/children?first=1&max=2`);
  expect((paged.body as Array<{ name: string }>).map((g) => g.name)).toEqual(['c1', 'c2']);
  expect(paged.count).toBe(6);
});
