import { createUser, realmServer } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';

/**
 * The routers under /admin/realms/{realm} are dispatched by the first path segment (rest/index.ts,
 * SegmentRouter): every path reaches what the plain express router would reach.
 */
const R = 'routing';
let ts: TestServer;
let api: AdminApi;
let userId: string;

beforeAll(async () => {
  ({ ts, api } = await realmServer(R));
  userId = await createUser(ts, R, 'ann');
});
afterAll(() => ts.close());

test('a segment matches without regard to case, with or without a trailing slash or query', async () => {
  expect((await api.get(`/admin/realms/${R}/users/${userId}`)).body.username).toBe('ann');
  expect((await api.get(`/admin/realms/${R}/USERS/${userId}`)).body.username).toBe('ann');
  expect((await api.get(`/admin/realms/${R}/users/${userId}/`)).body.username).toBe('ann');
  expect((await api.get(`/admin/realms/${R}/users?username=ann&exact=true`)).body.map((u: { id: string }) => u.id)).toEqual([userId]);
  expect((await api.post(`/admin/realms/${R}/testsmtpconnection`, {})).status).not.toBe(404);
});

test('routers mounted at the realm root serve their paths, after the segment routers, as before', async () => {
  expect((await api.get(`/admin/realms/${R}`)).body.realm).toBe(R);
  expect((await api.get(`/admin/realms/${R}/`)).body.realm).toBe(R);
  expect((await api.get(`/admin/realms/${R}/users-management-permissions`)).body).toEqual({ enabled: false });
  expect((await api.get(`/admin/realms/${R}/client-session-stats`)).status).toBe(200);
  // A user path served by a router mounted at the root (e-mail actions): reached through the users segment.
  expect((await api.put(`/admin/realms/${R}/users/${userId}/send-verify-email`, {})).status).not.toBe(404);
});

test('an unknown segment or path is the 404 of no route', async () => {
  for (const path of [`/admin/realms/${R}/nothing-here`, `/admin/realms/${R}/users/${userId}/nothing-here`]) {
    const res = await api.get(path);
    expect([res.status, res.body]).toEqual([404, { error: 'Unable to find matching target resource method' }]);
  }
});
