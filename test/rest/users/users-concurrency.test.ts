import request from 'supertest';
import { startTestServer, type TestServer } from '../../helpers/server';

/**
 * Uniqueness under concurrency comes from the unique indexes, not from read-before-write: many
 * simultaneous creates of the same username (or email) give exactly one 201 and 409s, never a 500.
 */
let ts: TestServer;
let url: string;
let bearer: string;
const R = 'race';
const U = `/admin/realms/${R}/users`;
const N = 50;

beforeAll(async () => {
  ts = await startTestServer();
  const api = await ts.api();
  expect((await api.post('/admin/realms', { realm: R, enabled: true })).status).toBe(201);
  url = await ts.listen();
  bearer = `Bearer ${await ts.token()}`;
});
afterAll(() => ts.close());

const post = (body: unknown) =>
  request(url)
    .post(U)
    .set('Authorization', bearer)
    .send(body as object);

function tally(results: request.Response[]) {
  const by = new Map<number, number>();
  for (const r of results) by.set(r.status, (by.get(r.status) ?? 0) + 1);
  return by;
}

test(`${N} concurrent creates of one username: one 201, the rest 409, one row`, async () => {
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) => post({ username: i % 2 ? 'Racer' : 'racer', email: `racer${i}@x.org` })),
  );
  const by = tally(results);
  expect(by.get(201)).toBe(1);
  expect(by.get(409)).toBe(N - 1);
  for (const r of results.filter((x) => x.status === 409)) expect(r.body).toEqual({ errorMessage: 'User exists with same username' });
  const realm = await ts.db.models.Realm.findOne({ where: { name: R } });
  expect(await ts.db.models.User.count({ where: { realmId: realm!.id, username: 'racer' } })).toBe(1);
  const id = results
    .find((r) => r.status === 201)!
    .headers.location.split('/')
    .pop();
  expect(await ts.db.models.UserRoleMapping.count({ where: { userId: id } })).toBe(1);
});

test(`${N} concurrent creates with distinct usernames and one email: one 201, the rest 409, one row`, async () => {
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) => post({ username: `mailer${i}`, email: i % 2 ? 'Shared@X.org' : 'shared@x.org' })),
  );
  const by = tally(results);
  expect(by.get(201)).toBe(1);
  expect(by.get(409)).toBe(N - 1);
  for (const r of results.filter((x) => x.status === 409)) expect(r.body).toEqual({ errorMessage: 'User exists with same email' });
  const realm = await ts.db.models.Realm.findOne({ where: { name: R } });
  expect(await ts.db.models.User.count({ where: { realmId: realm!.id, email: 'shared@x.org' } })).toBe(1);
  expect(await ts.db.models.User.count({ where: { realmId: realm!.id } })).toBe(2);
  // Nothing of the losers was left behind.
  const users = await ts.db.models.User.findAll({ where: { realmId: realm!.id }, attributes: ['id'] });
  expect(await ts.db.models.UserRoleMapping.count()).toBeGreaterThan(0);
  const mappings = await ts.db.models.UserRoleMapping.findAll({ where: { roleId: realm!.settings.defaultRoleId as string } });
  expect(mappings.map((m) => m.userId).sort()).toEqual(users.map((u) => u.id).sort());
});
