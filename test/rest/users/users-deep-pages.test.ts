import { randomUUID } from 'node:crypto';
import { SEEK_FROM } from '../../../src/services/users/users-search-index';
import { realmIdOf, realmServer, serviceAccountClient } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

/**
 * GET /users without a filter, past SEEK_FROM: the page starts at the username found at `first` in
 * the listing index (migration 0015) rather than skipping rows. It must be the same page as
 * Keycloak's `ORDER BY username LIMIT max OFFSET first` over the realm's users that are not service
 * accounts, whichever side of the threshold, and `first` past the end is an empty page.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'deep';
const U = `/admin/realms/${R}/users`;
const N = SEEK_FROM + 60;

const names = async (query: string) => {
  const res = await api.get(`${U}?${query}`);
  expect(res.status).toBe(200);
  return (res.body as Array<{ username: string }>).map((u) => u.username);
};

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  // Service accounts sort among the users (`service-account-…`) and must be skipped on every page.
  await serviceAccountClient(api, R, 'svc-a', 'sa');
  await serviceAccountClient(api, R, 'svc-b', 'sb');
  // Bulk SQL, as an import would write them (created through the API, 1,000 users would take minutes).
  const realmId = await realmIdOf(api, R);
  const now = Date.now();
  const rows = Array.from({ length: N }, (_, i) => {
    const id = randomUUID();
    // Names out of insertion order: r0000 is written last, so no page can follow the row order.
    const username = `${['r', 's', 't'][i % 3]}${String(N - i).padStart(4, '0')}`;
    return {
      id,
      realmId,
      username,
      email: null,
      emailConstraint: id,
      enabled: true,
      emailVerified: false,
      createdTimestamp: now,
      notBefore: 0,
    };
  });
  await ts.db.models.User.bulkCreate(rows);
  // An unrelated realm's users must not shift the pages.
  await api.post('/admin/realms', { realm: 'other', enabled: true });
  await api.post('/admin/realms/other/users', { username: 'r0500x', enabled: true });
});
afterAll(() => ts.close());

test('deep pages are the slices of the whole listing, service accounts excluded', async () => {
  const all = await names('first=0&max=-1');
  expect(all).toHaveLength(N);
  expect(all).toEqual([...all].sort());
  expect(all.some((u) => u.startsWith('service-account-'))).toBe(false);
  for (const first of [SEEK_FROM - 1, SEEK_FROM, SEEK_FROM + 1, N - 30, N - 1]) {
    expect(await names(`first=${first}&max=20`)).toEqual(all.slice(first, first + 20));
  }
  expect(await names(`first=${SEEK_FROM + 5}&max=-1`)).toEqual(all.slice(SEEK_FROM + 5));
  expect(await names(`first=${SEEK_FROM + 5}`)).toEqual(all.slice(SEEK_FROM + 5, SEEK_FROM + 105));
});

test('a first past the end is an empty page; max=0 is empty', async () => {
  expect(await names(`first=${N}&max=10`)).toEqual([]);
  expect(await names(`first=${N + 5000}&max=10`)).toEqual([]);
  expect(await names(`first=${SEEK_FROM + 3}&max=0`)).toEqual([]);
});

test('a deep page follows a delete at once', async () => {
  const before = await names(`first=${SEEK_FROM}&max=3`);
  const victim = (await api.get(`${U}?username=${before[0]}&exact=true`)).body[0].id as string;
  expect((await api.delete(`${U}/${victim}`)).status).toBe(204);
  const after = await names(`first=${SEEK_FROM}&max=3`);
  expect(after.slice(0, 2)).toEqual(before.slice(1));
  const all = await names('first=0&max=-1');
  expect(after).toEqual(all.slice(SEEK_FROM, SEEK_FROM + 3));
});
