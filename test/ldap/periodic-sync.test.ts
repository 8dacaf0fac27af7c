import { createdId, realmServer } from '../helpers/fixtures';
import type { AdminApi, TestServer } from '../helpers/server';
import { describeWithSlapd, ldapComponent, startSlapd, type TestSlapd } from '../helpers/slapd';
import { startPeriodicSync } from '../../src/services/user-storage/periodic-sync';

/** The periodic sync (changedSyncPeriod) imports a user added to the directory with no request made; it stops when asked. */
const R = 'ldapperiodic';
let ts: TestServer;
let api: AdminApi;
let realmId: string;
let slapd: TestSlapd;

jest.setTimeout(120_000);

describeWithSlapd('periodic LDAP sync', () => {
  beforeAll(async () => {
    slapd = await startSlapd();
    ({ ts, api, realmId } = await realmServer(R));
  });
  afterAll(async () => {
    await ts.close();
    await slapd.close();
  });

  test('a provider with changedSyncPeriod=1 picks up a new directory user; a stopped timer syncs nothing more', async () => {
    createdId(await api.post(`/admin/realms/${R}/components`, ldapComponent(slapd, realmId, { changedSyncPeriod: '1' })), 'provider');
    const stop = startPeriodicSync(ts.db, 200);
    const listed = async (u: string) =>
      (await api.get(`/admin/realms/${R}/users?briefRepresentation=true&max=100`).expect(200)).body.some(
        (x: { username: string }) => x.username === u,
      );
    try {
      await slapd.addUser('ticker', 'Tick', 'Er', 'ticker@example.org', 'pw');
      let seen = false;
      for (let i = 0; i < 50 && !seen; i++) {
        await new Promise((r) => setTimeout(r, 200));
        seen = await listed('ticker');
      }
      expect(seen).toBe(true);
    } finally {
      await stop();
    }
    await slapd.addUser('late', 'La', 'Te', 'late@example.org', 'pw');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await listed('late')).toBe(false);
  });
});
