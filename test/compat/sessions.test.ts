import { startTestServer, type TestServer } from '../helpers/server';
import { type KcAdminClient, masterAdminClient } from '../helpers/admin-client';
import { type SessionFixture, advanceClock, resetClock, sessionFixture } from '../helpers/sessions';

/**
 * Compatibility: the real `@keycloak/keycloak-admin-client` drives the session, logout and
 * attack-detection endpoints.
 */

let ts: TestServer;
let f: SessionFixture;
let kc: KcAdminClient;
const R = 'kcsess';

beforeAll(async () => {
  ts = await startTestServer();
  f = await sessionFixture(ts, R, ['alice', 'bob'], { bruteForceProtected: true, failureFactor: 2 });
  ({ kc } = await masterAdminClient(ts));
  kc.setConfig({ realmName: R });
});
afterAll(async () => {
  resetClock();
  await ts.close();
});

describe('@keycloak/keycloak-admin-client: sessions and attack detection', () => {
  test('users.listSessions, listOfflineSessions, clients session counts and listings, client-session-stats', async () => {
    const t = await f.login('alice');
    const off = await f.login('alice', { scope: 'offline_access' });
    const adminCli = await f.clientUuid('admin-cli');
    const sessions = await kc.users.listSessions({ id: f.users.alice });
    expect(sessions).toEqual([
      expect.objectContaining({ id: t.body.session_state, username: 'alice', userId: f.users.alice, clients: { [adminCli]: 'admin-cli' } }),
    ]);
    const offline = await kc.users.listOfflineSessions({ id: f.users.alice, clientId: adminCli });
    expect(offline.map((s) => s.id)).toEqual([off.body.session_state]);
    expect(await kc.clients.getSessionCount({ id: adminCli })).toEqual({ count: 1 });
    expect(await kc.clients.getOfflineSessionCount({ id: adminCli })).toEqual({ count: 1 });
    expect((await kc.clients.listSessions({ id: adminCli })).map((s) => s.id)).toEqual([t.body.session_state]);
    expect((await kc.clients.listSessions({ id: adminCli, first: 1, max: 5 })).length).toBe(0);
    expect((await kc.clients.listOfflineSessions({ id: adminCli })).map((s) => s.id)).toEqual([off.body.session_state]);
    expect(await kc.realms.getClientSessionStats({ realm: R })).toEqual([
      { id: adminCli, clientId: 'admin-cli', active: '1', offline: '1' },
    ]);
    expect(await kc.realms.pushRevocation({ realm: R })).toEqual({});
    expect(await kc.clients.pushRevocation({ id: adminCli })).toEqual({});
  });

  test('users.logout, realms.deleteSession, realms.logoutAll', async () => {
    const a = await f.login('bob');
    await kc.realms.deleteSession({ realm: R, session: a.body.session_state, isOffline: false });
    expect(await kc.users.listSessions({ id: f.users.bob })).toEqual([]);
    await expect(kc.realms.deleteSession({ realm: R, session: a.body.session_state, isOffline: false })).rejects.toThrow(
      'Sesssion not found',
    );
    await f.login('bob');
    await kc.users.logout({ id: f.users.bob });
    expect(await kc.users.listSessions({ id: f.users.bob })).toEqual([]);
    await f.login('bob');
    advanceClock(1);
    await kc.realms.logoutAll({ realm: R });
    expect(await kc.realms.getClientSessionStats({ realm: R })).toEqual([]);
    expect((await kc.realms.findOne({ realm: R }))?.notBefore).toBeGreaterThan(0);
  });

  test('attackDetection.findOne, del, delAll', async () => {
    advanceClock(2);
    await f.login('bob', { password: 'wrong' });
    advanceClock(2);
    await f.login('bob', { password: 'wrong' });
    expect(await kc.attackDetection.findOne({ id: f.users.bob })).toMatchObject({
      numFailures: 2,
      disabled: true,
      lastIPFailure: expect.any(String),
    });
    await kc.attackDetection.del({ id: f.users.bob });
    expect(await kc.attackDetection.findOne({ id: f.users.bob })).toMatchObject({ numFailures: 0, disabled: false });
    await f.login('alice', { password: 'wrong' });
    expect((await kc.attackDetection.findOne({ id: f.users.alice }))?.numFailures).toBe(1);
    await kc.attackDetection.delAll();
    expect((await kc.attackDetection.findOne({ id: f.users.alice }))?.numFailures).toBe(0);
  });
});
