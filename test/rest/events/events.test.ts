import { randomUUID } from 'node:crypto';
import { realmAdmin, realmIdOf } from '../../helpers/fixtures';
import { type AdminApi, type TestServer, startTestServer } from '../../helpers/server';

/**
 * GET/DELETE /events and /admin-events (reference §7.3–7.5): every filter, paging defaults,
 * ordering, error bodies and permissions, over rows stored in the real database.
 */
let ts: TestServer;
let api: AdminApi;
const R = 'ev';
const E = `/admin/realms/${R}/events`;
const A = `/admin/realms/${R}/admin-events`;
let realmId: string;
let otherId: string;

const DAY = 24 * 3600 * 1000;
/** Local midnight of 2026-03-10 (dates are interpreted in the server's time zone). */
const BASE = new Date(2026, 2, 10).getTime();

async function seedEvents(): Promise<void> {
  const rows = [];
  // 150 LOGIN events on 2026-03-10, one per minute from 00:00, for the pagination default
  for (let i = 0; i < 150; i++) {
    rows.push({
      id: randomUUID(),
      realmId,
      time: BASE + i * 60_000,
      type: 'LOGIN',
      clientId: 'web',
      userId: 'u1',
      ipAddress: '10.0.0.1',
      details: { n: String(i) },
    });
  }
  rows.push({
    id: randomUUID(),
    realmId,
    time: BASE + DAY + 5,
    type: 'LOGOUT',
    clientId: 'web',
    userId: 'u2',
    sessionId: 's2',
    ipAddress: '10.0.0.2',
    details: {},
  });
  rows.push({
    id: randomUUID(),
    realmId,
    time: BASE + 2 * DAY + 5,
    type: 'LOGIN_ERROR',
    clientId: 'cli',
    userId: 'u3',
    ipAddress: '10.0.0.3',
    error: 'invalid_user_credentials',
    details: { username: 'x' },
  });
  rows.push({
    id: randomUUID(),
    realmId,
    time: BASE - DAY,
    type: 'CODE_TO_TOKEN',
    clientId: 'cli',
    userId: 'u1',
    ipAddress: '10.0.0.1',
    details: {},
  });
  rows.push({
    id: randomUUID(),
    realmId: otherId,
    time: BASE,
    type: 'LOGIN',
    clientId: 'web',
    userId: 'u1',
    ipAddress: '10.0.0.1',
    details: {},
  });
  await ts.db.models.Event.bulkCreate(rows);
}

async function seedAdminEvents(): Promise<void> {
  const base = {
    realmId,
    authRealmId: 'realm-a',
    authClientId: 'client-a',
    authUserId: 'user-a',
    ipAddress: '1.1.1.1',
    details: null,
    error: null,
  };
  await ts.db.models.AdminEvent.bulkCreate([
    {
      ...base,
      id: randomUUID(),
      time: BASE + 1,
      operationType: 'CREATE',
      resourceType: 'USER',
      resourcePath: 'users/1',
      representation: '{"username":"a"}',
    },
    {
      ...base,
      id: randomUUID(),
      time: BASE + 2,
      operationType: 'UPDATE',
      resourceType: 'USER',
      resourcePath: 'users/1',
      representation: null,
    },
    {
      ...base,
      id: randomUUID(),
      time: BASE + DAY,
      operationType: 'CREATE',
      resourceType: 'GROUP',
      resourcePath: 'groups/g1',
      authUserId: 'user-b',
      ipAddress: '2.2.2.2',
      representation: null,
    },
    {
      ...base,
      id: randomUUID(),
      time: BASE + 2 * DAY,
      operationType: 'DELETE',
      resourceType: 'REALM_ROLE',
      resourcePath: 'roles/a_b',
      authRealmId: 'realm-b',
      authClientId: 'client-b',
      representation: null,
    },
    {
      ...base,
      id: randomUUID(),
      time: BASE + 2 * DAY + 1,
      operationType: 'ACTION',
      resourceType: 'USER',
      resourcePath: 'users/1/groups/g1',
      details: { username: 'a' },
      representation: null,
    },
    {
      ...base,
      id: randomUUID(),
      realmId: otherId,
      time: BASE,
      operationType: 'CREATE',
      resourceType: 'USER',
      resourcePath: 'users/9',
      representation: null,
    },
  ]);
}

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  await api.post('/admin/realms', { realm: R, enabled: true });
  await api.post('/admin/realms', { realm: `${R}-other`, enabled: true });
  realmId = await realmIdOf(api, R);
  otherId = await realmIdOf(api, `${R}-other`);
  await seedEvents();
  await seedAdminEvents();
});
afterAll(() => ts.close());

