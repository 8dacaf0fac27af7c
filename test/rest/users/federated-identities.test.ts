import { randomUUID } from 'node:crypto';
import { adminEvents, createdId, idOf, realmServer } from '../../helpers/fixtures';
import type { AdminApi, TestServer } from '../../helpers/server';

let ts: TestServer;
let api: AdminApi;
const R = 'fedid';
const U = `/admin/realms/${R}/users`;
/** A bare user (username only), as the link tests need. */
const createUser = async (username: string) => createdId(await api.post(U, { username, enabled: true }), username);

beforeAll(async () => {
  ({ ts, api } = await realmServer(R, {
    adminEventsEnabled: true,
    adminEventsDetailsEnabled: true,
    identityProviders: [
      { alias: 'github', providerId: 'github', enabled: true },
      { alias: 'google', providerId: 'google', enabled: true },
    ],
    users: [{ username: 'imported', enabled: true, federatedIdentities: [{ identityProvider: 'google', userId: 'g-1', userName: 'imp' }] }],
  }));
});
afterAll(() => ts.close());

describe('federated identities', () => {
  test('link: 204, listed, shown in the user; duplicate 409; unknown alias stored but hidden', async () => {
    const id = await createUser('linker');
    expect((await api.get(`${U}/${id}/federated-identity`)).body).toEqual([]);
    expect((await api.get(`${U}/${id}`)).body.federatedIdentities).toEqual([]);
    const res = await api.post(`${U}/${id}/federated-identity/github`, { identityProvider: 'ignored', userId: 'gh-42', userName: 'octo' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const expected = [{ identityProvider: 'github', userId: 'gh-42', userName: 'octo' }];
    expect((await api.get(`${U}/${id}/federated-identity`)).body).toEqual(expected);
    expect((await api.get(`${U}/${id}`)).body.federatedIdentities).toEqual(expected);
    const dup = await api.post(`${U}/${id}/federated-identity/github`, { userId: 'other', userName: 'other' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ errorMessage: 'User is already linked with provider' });
    expect((await api.post(`${U}/${id}/federated-identity/nonexistent`, { userId: 'x', userName: 'x' })).status).toBe(204);
    expect((await api.get(`${U}/${id}/federated-identity`)).body).toEqual(expected);
    const [ev] = await adminEvents(api, R, { resourcePath: `users/${id}/federated-identity/github` });
    expect(ev).toMatchObject({ operationType: 'CREATE', resourceType: 'USER' });
    expect(JSON.parse(String(ev?.representation))).toMatchObject({ userId: 'gh-42', userName: 'octo' });
  });

  test('the same external account cannot be linked to two users', async () => {
    const a = await createUser('ext-a');
    const b = await createUser('ext-b');
    expect((await api.post(`${U}/${a}/federated-identity/google`, { userId: 'same', userName: 's' })).status).toBe(204);
    const res = await api.post(`${U}/${b}/federated-identity/google`, { userId: 'same', userName: 's' });
    expect(res.status).toBe(409);
    expect((await api.get(`${U}/${b}/federated-identity`)).body).toEqual([]);
  });

  test('search by idpAlias and idpUserId', async () => {
    const names = async (q: string) => (await api.get(`${U}?${q}`)).body.map((u: { username: string }) => u.username);
    expect(await names('idpAlias=github')).toEqual(['linker']);
    expect(await names('idpAlias=google')).toEqual(['ext-a', 'imported']);
    expect(await names('idpAlias=google&idpUserId=g-1')).toEqual(['imported']);
    expect(await names('idpUserId=gh-42')).toEqual(['linker']);
    expect(await names('idpAlias=google&idpUserId=nope')).toEqual([]);
  });

  test('unlink: 204, then 404 Link not found; admin event DELETE', async () => {
    const id = await createUser('unlinker');
    expect((await api.post(`${U}/${id}/federated-identity/github`, { userId: 'gh-7', userName: 'unl' })).status).toBe(204);
    expect((await api.delete(`${U}/${id}/federated-identity/github`)).status).toBe(204);
    const again = await api.delete(`${U}/${id}/federated-identity/github`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'Link not found' });
    const evs = await adminEvents(api, R, { operationTypes: 'DELETE' });
    expect(evs.map((e) => e.resourcePath)).toContain(`users/${id}/federated-identity/github`);
  });

  test('bad input and unknown user', async () => {
    const id = await createUser('badlink');
    expect((await api.post(`${U}/${id}/federated-identity/github`, { userId: 'x', bogus: 1 })).status).toBe(400);
    expect((await api.post(`${U}/${id}/federated-identity/github`)).status).toBe(400);
    expect((await api.get(`${U}/${id}/federated-identity`)).body).toEqual([]);
    expect((await api.get(`${U}/${randomUUID()}/federated-identity`)).body).toEqual({ error: 'User not found' });
  });

  test('realm without identity providers: no federatedIdentities field', async () => {
    expect((await api.post('/admin/realms', { realm: 'noidp', enabled: true })).status).toBe(201);
    const res = await api.post('/admin/realms/noidp/users', { username: 'user1', enabled: true });
    const id = idOf(res.headers.location);
    expect((await api.post(`/admin/realms/noidp/users/${id}/federated-identity/github`, { userId: '1', userName: 'u' })).status).toBe(204);
    expect((await api.get(`/admin/realms/noidp/users/${id}`)).body).not.toHaveProperty('federatedIdentities');
    expect((await api.get(`/admin/realms/noidp/users/${id}/federated-identity`)).body).toEqual([]);
    expect((await api.delete(`/admin/realms/noidp/users/${id}`)).status).toBe(204);
    // The API cannot list the links of a deleted user: the table shows none was left behind.
    expect(await ts.db.models.FederatedIdentity.count({ where: { userId: id } })).toBe(0);
  });
});
