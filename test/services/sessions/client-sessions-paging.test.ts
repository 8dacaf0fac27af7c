import { randomUUID } from 'node:crypto';
import { type AdminApi, startTestServer, type TestServer } from '../../helpers/server';

/**
 * Paging of GET /clients/{id}/user-sessions (core/paging.ts with defaultMax 100, negativeMax
 * 'default'): an absent or negative `max` is a page of 100, a negative `first` is 0, `max=0` is empty.
 */
let ts: TestServer;
let api: AdminApi;
let base: string;
const N = 105;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  const realm = await ts.db.models.Realm.findOne({ where: { name: 'master' } });
  const client = await ts.db.models.Client.findOne({ where: { realmId: realm?.id, clientId: 'admin-cli' } });
  const admin = await ts.db.models.User.findOne({ where: { realmId: realm?.id, username: 'admin' } });
  if (!realm || !client || !admin) throw new Error('bootstrap data missing');
  const now = Math.floor(Date.now() / 1000);
  // Distinct start times, older than the admin's own session, so the first N of the listing are these.
  const rows = Array.from({ length: N }, (_, i) => ({ id: randomUUID(), started: now - 1000 + i }));
  await ts.db.models.UserSession.bulkCreate(
    rows.map((r) => ({
      id: r.id,
      realmId: realm.id,
      userId: admin.id,
      clientId: client.id,
      started: r.started,
      lastAccess: now,
      offline: false,
      notes: {},
      rememberMe: false,
      authMethod: 'openid-connect',
    })),
  );
  await ts.db.models.ClientSession.bulkCreate(
    rows.map((r) => ({ userSessionId: r.id, clientId: client.id, realmId: realm.id, offline: false, timestamp: now })),
  );
  base = `/admin/realms/master/clients/${client.id}/user-sessions`;
});
afterAll(() => ts.close());

const ids = async (query: string): Promise<string[]> => {
  const res = await api.get(`${base}${query}`);
  expect(res.status).toBe(200);
  return (res.body as Array<{ id: string }>).map((s) => s.id);
};

test('absent or negative max: a page of 100', async () => {
  const all = await ids('?max=1000');
  expect(all.length).toBeGreaterThan(N);
  expect(await ids('')).toEqual(all.slice(0, 100));
  expect(await ids('?max=-1')).toEqual(all.slice(0, 100));
});

test('negative first is 0; first and max page; max=0 is empty', async () => {
  const all = await ids('?max=1000');
  expect(await ids('?first=-3&max=2')).toEqual(all.slice(0, 2));
  expect(await ids('?first=100&max=3')).toEqual(all.slice(100, 103));
  expect(await ids('?first=100')).toEqual(all.slice(100, 200));
  expect(await ids('?max=0')).toEqual([]);
});