const types = (body: Array<{ type: string }>) => body.map((e) => e.type);
const get = async (path: string) => {
  const res = await api.get(path);
  expect(res.status).toBe(200);
  return res.body;
};

describe('GET /events', () => {
  test('newest first, default max 100, representation fields', async () => {
    const all = await get(E);
    expect(all).toHaveLength(100);
    expect(all[0]).toEqual({
      id: expect.any(String),
      time: BASE + 2 * DAY + 5,
      type: 'LOGIN_ERROR',
      realmId,
      clientId: 'cli',
      userId: 'u3',
      ipAddress: '10.0.0.3',
      error: 'invalid_user_credentials',
      details: { username: 'x' },
    });
    expect(Object.keys(all[1])).toEqual(['id', 'time', 'type', 'realmId', 'clientId', 'userId', 'sessionId', 'ipAddress', 'details']);
    const times = all.map((e: { time: number }) => e.time);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(await get(`${E}?max=1000`)).toHaveLength(153);
  });

  test('first and max page; max=0 → []; negative values ignored; direction', async () => {
    const page = await get(`${E}?first=2&max=3`);
    expect(page.map((e: { details: { n: string } }) => e.details.n)).toEqual(['149', '148', '147']);
    expect(await get(`${E}?max=0`)).toEqual([]);
    expect(await get(`${E}?first=-5&max=-1`)).toHaveLength(100);
    const asc = await get(`${E}?direction=asc&max=2`);
    expect(types(asc)).toEqual(['CODE_TO_TOKEN', 'LOGIN']);
    expect((await api.get(`${E}?direction=up`)).body).toEqual({ error: 'Invalid value for sortDirection, expected value is asc or desc' });
    expect((await api.get(`${E}?first=abc`)).status).toBe(404);
  });

  test('type: repeated and comma-separated; an unknown type is a 400 (Keycloak answers 500)', async () => {
    expect(types(await get(`${E}?type=LOGOUT&type=LOGIN_ERROR`))).toEqual(['LOGIN_ERROR', 'LOGOUT']);
    expect(types(await get(`${E}?type=LOGOUT,CODE_TO_TOKEN`))).toEqual(['LOGOUT', 'CODE_TO_TOKEN']);
    const bad = await api.get(`${E}?type=login`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'invalid_request', error_description: "Unknown value 'login'" });
  });

  test('client, user, ipAddress', async () => {
    expect(types(await get(`${E}?client=cli`))).toEqual(['LOGIN_ERROR', 'CODE_TO_TOKEN']);
    expect(types(await get(`${E}?user=u2`))).toEqual(['LOGOUT']);
    expect(types(await get(`${E}?ipAddress=10.0.0.3`))).toEqual(['LOGIN_ERROR']);
    expect(types(await get(`${E}?user=u1&client=cli`))).toEqual(['CODE_TO_TOKEN']);
  });

  test('dateFrom/dateTo: whole days inclusive, or epoch milliseconds; invalid → 400', async () => {
    expect(types(await get(`${E}?dateFrom=2026-03-11`))).toEqual(['LOGIN_ERROR', 'LOGOUT']);
    expect(types(await get(`${E}?dateTo=2026-03-09`))).toEqual(['CODE_TO_TOKEN']);
    expect(await get(`${E}?dateFrom=2026-03-10&dateTo=2026-03-10&max=500`)).toHaveLength(150);
    expect(types(await get(`${E}?dateFrom=2026-03-11&dateTo=2026-03-11`))).toEqual(['LOGOUT']);
    expect(types(await get(`${E}?dateFrom=${BASE + DAY}&dateTo=${BASE + DAY + 5}`))).toEqual(['LOGOUT']);
    expect((await api.get(`${E}?dateFrom=10/03/2026`)).body).toEqual({
      error: "Invalid value for 'dateFrom', expected format is yyyy-MM-dd or an Epoch timestamp",
    });
    const badTo = await api.get(`${E}?dateTo=2026-02-30`);
    expect(badTo.status).toBe(400);
    expect(badTo.body.error).toContain("'dateTo'");
  });

  test('permissions: view-events reads, manage-events deletes', async () => {
    const viewer = await realmAdmin(ts, R, 'evviewer', ['view-events']);
    expect((await viewer.get(`${E}?max=1`)).status).toBe(200);
    expect((await viewer.get(`${A}?max=1`)).status).toBe(200);
    expect((await viewer.delete(E)).status).toBe(403);
    expect((await viewer.delete(A)).status).toBe(403);
    const realmViewer = await realmAdmin(ts, R, 'rviewer', ['view-realm']);
    expect((await realmViewer.get(E)).status).toBe(403);
    expect((await realmViewer.get(A)).status).toBe(403);
    expect((await api.get('/admin/realms/nope/events')).body).toEqual({ error: 'Realm not found.' });
  });
});

