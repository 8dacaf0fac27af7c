import { QueryTypes } from 'sequelize';
import { createClient, createRealm } from '../../helpers/fixtures';
import { type AdminApi, startTestServer, type TestServer } from '../../helpers/server';

/**
 * `GET /users/count` without criteria reads the per-realm counts the database keeps (migration 0021)
 * instead of counting the realm's users: the number must stay exactly the number of users through
 * every kind of write, including concurrent ones and writes that fail. The true number is read from
 * `user_entity` itself (the API has no other way to count that does not go through the counter).
 */
let ts: TestServer;
let api: AdminApi;
let live: AdminApi;
const R = 'counted';
const U = `/admin/realms/${R}/users`;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  await createRealm(api, R);
  live = await ts.api({ live: true });
});
afterAll(() => ts.close());

const count = async (realm = R): Promise<number> => {
  const res = await api.get(`/admin/realms/${realm}/users/count`);
  expect(res.status).toBe(200);
  return res.body;
};

async function rows(realm = R): Promise<number> {
  const [row] = await ts.db.sequelize.query<{ n: number | string }>(
    'SELECT COUNT(*) AS n FROM user_entity u JOIN realm r ON r.id = u.realm_id WHERE r.name = :realm',
    { replacements: { realm }, type: QueryTypes.SELECT },
  );
  return Number(row.n);
}

test('creates, service accounts, deletes and refused writes: the count is the number of users', async () => {
  expect(await count()).toBe(0);
  for (let i = 0; i < 5; i++) expect((await api.post(U, { username: `user${i}` })).status).toBe(201);
  expect(await count()).toBe(5);
  // A refused create (409) and a refused update leave the count as it was.
  expect((await api.post(U, { username: 'user0' })).status).toBe(409);
  expect(await count()).toBe(5);
  // A service account is a user of the realm, and counted (Keycloak's count without criteria).
  await createClient(api, R, { clientId: 'svc', serviceAccountsEnabled: true, publicClient: false });
  expect(await count()).toBe(6);
  const [first] = (await api.get(`${U}?username=user1&exact=true`)).body;
  expect((await api.delete(`${U}/${first.id}`)).status).toBe(204);
  expect(await count()).toBe(5);
  expect(await count()).toBe(await rows());
});

test('partial imports: added users are counted, a failed import counts nothing', async () => {
  const before = await count();
  const users = Array.from({ length: 20 }, (_, i) => ({ username: `imp${i}`, enabled: true }));
  const ok = await api.post(`/admin/realms/${R}/partialImport`, { ifResourceExists: 'FAIL', users });
  expect(ok.status).toBe(200);
  expect(await count()).toBe(before + 20);
  // The same users again with FAIL: refused whole, nothing written.
  const again = await api.post(`/admin/realms/${R}/partialImport`, {
    ifResourceExists: 'FAIL',
    users: [{ username: 'new-one' }, ...users],
  });
  expect(again.status).toBe(409);
  expect(await count()).toBe(before + 20);
  // OVERWRITE replaces each user (a delete and a create): the number stays.
  const over = await api.post(`/admin/realms/${R}/partialImport`, { ifResourceExists: 'OVERWRITE', users: users.slice(0, 5) });
  expect(over.status).toBe(200);
  expect(await count()).toBe(before + 20);
  expect(await count()).toBe(await rows());
});

test('concurrent creates and deletes in one realm: the count is exact afterwards, no 5xx', async () => {
  const made = await Promise.all(Array.from({ length: 30 }, (_, i) => live.post(U, { username: `cuser${i}` })));
  expect(made.map((r) => r.status)).toEqual(Array(30).fill(201));
  const ids = made.map((r) => String(r.headers.location).split('/').pop());
  const mixed = await Promise.all([
    ...ids.slice(0, 15).map((id) => live.delete(`${U}/${id}`)),
    ...Array.from({ length: 15 }, (_, i) => live.post(U, { username: `duser${i}` })),
  ]);
  expect(mixed.filter((r) => r.status >= 500)).toEqual([]);
  expect(await count()).toBe(await rows());
});

test("a realm's count is its own, and a realm deleted and made again starts from nothing", async () => {
  await createRealm(api, 'other-count');
  expect((await api.post('/admin/realms/other-count/users', { username: 'xuser' })).status).toBe(201);
  expect(await count('other-count')).toBe(1);
  expect((await api.delete('/admin/realms/other-count')).status).toBe(204);
  await createRealm(api, 'other-count');
  expect(await count('other-count')).toBe(0);
  expect(await count()).toBe(await rows());
});

test('the count is one statement that reads the counts, not the users', async () => {
  await count(); // warm the caller's caches
  const { result, count: statements, statements: texts } = await ts.countSql(() => api.get(`${U}/count`));
  expect(result.body).toBe(await rows());
  expect(statements).toBe(2); // the bearer statement and the count
  expect(texts.some((t) => /FROM realm_user_count/.test(t))).toBe(true);
  expect(texts.some((t) => /FROM [`"]?user_entity/i.test(t))).toBe(false);
});
