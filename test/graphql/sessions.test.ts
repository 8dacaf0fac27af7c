import { startTestServer, type TestServer } from '../helpers/server';
import { type SessionFixture, advanceClock, resetClock, sessionFixture } from '../helpers/sessions';
import { gqlClient, ok } from './gql';

let ts: TestServer;
let f: SessionFixture;
let gql: ReturnType<typeof gqlClient>;
const R = 'gsess';

beforeAll(async () => {
  ts = await startTestServer();
  f = await sessionFixture(ts, R, ['alice', 'bob'], { bruteForceProtected: true, failureFactor: 2 });
  gql = gqlClient(ts);
});
afterAll(async () => {
  resetClock();
  await ts.close();
});

describe('GraphQL sessions and brute force', () => {
  test('User.sessions, offlineSessions, Client.sessions/sessionCount, Realm.clientSessionStats agree with REST', async () => {
    const t = await f.login('alice');
    const off = await f.login('alice', { scope: 'offline_access' });
    const adminCli = await f.clientUuid('admin-cli');
    const data = ok(
      await gql(
        `query($realm: String!, $id: ID!, $client: ID!) {
          user(realm: $realm, id: $id) { sessions { id username userId start lastAccess rememberMe clients transientUser ipAddress } offlineSessions(clientUuid: $client) { id } }
          client(realm: $realm, id: $client) { sessionCount offlineCount: sessionCount(offline: true) sessions(first: 0, max: 10) { id } }
          realm(name: $realm) { clientSessionStats { id clientId active offline } }
        }`,
        { realm: R, id: f.users.alice, client: adminCli },
      ),
    );
    const rest = await f.admin.get(`/admin/realms/${R}/users/${f.users.alice}/sessions`);
    expect(data.user.sessions).toEqual(rest.body);
    expect(data.user.sessions.map((s: { id: string }) => s.id)).toEqual([t.body.session_state]);
    expect(data.user.offlineSessions).toEqual([{ id: off.body.session_state }]);
    expect(data.client).toEqual({ sessionCount: 1, offlineCount: 1, sessions: [{ id: t.body.session_state }] });
    expect(data.realm.clientSessionStats).toEqual([{ id: adminCli, clientId: 'admin-cli', active: 1, offline: 1 }]);
  });

  test('Client.sessionsConnection pages the sessions REST lists, with totalCount and cursors', async () => {
    const sessions = [(await f.login('alice')).body.session_state, (await f.login('alice')).body.session_state];
    const adminCli = await f.clientUuid('admin-cli');
    const rest = (await f.admin.get(`/admin/realms/${R}/clients/${adminCli}/user-sessions`)).body.map((s: { id: string }) => s.id);
    expect(rest).toEqual(expect.arrayContaining(sessions));
    const page = (after?: string) =>
      gql(
        `query($realm: String!, $client: ID!, $after: String) { client(realm: $realm, id: $client) {
          sessionsConnection(first: 1, after: $after) { totalCount nodes { id } pageInfo { hasNextPage endCursor } } } }`,
        { realm: R, client: adminCli, after },
      );
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const c = ok(await page(after)).client.sessionsConnection;
      expect(c.totalCount).toBe(rest.length);
      seen.push(...c.nodes.map((n: { id: string }) => n.id));
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
    }
    expect(seen).toEqual(rest);
    for (const id of sessions) await f.admin.delete(`/admin/realms/${R}/sessions/${id}`);
  });

  test('mutations: deleteSession, logoutUser, logoutAll, pushRevocation; errors carry the REST status', async () => {
    const t = await f.login('bob');
    const missing = await gql(`mutation { deleteSession(realm: "${R}", id: "nope") { ok } }`);
    expect(missing.errors?.[0]).toMatchObject({ message: 'Sesssion not found', extensions: { http: { status: 404 } } });
    expect(ok(await gql(`mutation($id: ID!) { deleteSession(realm: "${R}", id: $id) { ok } }`, { id: t.body.session_state }))).toEqual({
      deleteSession: { ok: true },
    });
    await f.login('bob');
    expect(ok(await gql(`mutation($id: ID!) { logoutUser(realm: "${R}", id: $id) { ok } }`, { id: f.users.bob }))).toEqual({
      logoutUser: { ok: true },
    });
    expect((await f.admin.get(`/admin/realms/${R}/users/${f.users.bob}/sessions`)).body).toEqual([]);
    expect(ok(await gql(`mutation { pushRevocation(realm: "${R}") { globalRequestResult { successRequests failedRequests } } }`))).toEqual({
      pushRevocation: { globalRequestResult: { successRequests: [], failedRequests: [] } },
    });
    advanceClock(1);
    expect(ok(await gql(`mutation { logoutAll(realm: "${R}") { globalRequestResult { successRequests failedRequests } } }`))).toEqual({
      logoutAll: { globalRequestResult: { successRequests: [], failedRequests: [] } },
    });
    expect((await f.admin.get(`/admin/realms/${R}/client-session-stats`)).body).toEqual([]);
  });

  test('bruteForceStatus on User and Realm; clearBruteForce', async () => {
    await f.login('bob', { password: 'wrong' });
    advanceClock(2);
    await f.login('bob', { password: 'wrong' });
    const q = `query($id: ID!) { realm(name: "${R}") { bruteForceStatus(userId: $id) { numFailures disabled failedLoginNotBefore } } user(realm: "${R}", id: $id) { bruteForceStatus { numFailures disabled lastIPFailure } } }`;
    const locked = ok(await gql(q, { id: f.users.bob }));
    expect(locked.realm.bruteForceStatus).toMatchObject({ numFailures: 2, disabled: true });
    expect(Number(locked.realm.bruteForceStatus.failedLoginNotBefore)).toBeGreaterThan(0);
    expect(locked.user.bruteForceStatus).toMatchObject({ numFailures: 2, disabled: true });
    expect(ok(await gql(`mutation($id: ID!) { clearBruteForce(realm: "${R}", userId: $id) { ok } }`, { id: f.users.bob }))).toEqual({
      clearBruteForce: { ok: true },
    });
    expect(ok(await gql(q, { id: f.users.bob })).realm.bruteForceStatus).toEqual({
      numFailures: 0,
      disabled: false,
      failedLoginNotBefore: '0',
    });
    expect(ok(await gql(`mutation { clearBruteForce(realm: "${R}") { ok } }`))).toEqual({ clearBruteForce: { ok: true } });
  });
});