describe('GET /admin-events', () => {
  const paths = (body: Array<{ resourcePath: string }>) => body.map((e) => e.resourcePath);

  test('newest first, representation with authDetails', async () => {
    const all = await get(A);
    expect(paths(all)).toEqual(['users/1/groups/g1', 'roles/a_b', 'groups/g1', 'users/1', 'users/1']);
    expect(all[0]).toEqual({
      id: expect.any(String),
      time: BASE + 2 * DAY + 1,
      realmId,
      authDetails: { realmId: 'realm-a', clientId: 'client-a', userId: 'user-a', ipAddress: '1.1.1.1' },
      operationType: 'ACTION',
      resourceType: 'USER',
      resourcePath: 'users/1/groups/g1',
      details: { username: 'a' },
    });
    expect(all[4].representation).toBe('{"username":"a"}');
  });

  test('operationTypes and resourceTypes (repeated or csv); unknown → 400', async () => {
    expect(paths(await get(`${A}?operationTypes=CREATE`))).toEqual(['groups/g1', 'users/1']);
    expect(paths(await get(`${A}?operationTypes=CREATE&operationTypes=DELETE`))).toEqual(['roles/a_b', 'groups/g1', 'users/1']);
    expect(paths(await get(`${A}?resourceTypes=GROUP,REALM_ROLE`))).toEqual(['roles/a_b', 'groups/g1']);
    expect(paths(await get(`${A}?resourceTypes=USER&operationTypes=UPDATE`))).toEqual(['users/1']);
    expect((await api.get(`${A}?operationTypes=MOVE`)).status).toBe(400);
    expect((await api.get(`${A}?resourceTypes=THING`)).status).toBe(400);
  });

  test('authRealm, authClient, authUser, authIpAddress', async () => {
    expect(paths(await get(`${A}?authRealm=realm-b`))).toEqual(['roles/a_b']);
    expect(paths(await get(`${A}?authClient=client-b`))).toEqual(['roles/a_b']);
    expect(paths(await get(`${A}?authUser=user-b`))).toEqual(['groups/g1']);
    expect(paths(await get(`${A}?authIpAddress=2.2.2.2`))).toEqual(['groups/g1']);
  });

  test('resourcePath: exact, or `*` wildcard (LIKE metacharacters are literal)', async () => {
    expect(paths(await get(`${A}?resourcePath=users/1`))).toEqual(['users/1', 'users/1']);
    expect(paths(await get(`${A}?resourcePath=users/*`))).toEqual(['users/1/groups/g1', 'users/1', 'users/1']);
    expect(paths(await get(`${A}?resourcePath=*/g1`))).toEqual(['users/1/groups/g1', 'groups/g1']);
    expect(paths(await get(`${A}?resourcePath=roles/a_*`))).toEqual(['roles/a_b']);
    expect(paths(await get(`${A}?resourcePath=roles/a%25*`))).toEqual([]);
  });

  test('dates, first, max, direction', async () => {
    expect(paths(await get(`${A}?dateFrom=2026-03-12`))).toEqual(['users/1/groups/g1', 'roles/a_b']);
    expect(paths(await get(`${A}?dateTo=2026-03-10`))).toEqual(['users/1', 'users/1']);
    expect(paths(await get(`${A}?dateFrom=${BASE + DAY}&dateTo=${BASE + DAY}`))).toEqual(['groups/g1']);
    expect(paths(await get(`${A}?first=1&max=2`))).toEqual(['roles/a_b', 'groups/g1']);
    expect(paths(await get(`${A}?direction=asc&max=1`))).toEqual(['users/1']);
    expect((await api.get(`${A}?dateFrom=yesterday`)).status).toBe(400);
  });
});

describe('DELETE', () => {
  test('DELETE /events and /admin-events remove only this realm’s rows', async () => {
    expect((await api.delete(E)).status).toBe(204);
    expect(await get(E)).toEqual([]);
    expect(await ts.db.models.Event.count({ where: { realmId: otherId } })).toBe(1);
    expect((await api.delete(A)).status).toBe(204);
    expect(await get(A)).toEqual([]);
    expect(await ts.db.models.AdminEvent.count({ where: { realmId: otherId } })).toBe(1);
  });
});
