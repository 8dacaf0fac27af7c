import type request from 'supertest';
import { createRealm } from '../../helpers/fixtures';
import { type AdminApi, startTestServer, type TestServer } from '../../helpers/server';

/**
 * Uniqueness under concurrency comes from the unique indexes, not from read-before-write: many
 * simultaneous creates of the same username (or email) give exactly one 201 and 409s, never a 500.
 */
let ts: TestServer;
let api: AdminApi;
let live: AdminApi;
const R = 'race';
const U = `/admin/realms/${R}/users`;
const N = 50;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  await createRealm(api, R);
  live = await ts.api({ live: true });
});
afterAll(() => ts.close());

const post = (body: unknown) => live.post(U, body);

/** How many users of the realm `GET /users` finds with the given query. */
const found = async (query: string) => (await api.get(`${U}?${query}`)).body.length as number;

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
  expect(await found('username=racer&exact=true')).toBe(1);
  const id = results
    .find((r) => r.status === 201)!
    .headers.location.split('/')
    .pop();
  const mappings = (await api.get(`${U}/${id}/role-mappings`)).body;
  const clientMappings = Object.values(mappings.clientMappings ?? {}) as Array<{ mappings: unknown[] }>;
  expect(mappings.realmMappings.length + clientMappings.reduce((n, c) => n + c.mappings.length, 0)).toBe(1);
});

test(`${N} concurrent creates with distinct usernames and one email: one 201, the rest 409, one row`, async () => {
  const before = (await api.get(`${U}/count`)).body as number;
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) => post({ username: `mailer${i}`, email: i % 2 ? 'Shared@X.org' : 'shared@x.org' })),
  );
  const by = tally(results);
  expect(by.get(201)).toBe(1);
  expect(by.get(409)).toBe(N - 1);
  for (const r of results.filter((x) => x.status === 409)) expect(r.body).toEqual({ errorMessage: 'User exists with same email' });
  expect(await found('email=shared@x.org&exact=true')).toBe(1);
  expect((await api.get(`${U}/count`)).body).toBe(before + 1);
  // Nothing of the losers was left behind: read from the table, since the API never shows a mapping whose user is gone.
  const users = (await api.get(`${U}?max=1000`)).body as Array<{ id: string }>;
  expect(await ts.db.models.UserRoleMapping.count()).toBeGreaterThan(0);
  const defaultRoleId = (await api.get(`/admin/realms/${R}`)).body.defaultRole.id as string;
  const mappings = await ts.db.models.UserRoleMapping.findAll({ where: { roleId: defaultRoleId } });
  expect(mappings.map((m) => m.userId).sort()).toEqual(users.map((u) => u.id).sort());
});
