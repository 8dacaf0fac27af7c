import { randomUUID } from 'node:crypto';
import { adminEvents, clientUuid, createLoginUser, expectStatus, realmIdOf, userId } from '../../helpers/fixtures';
import { startTestServer, type AdminApi, type TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;
const R = 'consents';
const U = `/admin/realms/${R}/users`;

const userIdOf = (username: string, realm = R) => userId(api, realm, username);

/**
 * Imports an enabled realm (admin events on) with `consenter`, who consented to `account` for the
 * `profile` and `email` scopes, and `plain`, without consents. Tests that revoke or add grants use
 * their own realm.
 */
async function consentRealm(realm: string): Promise<void> {
  const res = await api.post('/admin/realms', {
    realm,
    enabled: true,
    adminEventsEnabled: true,
    users: [
      {
        username: 'consenter',
        enabled: true,
        clientConsents: [
          { clientId: 'account', grantedClientScopes: ['profile', 'email'], createdDate: 1700000000000, lastUpdatedDate: 1700000001000 },
        ],
      },
      { username: 'plain', enabled: true },
    ],
  });
  expectStatus(res, 201, `importing realm ${realm}`);
}

/** An offline user session with one client session (no API creates one without a login flow). */
async function offlineSession(realm: string, userId: string, clientUuid: string): Promise<string> {
  const realmId = await realmIdOf(api, realm);
  const id = randomUUID();
  const now = Math.floor(Date.now() / 1000);
  await ts.db.models.UserSession.create({
    id,
    realmId,
    userId,
    clientId: clientUuid,
    started: now,
    lastAccess: now,
    offline: true,
    notes: {},
  });
  await ts.db.models.ClientSession.create({ userSessionId: id, clientId: clientUuid, realmId, offline: true, timestamp: now });
  return id;
}

beforeAll(async () => {
  ts = await startTestServer();
  api = await ts.api();
  await consentRealm(R);
});
afterAll(() => ts.close());

describe('GET /users/{id}/consents', () => {
  test('imported consent with scopes and dates; [] without consents', async () => {
    const id = await userIdOf('consenter');
    const res = await api.get(`${U}/${id}/consents`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        clientId: 'account',
        grantedClientScopes: expect.arrayContaining(['profile', 'email']),
        createdDate: 1700000000000,
        lastUpdatedDate: 1700000001000,
        additionalGrants: [],
      },
    ]);
    expect((await api.get(`${U}/${await userIdOf('plain')}/consents`)).body).toEqual([]);
  });

  test('offline sessions appear as Offline Token grants (with or without a consent)', async () => {
    const realm = 'consents-offline';
    await consentRealm(realm);
    const id = await userIdOf('consenter', realm);
    const account = await clientUuid(api, realm, 'account');
    const cli = await clientUuid(api, realm, 'admin-cli');
    await offlineSession(realm, id, account);
    await offlineSession(realm, id, cli);
    const res = await api.get(`/admin/realms/${realm}/users/${id}/consents`);
    expect(res.body).toEqual([
      {
        clientId: 'account',
        grantedClientScopes: expect.any(Array),
        createdDate: 1700000000000,
        lastUpdatedDate: 1700000001000,
        additionalGrants: [{ client: account, key: 'Offline Token' }],
      },
      {
        clientId: 'admin-cli',
        grantedClientScopes: [],
        createdDate: null,
        lastUpdatedDate: null,
        additionalGrants: [{ client: cli, key: 'Offline Token' }],
      },
    ]);
  });
});

describe('DELETE /users/{id}/consents/{clientId}', () => {
  test('revokes consent and offline sessions of that client only; admin event ACTION', async () => {
    const realm = 'consents-revoke';
    const Ur = `/admin/realms/${realm}/users`;
    await consentRealm(realm);
    const id = await userIdOf('consenter', realm);
    const account = await clientUuid(api, realm, 'account');
    await offlineSession(realm, id, account);
    await offlineSession(realm, id, await clientUuid(api, realm, 'admin-cli'));
    const res = await api.delete(`${Ur}/${id}/consents/account`);
    expect(res.status).toBe(204);
    const left = (await api.get(`${Ur}/${id}/consents`)).body;
    expect(left.map((c: { clientId: string }) => c.clientId)).toEqual(['admin-cli']);
    expect((await api.get(`/admin/realms/${realm}/clients/${account}/offline-session-count`)).body).toEqual({ count: 0 });
    // The consent row itself: the list above merges consents with offline tokens, so only the table shows it is gone.
    expect(await ts.db.models.UserConsent.count({ where: { userId: id } })).toBe(0);
    const [ev] = await adminEvents(api, realm, { resourcePath: `users/${id}/consents/account` });
    expect(ev).toMatchObject({ operationType: 'ACTION', resourceType: 'USER' });
    // offline token only
    expect((await api.delete(`${Ur}/${id}/consents/admin-cli`)).status).toBe(204);
    expect((await api.get(`${Ur}/${id}/consents`)).body).toEqual([]);
  });

  test('404 bodies: unknown client, nothing to revoke, unknown user', async () => {
    const id = await userIdOf('plain');
    const unknown = await api.delete(`${U}/${id}/consents/no-such-client`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Client not found' });
    const nothing = await api.delete(`${U}/${id}/consents/account`);
    expect(nothing.status).toBe(404);
    expect(nothing.body).toEqual({ error: 'Consent nor offline token not found' });
    expect((await api.delete(`${U}/${randomUUID()}/consents/account`)).body).toEqual({ error: 'User not found' });
  });

  test('deleting the user removes its consents', async () => {
    const res = await api.post('/admin/realms', {
      realm: 'consents2',
      enabled: true,
      users: [{ username: 'gone', clientConsents: [{ clientId: 'account', grantedClientScopes: ['profile'] }] }],
    });
    expect(res.status).toBe(201);
    const list = (await api.get('/admin/realms/consents2/users?username=gone&exact=true')).body;
    const id = list[0].id;
    expect((await api.get(`/admin/realms/consents2/users/${id}/consents`)).body).toHaveLength(1);
    expect((await api.delete(`/admin/realms/consents2/users/${id}`)).status).toBe(204);
    // The API cannot show the consents of a deleted user: the table shows none is left behind.
    expect(await ts.db.models.UserConsent.count({ where: { userId: id } })).toBe(0);
  });

  test('403 for a caller without manage-users', async () => {
    await createLoginUser(ts, 'master', 'nobody', 'nobody-pw');
    const nobody = await ts.api({ username: 'nobody', password: 'nobody-pw' });
    const id = await userIdOf('plain');
    expect((await nobody.get(`${U}/${id}/consents`)).status).toBe(403);
    expect((await nobody.delete(`${U}/${id}/consents/account`)).status).toBe(403);
  });
});
