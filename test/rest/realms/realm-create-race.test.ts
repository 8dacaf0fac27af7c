import * as realmSetup from '../../../src/services/realms/realm-setup';
import { type AdminApi, startTestServer, type TestServer } from '../../helpers/server';

/**
 * Concurrent creates of one realm name (issue 10): one 201, every other a 409 with the service's
 * duplicate message, and the losers fail fast: they neither generate the realm's keys nor build any
 * of it before the name is known to be taken (200 concurrent creates took ~110 s when they did).
 */
let ts: TestServer;
let api: AdminApi;

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
});
afterAll(() => ts.close());

test('20 concurrent creates of one name: one 201, 19 × 409, one realm built, losers as cheap as a plain duplicate', async () => {
  // What a create and a duplicate create cost, one at a time.
  const solo = await ts.countSql(async () => (await api.post('/admin/realms', { realm: 'race-solo', enabled: true })).status);
  expect(solo.result).toBe(201);
  const duplicate = await ts.countSql(async () => (await api.post('/admin/realms', { realm: 'race-solo', enabled: true })).status);
  expect(duplicate.result).toBe(409);

  const keys = jest.spyOn(realmSetup, 'prepareRealmKeys');
  try {
    const race = await ts.countSql(() =>
      Promise.all(Array.from({ length: 20 }, () => api.post('/admin/realms', { realm: 'race-one', enabled: true }))),
    );
    const statuses = race.result.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(19).fill(409)]);
    for (const r of race.result.filter((x) => x.status === 409)) expect(r.body).toEqual({ errorMessage: 'Realm race-one already exists' });
    // Only the winner generated keys; the losers' statements are those of a plain duplicate.
    expect(keys).toHaveBeenCalledTimes(1);
    expect(race.count).toBeLessThanOrEqual(solo.count + 19 * duplicate.count);
  } finally {
    keys.mockRestore();
  }
  const realms = (await api.get('/admin/realms?briefRepresentation=true')).body.map((r: { realm: string }) => r.realm);
  expect(realms.filter((n: string) => n === 'race-one')).toHaveLength(1);
  expect((await api.get('/admin/realms/race-one/clients?clientId=account')).body).toHaveLength(1);
});

test('a concurrent create waits for one that fails inside its transaction, then runs', async () => {
  const keys = jest.spyOn(realmSetup, 'prepareRealmKeys');
  try {
    // Two clients with one clientId: refused while importing, after the name was checked and keys made.
    const bad = api.post('/admin/realms', { realm: 'race-retry', enabled: true, clients: [{ clientId: 'twin' }, { clientId: 'twin' }] });
    const sent = bad.then((r) => r);
    while (keys.mock.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    const good = await api.post('/admin/realms', { realm: 'race-retry', enabled: true });
    expect((await sent).body).toEqual({ errorMessage: 'Conflict detected. See logs for details' });
    expect(good.status).toBe(201);
    expect(keys).toHaveBeenCalledTimes(2);
  } finally {
    keys.mockRestore();
  }
});
